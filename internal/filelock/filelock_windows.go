//go:build windows

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// oNonblock: Windows has no FIFOs in the file system.
const oNonblock = 0

// oNoFollow: Windows opens no POSIX symlinks; callers Lstat first where it matters.
const oNoFollow = 0

// tryLock locks the first byte of f (LockFileEx; a lock may lie beyond the end of
// the file).
func tryLock(f *os.File) error {
	ol := new(windows.Overlapped)
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return ErrBusy
	}
	return err
}

func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}

// RemoveLocked closes f, then removes p: Windows cannot delete a file that is still
// open, and a file another process has opened meanwhile stays (harmless: an empty
// file that its next holder removes). It reports whether p was removed.
func RemoveLocked(f *os.File, p string) bool {
	_ = f.Close()
	return os.Remove(p) == nil
}
