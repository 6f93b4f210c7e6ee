//go:build unix

package child

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// restoreForeground gives the terminal back to guard's own process group once the
// command's group, which had it, is done (a script that runs guard run and then
// reads the terminal must not find itself in the background).
func restoreForeground(tty int) {
	if tty < 0 {
		return
	}
	// Changing the foreground group from what is now a background group raises
	// SIGTTOU, which would stop guard.
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, unix.Getpgrp())
}

// sysSignal is s as a signal number (SIGTERM for what is not one).
func sysSignal(s os.Signal) syscall.Signal {
	if n, ok := s.(syscall.Signal); ok {
		return n
	}
	return syscall.SIGTERM
}
