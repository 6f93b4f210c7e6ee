//go:build unix

package lockcore

import (
	"errors"
	"os"
	"syscall"
)

// oNoFollow makes an open fail on a symlink instead of following it.
const oNoFollow = syscall.O_NOFOLLOW

// tryLockFile takes an exclusive flock(2) on f without waiting: nil, errBusy,
// errLockUnsupported, or another error. The kernel drops it when the holder dies.
func tryLockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errBusy
		case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENOSYS):
			return errLockUnsupported
		}
		return err
	}
}

// releaseLockedFile removes the locked scratch file f at p, then releases it: removing
// first means no waiter can lock that name's old inode after we let go. It reports
// whether the file was removed.
func releaseLockedFile(f *os.File, p string) bool {
	err := os.Remove(p)
	_ = f.Close()
	return err == nil
}

// beforePublish: the temp file stays open (and locked) while it is linked or renamed
// into place, so no cleanup can take it.
func beforePublish(*os.File) {}
