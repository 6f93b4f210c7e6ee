//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// oNonblock keeps an open of a FIFO from waiting for a writer.
const oNonblock = syscall.O_NONBLOCK

// oNoFollow makes an open fail on a symbolic link instead of following it.
const oNoFollow = syscall.O_NOFOLLOW

func tryLock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrBusy
		case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENOSYS):
			return ErrUnsupported
		}
		return err
	}
}

func unlock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// RemoveLocked removes the locked file f at p, then closes it (releasing the lock):
// removing first means no waiter can lock that name's old inode after we let go. It
// reports whether the file was removed.
func RemoveLocked(f *os.File, p string) bool {
	err := os.Remove(p)
	_ = f.Close()
	return err == nil
}
