package lockcore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Action says what Acquire did.
type Action string

// The outcomes of Acquire.
const (
	// Created: there was no lock of that name; a new one was linked into place.
	Created Action = "created"
	// Renewed: the caller already held the lock; its created moved to now in place
	// (fence, token and everything else kept, so the holder's fence stays valid).
	Renewed Action = "renewed"
	// TookOver: the lock of that name had expired and was replaced atomically.
	TookOver Action = "took_over"
	// Replaced: --force replaced a live lock (or a non-file at the lock path).
	Replaced Action = "replaced"
	// Joined: a live team lock of the caller's own host already exists under another
	// owner; a team lock is shared by the agents of one host, so nothing was written.
	Joined Action = "joined"
)

// AcquireOptions are the circumstances of an acquisition.
type AcquireOptions struct {
	// Now is the current time; its location is the local zone in which created is
	// written, unless Loc is set.
	Now time.Time
	Loc *time.Location
	// Force replaces a lock of the same name whoever holds it (the RESPECT check still
	// refuses when another lock covers the area).
	Force bool
	// Respect decides RESPECT: whether a live lock elsewhere (another name in
	// spec.Dir, a directory above, below, another working tree) stops this claim. It is
	// the policy's question (guard's Policy.CheckClaim), asked here only so that it is
	// answered under the creation mutex, from RESPECT's reading to the link: path is
	// the lock file the claim would create or renew (its existing spelling). It returns
	// warnings to report, or the error that refuses (a *ConflictError naming the lock);
	// nothing is written then. Nil asks nothing: only the lock of the same name is
	// judged (renewed, taken over, or refused as another's); lockcore's own tests of
	// the mechanism use that.
	Respect func(spec Spec, path string) (warnings []string, err error)
	// MutexDir is the directory whose creation mutex (DirMutexName) the claim holds
	// from RESPECT to the link; empty means spec.Dir. A caller whose RESPECT reads
	// locks in other directories that in turn read spec.Dir (the same relative folder
	// in the other working trees of a repository) names one directory shared by all of
	// them, so that those claims are serialised too.
	MutexDir string
}

// Acquired is the result of a successful Acquire.
type Acquired struct {
	Path   string
	Action Action
	// Fence is the fence of the lock now at Path (0 when a joined team lock has none).
	Fence int64
	// Lock is the lock as it is now on disk.
	Lock *Lock
	// Previous is the lock that was renewed, taken over or replaced.
	Previous *Lock
	// Updated are the fields a renewal changed besides created (the options the
	// caller gave anew: expires_after, mode, operations, purpose, release_condition).
	Updated []string
	// Warnings are soft locks of others that cover the area (they do not refuse).
	Warnings []string
}

const maxAttempts = 50

// Acquire claims the lock that spec describes, following CONTRACT.md `guard lock`:
//
//  1. RESPECT: opt.Respect (the policy) is asked whether another live lock stops the
//     claim; its error refuses and nothing is written, its warnings are returned.
//  2. What is at the lock's name is read (ReadFound) and judged by DecideClaim, the
//     one claim engine the backend asks too: created, renewed, taken over,
//     replaced, joined or refused.
//  3. Created: the body is written to a scratch file, synced, and link(2)ed to the
//     lock name, which fails if anyone else got there first (the loser re-evaluates
//     what it now finds). The lock is never visible half-written.
//  4. Renewed (the caller's own live lock): renewed in place (created moves to now),
//     and the options spec gives (expires_after, mode, operations, purpose,
//     release_condition, an until lock's not_before; empty ones are not given)
//     replace the lock's values. The fence, the token, unknown fields and team
//     sections stay as written.
//  5. Taken over or replaced: under the lock name's mutex the file is read again,
//     and only if it is still the very file that was judged is it replaced with
//     rename(2) by a new lock whose fence is above the old one. Two processes that
//     both saw the same expired lock cannot both win, and a fresh lock that replaced
//     it meanwhile is never removed (npm proper-lockfile issue 121).
//  6. Joined (this host's team lock, another agent's): nothing is written.
//
// A symlink or other non-regular file at the lock path is never followed: it is
// refused (ErrNotRegular) unless Force, which replaces the entry itself.
//
// Steps 1 to 3 happen under the directory's creation mutex (DirMutexName, or the one
// of opt.MutexDir), so among guard processes RESPECT and the creation are one atomic
// step: of LOCK.txt and LOCK.web.txt claimed at once by two owners, one is refused.
// A claim in a directory below (DIR/sub) takes another mutex. RESPECT reads in both
// directions (a claim in DIR also respects the locks below it), so two such claims
// could each read the other's directory before the other's lock is linked; the caller
// closes that window by naming one mutex directory for the whole area
// (opt.MutexDir, e.g. the repository's root), as it must for the same relative
// folder of two working trees of one repository.
func Acquire(spec Spec, opt AcquireOptions) (*Acquired, error) {
	spec, err := spec.Prepared()
	if err != nil {
		return nil, err
	}
	loc := opt.Loc
	if loc == nil {
		loc = opt.Now.Location()
	}
	now := opt.Now.In(loc)
	dir, err := filepath.Abs(spec.Dir)
	if err != nil {
		return nil, err
	}
	spec.Dir = dir
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, &fs.PathError{Op: "lock", Path: dir, Err: syscall.ENOTDIR}
	}
	path := spec.Path()

	mutexDir := opt.MutexDir
	if mutexDir == "" {
		mutexDir = dir
	}
	unlock, err := lockDirMutex(mutexDir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// The same lock under another spelling (lock.txt for LOCK.txt) is this lock: it is
	// renewed, taken over or refused as such, never joined by a second file.
	path = ExistingLockPath(path)
	var warnings []string
	if opt.Respect != nil {
		if warnings, err = opt.Respect(spec, path); err != nil {
			return nil, err
		}
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		res, retry, err := acquireOnce(spec, path, now, loc, opt.Force)
		if retry {
			continue
		}
		if res != nil {
			res.Warnings = warnings
			// Sweep what killed writers left; only the winner pays for it.
			_, _ = CleanScratch(dir)
		}
		return res, err
	}
	return nil, fmt.Errorf("%s: the lock kept changing while guard tried to claim it", path)
}

