//go:build unix

package install

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid exists on this machine (one
// that exists but belongs to another user counts: it is alive).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
