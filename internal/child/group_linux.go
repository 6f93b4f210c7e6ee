package child

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
)

type groupSys struct {
	mu  sync.Mutex
	ctl *os.File // the supervisor's control pipe; nil once it exited
}

// StartGroup starts cmd under a supervisor: guard's own binary again
// (/proc/self/exe SupervisorArg, which guard's main hands to Supervise), in a
// process group of its own, which starts the command in another group and is its
// parent. The supervisor is a child subreaper, so whatever the command starts and
// abandons (a grandchild that called setsid, a daemon that double-forked) becomes
// its child rather than init's; it kills them all when the command exits. It learns
// of guard's death from its control pipe (the kernel closes guard's end, however
// guard dies, SIGKILL included) and from its parent-death signal, and then stops
// the command and every process below it, SIGTERM and SIGKILL after o.Grace. Its
// exit status is the command's.
//
// The supervisor and the command stay out of guard's process group, so a signal to
// guard's job (kill -9 %1) does not take the supervisor down with guard.
func StartGroup(cmd *exec.Cmd, o GroupOptions) (*Group, error) {
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stR, stW, err := os.Pipe()
	if err != nil {
		_, _ = ctlR.Close(), ctlW.Close()
		return nil, err
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	spec := supervisorSpec{
		Path: cmd.Path, Args: cmd.Args, Env: env, Dir: cmd.Dir,
		Foreground: o.TTY >= 0, Grace: o.Grace, Parent: os.Getpid(),
	}
	sup := exec.Command("/proc/self/exe", SupervisorArg)
	sup.Args[0] = "guard"
	sup.Env = env
	sup.Stdin, sup.Stdout, sup.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	sup.ExtraFiles = []*os.File{ctlR, stW}
	sup.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: supervisorDeathSignal}
	g := &Group{done: make(chan struct{}), sys: groupSys{ctl: ctlW}}
	started := make(chan error, 1)
	go func() {
		// The parent-death signal fires when the thread that started the
		// supervisor ends: that thread lives until the supervisor has exited.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := sup.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		err := sup.Wait()
		restoreForeground(o.TTY)
		g.sys.mu.Lock()
		_ = g.sys.ctl.Close()
		g.sys.ctl = nil
		g.sys.mu.Unlock()
		g.finish(sup, err)
	}()
	err = <-started
	_, _ = ctlR.Close(), stW.Close()
	if err != nil {
		_, _ = ctlW.Close(), stR.Close()
		return nil, fmt.Errorf("starting guard's supervisor: %w", err)
	}
	line, _ := json.Marshal(spec)
	_, _ = ctlW.Write(append(line, '\n'))
	status := bufio.NewReader(stR)
	first, err := status.ReadString('\n')
	if msg, ok := strings.CutPrefix(strings.TrimSpace(first), "error "); ok || err != nil {
		_ = stR.Close()
		_, _ = g.Wait()
		if err != nil {
			return nil, fmt.Errorf("guard's supervisor ended before starting %s", cmd.Path)
		}
		return nil, errors.New(msg)
	}
	// Later lines are the supervisor's warnings; guard says them on its stderr.
	go func() {
		defer stR.Close()
		w := cmd.Stderr
		if w == nil {
			w = io.Discard
		}
		for {
			l, err := status.ReadString('\n')
			if msg, ok := strings.CutPrefix(strings.TrimSpace(l), "warn "); ok {
				fmt.Fprintf(w, "guard run: %s\n", msg)
			}
			if err != nil {
				return
			}
		}
	}()
	return g, nil
}

// Signal sends s to the command's process group (through the supervisor).
func (g *Group) Signal(s os.Signal) { g.sys.send(fmt.Sprintf("signal %d", sysSignal(s))) }

// Terminate sends SIGTERM to the command's process group and every process below
// the supervisor (what left the group too): the first step of stopping it all.
func (g *Group) Terminate() { g.sys.send("term") }

// Kill sends SIGKILL to the command's process group and every process below the
// supervisor.
func (g *Group) Kill() { g.sys.send("kill") }

func (s *groupSys) send(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctl != nil {
		_, _ = s.ctl.WriteString(msg + "\n")
	}
}
