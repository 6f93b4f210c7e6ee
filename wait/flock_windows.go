//go:build windows

package wait

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock locks the first byte of f exclusively without waiting (LockFileEx): nil,
// errBusy, or another error. Windows drops it when the process dies.
func tryLock(f *os.File) error {
	ol := new(windows.Overlapped)
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errBusy
	}
	return err
}

// lock locks the first byte of f exclusively, waiting for it.
func lock(f *os.File) error {
	ol := new(windows.Overlapped)
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol)
}

// removeHeld closes f, then removes p: Windows cannot delete an open file.
func removeHeld(f *os.File, p string) {
	_ = f.Close()
	_ = os.Remove(p)
}
