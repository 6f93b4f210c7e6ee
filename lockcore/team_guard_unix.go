//go:build unix

package lockcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// acquireTeamGuard takes the exclusive OS lock (flock) of the team lock's sibling
// guard file `<path>.guard`, creating it when missing, and returns the function that
// releases it. The guard is opened without following symbolic links, holds no state
// and is never deleted: waiters must all lock the same inode, and the OS drops the
// lock when its holder dies. A busy guard is retried every 25 ms until timeout
// (default 5 s), then ErrTeamGuardTimeout.
func acquireTeamGuard(path string, timeout time.Duration) (func(), error) {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	gp := path + ".guard"
	f, err := os.OpenFile(gp, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o666)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, &fs.PathError{Op: "open guard", Path: gp, Err: errors.New("is a symbolic link")}
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open guard", Path: gp, Err: errors.New("not a regular file")}
	}
	// Count attempts rather than read the clock: the library never reads the time.
	for attempt, attempts := 0, int(timeout/guardRetry)+1; ; attempt++ {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, &fs.PathError{Op: "flock", Path: gp, Err: err}
		}
		if attempt+1 >= attempts {
			f.Close()
			return nil, fmt.Errorf("%s: %w after %s", gp, ErrTeamGuardTimeout, timeout)
		}
		time.Sleep(guardRetry)
	}
	// An empty guard gets one byte, as the reference does, so that byte-range locks
	// (its Windows path) have something to lock.
	if st.Size() == 0 {
		if _, err := f.Write([]byte{0}); err == nil {
			_ = f.Sync()
		}
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// holdTemp locks a temporary file being written, so that scratch cleaners
// (CleanScratch) that skip files locked by a live writer leave it alone. The lock
// goes with the file descriptor.
func holdTemp(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
