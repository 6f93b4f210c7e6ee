// Package child runs a command as guard's child the way a shell would: its exit
// status passes through (128+N for a signal), signals sent to guard reach it, and it
// does not outlive guard. It holds no policy; callers decide what to run.
//go:build unix

package child

import (
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/guardlocks/guard/internal/execpath"
)

// forwarded are the signals guard passes on to the command. Job-control signals keep
// their default (the terminal stops guard and the command together), and SIGCHLD, SIGURG
// (the Go runtime's) and SIGWINCH (the terminal sends it to COMMAND itself) are not
// the command's business.
var forwarded = []os.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM}

// Run runs cmd to its end and returns its exit code as a shell reports it (128+N
// when signal N ended it); the error is only for a command that could not be
// started. Signals sent to guard reach the command; an interrupt or quit typed at
// the terminal already reaches both (they share the foreground process group), so
// those two are only passed on when guard is not in the terminal's foreground group.
// If guard itself is killed, the command is killed too, as if guard had exec'd it.
// cmd's own SysProcAttr (namespaces, say) is kept; Run only adds the parent-death
// signal.
func Run(cmd *exec.Cmd) (int, error) {
	typed := inForeground()
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)
	// The parent-death signal belongs to the thread that started the child.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	DieWithParent(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			if typed && (s == syscall.SIGINT || s == syscall.SIGQUIT) {
				continue
			}
			_ = cmd.Process.Signal(s)
		case err := <-done:
			return execpath.Status(cmd, err)
		}
	}
}

// inForeground reports whether guard's process group is the foreground group of its
// controlling terminal, where a typed ^C reaches the command directly.
func inForeground() bool {
	fd, err := unix.Open("/dev/tty", unix.O_RDONLY|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}
