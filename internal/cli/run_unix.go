//go:build unix

package cli

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/guardlocks/guard/internal/child"
)

// childAttrs puts COMMAND into a process group of its own, so that guard can stop
// it together with everything it started (a grandchild included); when stdin is a
// terminal, that group becomes the terminal's foreground group, so COMMAND reads
// the terminal and gets Ctrl-C as if guard were not there. On Linux COMMAND also
// dies with guard (child.DieWithParent).
func childAttrs(tty int) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	if tty >= 0 {
		a.Foreground, a.Ctty = true, tty
	}
	child.DieWithParent(a)
	return a
}

// signalGroup sends s to COMMAND's process group.
func signalGroup(cmd *exec.Cmd, s os.Signal) {
	if cmd.Process == nil {
		return
	}
	n, ok := s.(syscall.Signal)
	if !ok {
		n = syscall.SIGTERM
	}
	_ = syscall.Kill(-cmd.Process.Pid, n)
}

// stopGroup sends s to what is left of COMMAND's process group after COMMAND
// itself exited: processes it left behind would work on without the lock.
func stopGroup(cmd *exec.Cmd, s syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, s)
	}
}

// restoreForeground gives the terminal back to guard's own process group once
// COMMAND's group, which had it, is done (a script that runs guard run and then
// reads the terminal must not find itself in the background).
func restoreForeground(tty int, cmd *exec.Cmd) {
	if tty < 0 {
		return
	}
	// Changing the foreground group from what is now a background group raises
	// SIGTTOU, which would stop guard.
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, unix.Getpgrp())
}
