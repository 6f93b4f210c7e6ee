package lockcore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// PruneAction is what prune did, or would do, with one lock.
type PruneAction struct {
	Path string
	// Removed is set when the file was removed (never in a dry run).
	Removed bool
	// Err is set when a prunable lock could not be removed, or turned out to be fresh
	// when it was checked again (ErrReplaced).
	Err error
}

// ErrReplaced means a lock that was expired when scanned had been replaced by a live
// lock by the time prune came to remove it; the live lock is left alone.
var ErrReplaced = errors.New("replaced by a live lock since the scan; left in place")

// ErrGone means the lock was removed by someone else between the scan and prune.
var ErrGone = errors.New("already removed by someone else")

// Prune removes the prunable locks among locks (expired, and neither protected, legacy
// nor until locks; see Lock.Prunable) at now. In a dry run nothing is touched and every
// prunable lock is listed. Otherwise each lock is checked again just before it goes:
// the file is first moved aside (an atomic rename in its own directory), read again,
// and removed only if it is still prunable; a live lock that replaced the scanned one
// is put back, so prune never deletes a fresh lock. loc is the local time zone for
// zone-less times.
func Prune(locks []*Lock, now time.Time, dryRun bool, loc *time.Location) []PruneAction {
	var out []PruneAction
	for i, l := range locks {
		if !l.Prunable(now) {
			continue
		}
		if dryRun {
			out = append(out, PruneAction{Path: l.Path})
			continue
		}
		err := removeIfPrunable(l.Path, now, loc, i)
		out = append(out, PruneAction{Path: l.Path, Removed: err == nil, Err: err})
	}
	return out
}

// removeIfPrunable removes the lock file at path only if, read again, it is still
// prunable.
func removeIfPrunable(path string, now time.Time, loc *time.Location, seq int) error {
	// Hold the name's mutex, as takeover, renewal and release do, so that guard's own
	// writers never interleave with the judgement below; the move aside still guards
	// against writers that know no mutex (the reference, a person with an editor).
	unlock, err := lockForPrune(path)
	if err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	defer unlock()
	name, _ := Classify(filepath.Base(path))
	judged, modTime, err := readRegular(path, MaxLockFileSize, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: %w", path, ErrGone)
		}
		// Changed since the scan into something that cannot be judged: it holds.
		return fmt.Errorf("%s: %w (it can no longer be read: %v)", path, ErrReplaced, err)
	}
	if !newLock(name, path, judged, nil, modTime, loc).Prunable(now) {
		return fmt.Errorf("%s: %w", path, ErrReplaced)
	}
	// Move it aside first: from here on no one can replace it under our feet, and
	// the file we check is exactly the file we delete.
	aside := filepath.Join(filepath.Dir(path), ".guard-prune-"+strconv.Itoa(os.Getpid())+"-"+strconv.Itoa(seq)+"-"+filepath.Base(path))
	if err := os.Rename(path, aside); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: %w", path, ErrGone)
		}
		return fmt.Errorf("prune: %w", err)
	}
	// Only the very bytes judged above are deleted: a writer that holds no mutex (a
	// team update, the reference) may have renamed a new version into place between
	// that reading and the move, even one that is itself still expired.
	moved, _, err := readRegular(aside, MaxLockFileSize, 0)
	if err == nil && bytes.Equal(moved, judged) {
		if err := os.Remove(aside); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
		return nil
	}
	// Not ours to delete: put it back, unless a newer lock already took the name.
	if lerr := os.Link(aside, path); lerr != nil {
		return fmt.Errorf("%s: %w (it could not be put back: it is at %s: %v)", path, ErrReplaced, aside, lerr)
	}
	os.Remove(aside)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return fmt.Errorf("%s: %w", path, ErrReplaced)
}

// lockForPrune takes the lock name's mutex and, for a team lock whose guard file
// exists, that guard too (as lockForChange does). A missing guard is not created:
// prune would leave it behind (a guard is never deleted), and no team edit can be
// running without one; one that starts meanwhile creates its own guard and renames
// its new version into place, which the byte-for-byte check above notices.
func lockForPrune(path string) (func(), error) {
	if IsTeamLockName(filepath.Base(path)) {
		if _, err := os.Lstat(path + ".guard"); err == nil {
			return lockForChange(path)
		}
	}
	return lockNameMutex(path)
}
