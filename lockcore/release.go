package lockcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/guardlocks/guard/internal/atomicfile"
)

// ReleaseOptions say who releases a lock and how.
type ReleaseOptions struct {
	Owner string
	// Token must equal the lock's token field when the lock has one (unless Force).
	Token string
	// Force removes someone else's lock; a user lock additionally needs Interactive.
	Force bool
	// Interactive is true when a person at a terminal asked (stdin is a terminal).
	Interactive bool
	Now         time.Time
	Loc         *time.Location
}

// Release removes the lock at path and returns it as it was. The caller must own it
// (owner equal, and token equal when the lock carries one), or pass Force. A user lock
// (by name or by body) is removed only with Force from a terminal (ErrUserLock). The
// removal happens under the lock name's mutex and only if the file is still the one
// judged, so a release never deletes a lock that replaced it meanwhile.
func Release(path string, opt ReleaseOptions) (*Lock, error) {
	for attempt := 0; attempt < maxAttempts; attempt++ {
		l, retry, err := releaseOnce(path, opt)
		if !retry {
			return l, err
		}
	}
	return nil, fmt.Errorf("%s: the lock kept changing while guard tried to remove it", path)
}

func releaseOnce(path string, opt ReleaseOptions) (*Lock, bool, error) {
	loc := opt.Loc
	if loc == nil {
		loc = opt.Now.Location()
	}
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("%s: %w", path, ErrNoLock)
	}
	if err != nil {
		return nil, false, err
	}
	if !st.Mode().IsRegular() {
		if !opt.Force {
			return nil, false, &fs.PathError{Op: "unlock", Path: path, Err: fmt.Errorf("%w (%s); use --force to remove it", ErrNotRegular, st.Mode().Type())}
		}
		ok, err := RemoveIf(path, nil)
		return nil, !ok && err == nil, err
	}
	data, modTime, err := readNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ELOOP) {
		return nil, true, nil
	}
	l, perr := ParseLock(path, data, modTime, loc)
	if perr != nil {
		return nil, false, perr
	}
	if err != nil {
		l.ReadErr = err
	}
	if l.Kind == User && !(opt.Force && opt.Interactive) {
		return l, false, fmt.Errorf("%s: %w", path, ErrUserLock)
	}
	// An unreadable body may declare a user lock (removable_by: user): only a person
	// at a terminal may force it away (fail closed).
	if l.ReadErr != nil && opt.Force && !opt.Interactive {
		return l, false, fmt.Errorf("%s: unreadable (%v), so it may be a user lock: %w", path, l.ReadErr, ErrUserLock)
	}
	if !opt.Force {
		switch {
		case l.ReadErr != nil:
			return l, false, fmt.Errorf("%s: unreadable (%v), so its owner is unknown: %w", path, l.ReadErr, ErrNotOwner)
		case l.Owner != opt.Owner:
			return l, false, fmt.Errorf("%s is held by %q, not %q (use --force to remove it anyway): %w", path, l.Owner, opt.Owner, ErrNotOwner)
		case l.Token() != "" && l.Token() != opt.Token:
			return l, false, fmt.Errorf("%s: the token does not match the lock's token (use --force to remove it anyway): %w", path, ErrNotOwner)
		}
	}
	expected := data
	if l.ReadErr != nil {
		expected = nil // only a forced release gets here; remove whatever file is there
	}
	ok, err := removeIfRegular(path, expected)
	if err != nil {
		return l, false, err
	}
	return l, !ok, nil
}

// RemoveIf removes the lock file at path only if it still holds exactly expected
// (byte for byte; nil means "a non-regular entry"), under the lock name's mutex that
// takeovers and renewals also hold. It reports whether it removed the file. Prune and
// anything else that removes a lock it judged from an earlier read should use it, so
// that a fresh lock that replaced the judged one is never deleted.
func RemoveIf(path string, expected []byte) (bool, error) {
	unlock, err := lockForChange(path)
	if err != nil {
		return false, err
	}
	defer unlock()
	e := expect{data: expected, nonRegular: expected == nil}
	if !stillIs(path, e) {
		return false, nil
	}
	if err := os.Remove(path); err != nil {
		return false, err
	}
	return true, atomicfile.SyncDir(filepath.Dir(path))
}

// removeIfRegular is RemoveIf, except that a nil expected accepts any regular file.
func removeIfRegular(path string, expected []byte) (bool, error) {
	if expected != nil {
		return RemoveIf(path, expected)
	}
	unlock, err := lockForChange(path)
	if err != nil {
		return false, err
	}
	defer unlock()
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	return true, atomicfile.SyncDir(filepath.Dir(path))
}

// RemoveIfFence removes the lock at path only if it still carries fence: how a holder
// gives up its own lock (a contest loser) without touching a lock that superseded it.
func RemoveIfFence(path string, fence int64) (bool, error) {
	unlock, err := lockForChange(path)
	if err != nil {
		return false, err
	}
	defer unlock()
	data, modTime, err := readNoFollow(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	l, err := ParseLock(path, data, modTime, time.UTC)
	if err != nil {
		return false, err
	}
	if f, ok := l.Fence(); !ok || f != fence {
		return false, nil
	}
	if err := os.Remove(path); err != nil {
		return false, err
	}
	return true, atomicfile.SyncDir(filepath.Dir(path))
}

// Renew moves created to now for the caller's own live lock at path (and sets
// expires_after when expires is given), keeping every other line, the fence and the
// token. Someone else's lock is ErrNotOwner, an expired one ErrExpired: an expired lock
// may already have been taken over in the eyes of others, so it is claimed anew with
// Acquire instead.
func Renew(path, owner, expires string, now time.Time, loc *time.Location) (*Lock, error) {
	return renew(path, owner, expires, nil, now, loc)
}

// renew is Renew; with fence set, the lock must also still carry that fence
// (ErrFenceChanged otherwise): a holder renews its own grant, never a successor's.
func renew(path, owner, expires string, fence *int64, now time.Time, loc *time.Location) (*Lock, error) {
	if loc == nil {
		loc = now.Location()
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		data, modTime, err := readNoFollow(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, ErrNoLock)
		}
		if err != nil {
			return nil, err
		}
		l, err := ParseLock(path, data, modTime, loc)
		if err != nil {
			return nil, err
		}
		if l.Owner != owner {
			return l, fmt.Errorf("%s is held by %q, not %q: %w", path, l.Owner, owner, ErrNotOwner)
		}
		if f, ok := l.Fence(); fence != nil && (!ok || f != *fence) {
			return l, fmt.Errorf("%s now carries fence %d, not %d: %w", path, f, *fence, ErrFenceChanged)
		}
		if l.Expired(now) {
			return l, fmt.Errorf("%s: %w (claim it again with guard lock)", path, ErrExpired)
		}
		body, err := renewBody(data, now, expires, l.Kind)
		if err != nil {
			return l, err
		}
		fence, _ := l.Fence()
		res, retry, err := swapIf(path, expect{data: data}, body, Renewed, fence, l, loc)
		if retry {
			continue
		}
		if err != nil {
			return nil, err
		}
		return res.Lock, nil
	}
	return nil, fmt.Errorf("%s: the lock kept changing while guard tried to renew it", path)
}
