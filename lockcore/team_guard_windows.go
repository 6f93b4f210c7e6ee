//go:build windows

package lockcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// acquireTeamGuard takes an exclusive lock on the first byte of the team lock's
// sibling guard file `<path>.guard` (LockFileEx, as the reference's msvcrt.locking
// does), creating it when missing, and returns the function that releases it. The
// guard holds no state and is never deleted. A busy guard is retried every 25 ms
// until timeout (default 5 s), then ErrTeamGuardTimeout.
func acquireTeamGuard(path string, timeout time.Duration) (func(), error) {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	gp := path + ".guard"
	if st, err := os.Lstat(gp); err == nil && !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open guard", Path: gp, Err: errors.New("not a regular file (symbolic links are refused)")}
	}
	f, err := os.OpenFile(gp, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		if _, err := f.Write([]byte{0}); err == nil {
			_ = f.Sync()
		}
	}
	h := windows.Handle(f.Fd())
	for attempt, attempts := 0, int(timeout/guardRetry)+1; ; attempt++ {
		ol := new(windows.Overlapped)
		err = windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
		if err == nil {
			break
		}
		if attempt+1 >= attempts {
			f.Close()
			return nil, fmt.Errorf("%s: %w after %s", gp, ErrTeamGuardTimeout, timeout)
		}
		time.Sleep(guardRetry)
	}
	return func() {
		_ = windows.UnlockFileEx(h, 0, 1, 0, new(windows.Overlapped))
		f.Close()
	}, nil
}

// holdTemp does nothing on Windows, where an open file cannot be removed anyway.
func holdTemp(f *os.File) {}
