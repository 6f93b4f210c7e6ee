package lockcore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/guardlocks/guard/internal/atomicfile"
	"github.com/guardlocks/guard/internal/filelock"
)

// Scratch files. Every file guard writes on the way to a lock is a dot file whose name
// starts with "." and so never classifies as a lock (Classify wants "LOCK" first):
//
//	.<lockname>.<random>.tmp   a lock body being written, held under flock(2) by its
//	                           writer until it is linked or renamed into place
//	.<lockname>.mutex          serialises the guard processes that replace or remove
//	                           an existing lock of that name (takeover, renew, release)
//	.guard-lockdir.mutex       serialises the guard processes that create a lock in
//	                           that directory: RESPECT's reading of the locks and the
//	                           link(2) that follows it are one step among them
//
// Mutex files exist only while held: the holder removes its file on release.
//
// A writer killed with SIGKILL can leave a .tmp behind; its flock dies with it, so the
// next creation in that directory finds it unlocked and removes it.
const (
	tempSuffix  = ".tmp"
	mutexSuffix = ".mutex"
	// DirMutexName is the per-directory creation mutex (see Acquire).
	DirMutexName = ".guard-lockdir" + mutexSuffix
)

func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// tempFile is a lock body written to a scratch file in the lock's directory, held
// under an exclusive flock so that a concurrent cleanup does not remove it.
type tempFile struct {
	f    *os.File
	path string
}

// writeTemp writes data to a new scratch file beside lockPath and syncs it.
func writeTemp(lockPath string, data []byte) (*tempFile, error) {
	dir, base := filepath.Split(lockPath)
	for attempt := 0; ; attempt++ {
		p := filepath.Join(dir, "."+base+"."+randomHex()+tempSuffix)
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL|oNoFollow, 0o644)
		if err != nil {
			return nil, err
		}
		t := &tempFile{f: f, path: p}
		// A concurrent CleanScratch may take the new file between create and flock and
		// remove it: then the flock is busy, or the locked file is no longer at p.
		// Either way that cleanup owns it now; start over with another name.
		err = filelock.TryLock(f)
		if err != nil && !errors.Is(err, filelock.ErrUnsupported) {
			_ = f.Close()
			if errors.Is(err, filelock.ErrBusy) && attempt < maxAttempts {
				continue
			}
			return nil, &fs.PathError{Op: "flock", Path: p, Err: err}
		}
		if err == nil && !filelock.SameFile(f, p) {
			_ = f.Close()
			if attempt < maxAttempts {
				continue
			}
			return nil, &fs.PathError{Op: "create", Path: p, Err: errors.New("scratch file keeps vanishing")}
		}
		if _, err := f.Write(data); err != nil {
			t.discard()
			return nil, err
		}
		if err := f.Sync(); err != nil {
			t.discard()
			return nil, err
		}
		return t, nil
	}
}

// discard removes the scratch file and releases it.
func (t *tempFile) discard() { filelock.RemoveLocked(t.f, t.path) }

// linkInto publishes the temp file at lockPath only if nothing is there yet: link(2)
// fails with EEXIST when the name is taken, whatever sits there, and never follows a
// symlink at the target. The temp file is removed either way.
func (t *tempFile) linkInto(lockPath string) error {
	defer t.discard()
	beforePublish(t.f)
	if err := os.Link(t.path, lockPath); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(lockPath))
}

// renameOver replaces whatever is at lockPath (a lock, or a symlink, which rename
// replaces rather than follows) with the temp file in one step.
func (t *tempFile) renameOver(lockPath string) error {
	defer t.discard()
	beforePublish(t.f)
	if err := os.Rename(t.path, lockPath); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(lockPath))
}

// isScratch reports whether name is one of guard's scratch files.
func isScratch(name string) bool {
	if name == DirMutexName {
		return true
	}
	if !strings.HasPrefix(name, ".") || len(name) < 2 {
		return false
	}
	lower := strings.ToLower(name)
	if !strings.HasPrefix(lower, ".lock") && !strings.HasPrefix(lower, ".test") {
		return false
	}
	return strings.HasSuffix(name, tempSuffix) || strings.HasSuffix(name, mutexSuffix)
}

