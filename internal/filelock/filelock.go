// Package filelock is guard's one layer of file locks between processes: an exclusive
// OS lock on an open file (flock(2) on unix, LockFileEx on Windows) and a Mutex built
// on it whose Lock takes a context and returns the function that releases it.
//
// What is guaranteed: while a holder has the lock, no other process that asks through
// this package gets it; the kernel drops the lock when the holder dies, however it
// dies, so a crash never leaves a mutex held. What is not: the locks are advisory (a
// process that does not ask can still write the file), and some network and FUSE file
// systems cannot lock at all (ErrUnsupported: the caller decides what that means).
//
// Waiting polls with a short backoff rather than blocking in the kernel, so that a
// context's cancellation or deadline stops the wait at once.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

var (
	// ErrBusy is returned by TryLock when another process holds the lock.
	ErrBusy = errors.New("locked by another process")
	// ErrUnsupported is returned when the file system cannot lock files.
	ErrUnsupported = errors.New("file locking not supported")
)

// TryLock takes an exclusive lock on f without waiting: nil, ErrBusy, ErrUnsupported
// or the system's error. The lock lasts until Unlock, or until f is closed.
func TryLock(f *os.File) error { return tryLock(f) }

// Unlock releases the lock on f taken by TryLock or Lock.
func Unlock(f *os.File) error { return unlock(f) }

// Lock takes an exclusive lock on f, waiting while another process holds it until
// ctx is done; then it returns ctx's error (context.DeadlineExceeded or
// context.Canceled). ErrUnsupported and other errors are returned at once.
func Lock(ctx context.Context, f *os.File) error {
	return poll(ctx, func() error { return tryLock(f) })
}

// Backoff of a waiting Lock: the critical sections guard protects last microseconds
// to milliseconds, so the first retries come fast and later ones stay cheap.
const (
	firstRetry = 200 * time.Microsecond
	maxRetry   = 5 * time.Millisecond
)

// poll calls try until it stops answering ErrBusy or ctx is done.
func poll(ctx context.Context, try func() error) error {
	delay := firstRetry
	var timer *time.Timer
	for {
		err := try()
		if !errors.Is(err, ErrBusy) {
			return err
		}
		if timer == nil {
			timer = time.NewTimer(delay)
			defer timer.Stop()
		} else {
			timer.Reset(delay)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		if delay < maxRetry {
			delay = min(2*delay, maxRetry)
		}
	}
}

// Mutex is an exclusive lock between processes held on the file at Path, which it
// creates when missing (mode 0644, a symbolic link at Path is refused on unix).
type Mutex struct {
	Path string
	// Transient makes the holder remove the file on release, so that an idle mutex
	// leaves nothing behind; a waiter that locked a file already removed starts over
	// on the new one. Without it the file stays (every waiter must lock the same
	// file, and some files, such as a team lock's .guard, are meant to stay).
	Transient bool
}

// Beside returns the transient Mutex that serialises the updates of the file at path:
// .<name>.mutex in the same folder, a dot file that exists only while held.
func Beside(path string) Mutex {
	dir, base := filepath.Split(path)
	return Mutex{Path: filepath.Join(dir, "."+strings.TrimPrefix(base, ".")+".mutex"), Transient: true}
}

// Lock takes the mutex, waiting while another process holds it until ctx is done
// (then ctx's error, wrapped with the path), and returns the function that releases
// it. ErrUnsupported, wrapped with the path, and other errors are returned at once.
func (m Mutex) Lock(ctx context.Context) (release func(), err error) {
	err = poll(ctx, func() error {
		var e error
		release, e = m.TryLock()
		return e
	})
	if err != nil && (ctx.Err() != nil || errors.Is(err, ErrUnsupported)) {
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	return release, err
}

// TryLock takes the mutex without waiting (ErrBusy when another process holds it)
// and returns the function that releases it.
func (m Mutex) TryLock() (release func(), err error) {
	// A transient file can be removed by its previous holder between our open and our
	// lock; a few rounds settle that.
	for range 100 {
		// Non-blocking open: a FIFO planted at Path must not hang the caller.
		f, err := os.OpenFile(m.Path, os.O_RDWR|os.O_CREATE|oNoFollow|oNonblock, 0o644)
		if err != nil {
			return nil, err
		}
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			_ = f.Close()
			if err == nil {
				err = errors.New("not a regular file")
			}
			return nil, &fs.PathError{Op: "lock", Path: m.Path, Err: err}
		}
		if err := tryLock(f); err != nil {
			_ = f.Close()
			if errors.Is(err, ErrBusy) || errors.Is(err, ErrUnsupported) {
				return nil, err
			}
			return nil, &fs.PathError{Op: "lock", Path: m.Path, Err: err}
		}
		if !m.Transient {
			return func() {
				_ = unlock(f)
				_ = f.Close()
			}, nil
		}
		if SameFile(f, m.Path) {
			return func() { RemoveLocked(f, m.Path) }, nil
		}
		_ = f.Close()
	}
	return nil, ErrBusy
}

// SameFile reports whether the open file f is still the file at path (not removed
// or replaced since it was opened).
func SameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	if err != nil {
		return false
	}
	return os.SameFile(a, b)
}
