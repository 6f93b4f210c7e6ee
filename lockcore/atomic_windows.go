//go:build windows

package lockcore

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// oNoFollow: Windows opens no POSIX symlinks; callers Lstat first where it matters.
const oNoFollow = 0

// tryLockFile locks the first byte of f exclusively without waiting (LockFileEx):
// nil, errBusy, or another error. Windows drops it when the holder dies.
func tryLockFile(f *os.File) error {
	ol := new(windows.Overlapped)
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errBusy
	}
	return err
}

// releaseLockedFile closes f, then removes p: Windows cannot delete a file that is
// still open, and a file another process has opened meanwhile stays (harmless: it is
// an empty scratch file that the next holder removes). It reports whether p was
// removed.
func releaseLockedFile(f *os.File, p string) bool {
	_ = f.Close()
	return os.Remove(p) == nil
}

// beforePublish closes the temp file: Windows does not rename or link a file that is
// open without delete sharing. A cleanup may then take it; the caller retries.
func beforePublish(f *os.File) { _ = f.Close() }
