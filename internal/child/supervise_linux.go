package child

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// supervisorDeathSignal is the supervisor's parent-death signal: catchable, so that
// the supervisor can stop what lies below it before it exits. It only makes the
// supervisor look whether its parent is gone; a SIGTERM from elsewhere does nothing
// (guard passes signals on through the control pipe).
const supervisorDeathSignal = syscall.SIGTERM

// leftoverWait bounds how long the supervisor waits for SIGKILLed processes to be
// gone (one stuck in the kernel, or another user's setuid program, may never go).
const leftoverWait = 5 * time.Second

// supervisorSpec is the command, as guard sends it on the control pipe's first line.
type supervisorSpec struct {
	Path       string
	Args       []string
	Env        []string
	Dir        string
	Foreground bool
	Grace      time.Duration
	// Parent is guard's pid: once the supervisor's parent is another, guard is gone.
	Parent int
}

// Supervise is the supervisor's whole life (see StartGroup); it returns the
// process's exit code: the command's as a shell reports it (128+N for signal N),
// 126 when the command could not be started. Descriptor 3 is the control pipe from
// guard (the spec, then "signal N", "term" and "kill" lines; end of file when guard
// died),
// 4 the status pipe to guard ("started PID", "error MSG", "warn MSG").
func Supervise() int {
	// The command's parent-death signal belongs to the thread that starts it.
	runtime.LockOSThread()
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	ctl := bufio.NewReader(os.NewFile(3, "guard-control"))
	status := os.NewFile(4, "guard-status")
	say := func(format string, a ...any) { _, _ = fmt.Fprintf(status, format+"\n", a...) }
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGCHLD, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		say("error guard's supervisor cannot become a child subreaper: %v", err)
		return 126
	}
	line, err := ctl.ReadBytes('\n')
	var spec supervisorSpec
	if err != nil || json.Unmarshal(line, &spec) != nil {
		return 126 // guard died before saying what to run, or is not guard
	}
	if os.Getppid() != spec.Parent {
		return 126 // guard died before the command started
	}
	pid, err := syscall.ForkExec(spec.Path, spec.Args, &syscall.ProcAttr{
		Dir: spec.Dir, Env: spec.Env, Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Setpgid: true, Foreground: spec.Foreground, Ctty: 0, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		say("error fork/exec %s: %v", spec.Path, err)
		return 126
	}
	say("started %d", pid)
	s := &supervisor{pid: pid, self: os.Getpid(), say: say}
	msgs := make(chan string)
	go func() {
		defer close(msgs)
		for {
			l, err := ctl.ReadString('\n')
			if err != nil {
				return
			}
			msgs <- strings.TrimSpace(l)
		}
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for s.status == nil {
		select {
		case sig := <-sigs:
			s.reap()
			if sig != syscall.SIGCHLD && os.Getppid() != spec.Parent {
				s.parentGone(spec.Grace)
				return 128 + int(syscall.SIGKILL)
			}
		case m, ok := <-msgs:
			if !ok {
				s.parentGone(spec.Grace)
				return 128 + int(syscall.SIGKILL)
			}
			s.command(m)
		case <-tick.C:
			// Belt and braces: a SIGCHLD merged with another, a parent that went
			// without the pipe noticing.
			s.reap()
			if os.Getppid() != spec.Parent {
				s.parentGone(spec.Grace)
				return 128 + int(syscall.SIGKILL)
			}
		}
	}
	// The command exited: what it left behind, in its group or below the
	// supervisor, would work on without the lock.
	s.killAll(leftoverWait)
	return exitStatus(*s.status)
}

type supervisor struct {
	pid    int // the command's, also its process group's
	self   int
	status *syscall.WaitStatus
	say    func(string, ...any)
}

// command carries out a line from guard.
func (s *supervisor) command(m string) {
	switch {
	case m == "kill":
		s.signalAll(syscall.SIGKILL)
	case m == "term":
		s.signalAll(syscall.SIGTERM)
	case strings.HasPrefix(m, "signal "):
		if n, err := strconv.Atoi(strings.TrimPrefix(m, "signal ")); err == nil {
			_ = syscall.Kill(-s.pid, syscall.Signal(n))
		}
	}
}

// reap collects every child that has ended: the command, and the orphans that were
// reparented to the supervisor.
func (s *supervisor) reap() {
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || wpid <= 0 {
			return
		}
		if wpid == s.pid {
			w := ws
			s.status = &w
		}
	}
}

// signalAll sends sig to the command's group and to every process below the
// supervisor, whichever group or session it is in.
func (s *supervisor) signalAll(sig syscall.Signal) {
	_ = syscall.Kill(-s.pid, sig)
	for _, p := range descendants(s.self) {
		_ = syscall.Kill(p, sig)
	}
}

// parentGone stops everything below the supervisor after guard died: SIGTERM, then
// SIGKILL after grace for what is still there.
func (s *supervisor) parentGone(grace time.Duration) {
	s.signalAll(syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		s.reap()
		if len(descendants(s.self)) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.killAll(leftoverWait)
}

// killAll SIGKILLs everything below the supervisor until nothing is left (a process
// that forks while it is killed leaves a new child, which the next round gets), at
// most for bound.
func (s *supervisor) killAll(bound time.Duration) {
	deadline := time.Now().Add(bound)
	for {
		s.reap()
		left := descendants(s.self)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			s.say("warn %d process(es) started by the command survived SIGKILL for %s: %v", len(left), bound, left)
			return
		}
		s.signalAll(syscall.SIGKILL)
		time.Sleep(10 * time.Millisecond)
	}
}

// exitStatus is a wait status as a shell reports it.
func exitStatus(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
