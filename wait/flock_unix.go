//go:build unix

package wait

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock(2) on f without waiting: nil, errBusy, or another
// error. The kernel drops it when the process dies.
func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errBusy
		}
		return err
	}
}

// lock takes an exclusive flock(2) on f, waiting for it.
func lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// removeHeld removes the held file p, then closes f: removing first means nobody can
// lock the old inode under that name after we let go.
func removeHeld(f *os.File, p string) {
	_ = os.Remove(p)
	_ = f.Close()
}
