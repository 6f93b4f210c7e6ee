//go:build unix

package lockcore

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openGuard opens (creating) a team lock's guard file without following a symbolic
// link and without waiting on a FIFO.
func openGuard(gp string) (*os.File, error) {
	f, err := os.OpenFile(gp, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o666)
	if errors.Is(err, syscall.ELOOP) {
		return nil, &fs.PathError{Op: "open guard", Path: gp, Err: errors.New("is a symbolic link")}
	}
	return f, err
}