// acquireOnce makes one attempt; retry means the file changed under it and the caller
// should look again.
func acquireOnce(spec Spec, path string, now time.Time, loc *time.Location, force bool) (res *Acquired, retry bool, err error) {
	found, err := ReadFound(path, loc)
	if errors.Is(err, ErrEntryChanged) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	d := DecideClaim(ClaimAsk{Owner: spec.Owner, Team: spec.Kind == Team, Force: force, Now: now}, found)
	switch {
	case d.Err != nil:
		return nil, false, d.Err
	case d.Action == Created:
		fence := NewFence(0, now)
		t, err := writeTemp(path, spec.Body(now, fence))
		if err != nil {
			return nil, false, err
		}
		switch err := t.linkInto(path); {
		case err == nil:
			return written(path, Created, fence, nil, loc)
		case errors.Is(err, fs.ErrExist), errors.Is(err, fs.ErrNotExist):
			// Someone else linked first (or a cleanup took our temp): look again.
			return nil, true, nil
		default:
			return nil, false, err
		}
	case d.Action == Joined:
		// Nothing is written: the team lock stays its owner's.
		fence, _ := found.Lock.Fence()
		return &Acquired{Path: path, Action: Joined, Fence: fence, Lock: found.Lock}, false, nil
	case d.Action == Renewed:
		cur := found.Lock
		nb, updated, err := updateBody(found.Data, now, spec.given(cur.Kind))
		if err != nil {
			return nil, false, err
		}
		fence, _ := cur.Fence()
		res, retry, err := swapIf(path, expect{data: found.Data}, nb, Renewed, fence, cur, loc)
		if res != nil {
			res.Updated = updated
		}
		return res, retry, err
	}
	// Taken over or replaced (ClearEntry: no service holds a file's lock), provided
	// the entry is still the one judged.
	judged := expect{data: found.Data}
	switch found.Entry {
	case EntryNotRegular:
		judged = expect{nonRegular: true}
	case EntryUnreadable:
		judged = expect{anyFile: true}
	}
	return replaceIf(spec, path, judged, d.Previous, d.Action, now, loc)
}

// replaceIf replaces the lock at path with a new one of spec, provided the entry is
// still what was judged: prev (nil when it could not be read), whose fence the new
// one raises.
func replaceIf(spec Spec, path string, expected expect, prev *Lock, action Action, now time.Time, loc *time.Location) (*Acquired, bool, error) {
	var prevFence int64
	if prev != nil {
		prevFence, _ = prev.Fence()
	}
	fence := NewFence(prevFence, now)
	return swapIf(path, expected, spec.Body(now, fence), action, fence, prev, loc)
}

// swapIf writes body at path by rename(2), under the lock name's mutex, if the entry
// is still what was judged. Otherwise it asks the caller to look again.
func swapIf(path string, expected expect, body []byte, action Action, fence int64, prev *Lock, loc *time.Location) (*Acquired, bool, error) {
	unlock, err := lockForChange(path)
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	if !stillIs(path, expected) {
		return nil, true, nil
	}
	t, err := writeTemp(path, body)
	if err != nil {
		return nil, false, err
	}
	if err := t.renameOver(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, true, nil // a cleanup took the temp file (only where it is unlocked)
		}
		return nil, false, err
	}
	res, _, err := written(path, action, fence, prev, loc)
	return res, false, err
}

// expect is what a replacement or removal expects to find at the lock path.
type expect struct {
	// data: a regular file with exactly these bytes.
	data []byte
	// nonRegular: a symlink, directory or other non-regular entry.
	nonRegular bool
	// anyFile: whatever is there (a forced replacement of an unreadable lock).
	anyFile bool
}

// stillIs reports whether path still holds what e expects.
func stillIs(path string, e expect) bool {
	st, err := os.Lstat(path)
	switch {
	case err != nil:
		return false
	case e.anyFile:
		return true
	case e.nonRegular:
		return !st.Mode().IsRegular()
	}
	data, _, err := readNoFollow(path)
	return err == nil && bytes.Equal(data, e.data)
}

// written reads back the lock just written.
func written(path string, action Action, fence int64, prev *Lock, loc *time.Location) (*Acquired, bool, error) {
	l, err := ReadLock(path, loc)
	if err != nil {
		return nil, false, err
	}
	if f, ok := l.Fence(); ok {
		fence = f
	}
	return &Acquired{Path: path, Action: action, Fence: fence, Lock: l, Previous: prev}, false, nil
}

// readNoFollow reads a lock file without following a symlink at its path.
func readNoFollow(path string) ([]byte, time.Time, error) {
	return readRegular(path, MaxLockFileSize, oNoFollow)
}