// CleanScratch removes the scratch files in dir that no live process holds: temp
// bodies and mutex files left by a writer that was killed. It returns the paths it
// removed. Files held under flock by a running writer are left alone.
func CleanScratch(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if !isScratch(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if strings.HasSuffix(p, mutexSuffix) {
			// The mutex protocol removes its file on release; taking it and releasing
			// it removes a stale one.
			unlock, err := tryMutex(p)
			if err == nil {
				unlock()
				removed = append(removed, p)
			}
			continue
		}
		f, err := os.OpenFile(p, os.O_RDONLY|oNoFollow|syscall.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		if err := filelock.TryLock(f); err == nil && filelock.SameFile(f, p) {
			if filelock.RemoveLocked(f, p) {
				removed = append(removed, p)
			}
			continue
		}
		_ = f.Close()
	}
	return removed, nil
}

// mutexWait bounds how long a takeover, renewal or release waits for another guard
// process working on the same lock name; the critical sections last microseconds, so
// only a stopped process can hold it this long.
const mutexWait = 10 * time.Second

// lockNameMutex serialises the guard processes that replace or remove the lock at
// lockPath, so that a decision made on one reading of the file ("still the expired lock
// I saw", "still mine") is acted on before anyone else can change it. It returns the
// release function. The mutex is a flock on .<lockname>.mutex; the holder removes that
// file on release, and a waiter that locked a file already removed retries on the new
// one.
func lockNameMutex(lockPath string) (func(), error) {
	dir, base := filepath.Split(lockPath)
	return waitMutex(filepath.Join(dir, "."+base+mutexSuffix))
}

// lockDirMutex serialises the guard processes that create locks in dir (Acquire): it
// is held from RESPECT's reading of the locks until the new lock is linked into place,
// so that two claims whose areas overlap but whose names differ (LOCK.txt and
// LOCK.web.txt) cannot both pass RESPECT before either exists.
func lockDirMutex(dir string) (func(), error) {
	return waitMutex(filepath.Join(dir, DirMutexName))
}

// waitMutex takes the mutex file at p, waiting up to mutexWait for another holder.
func waitMutex(p string) (func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), mutexWait)
	defer cancel()
	release, err := filelock.Mutex{Path: p, Transient: true}.Lock(ctx)
	switch {
	case errors.Is(err, filelock.ErrUnsupported):
		return noLocking(p), nil
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("%s: another guard process holds it for more than %s", p, mutexWait)
	}
	return release, err
}

// tryMutex takes the mutex file at p without waiting (filelock.ErrBusy when held).
func tryMutex(p string) (func(), error) {
	release, err := filelock.Mutex{Path: p, Transient: true}.TryLock()
	if errors.Is(err, filelock.ErrUnsupported) {
		return noLocking(p), nil
	}
	return release, err
}

// noLocking is the mutex on a file system that cannot lock files (some network and
// FUSE mounts): link(2) and rename(2) still make creation exclusive and replacement
// atomic; only the re-check loses its guard. The mutex file is not left behind.
func noLocking(p string) func() {
	_ = os.Remove(p)
	return func() {}
}

// teamGuardWait bounds the wait for a team-lock edit (guard team ...) in progress.
const teamGuardWait = 5 * time.Second

// lockForChange takes what must be held to replace or remove the lock at lockPath:
// the lock name's mutex and, for a team lock, first the team lock's own guard
// (<path>.guard, which guard team holds while it rewrites the sections), so a
// takeover, renewal or release never interleaves with a check-in and loses it.
func lockForChange(lockPath string) (func(), error) {
	if !IsTeamLockName(filepath.Base(lockPath)) {
		return lockNameMutex(lockPath)
	}
	releaseGuard, err := acquireTeamGuard(lockPath, teamGuardWait)
	if err != nil {
		return nil, err
	}
	unlock, err := lockNameMutex(lockPath)
	if err != nil {
		releaseGuard()
		return nil, err
	}
	return func() {
		unlock()
		releaseGuard()
	}, nil
}
