//go:build unix && !linux

package child

import (
	"os"
	"os/exec"
	"syscall"
)

type groupSys struct{ pid int }

// StartGroup starts cmd in a process group of its own. Where the kernel has no
// parent-death signal and no child subreaper, a guard that is killed cannot stop the
// command; one that lives stops the group, and after the command exited, kills what
// it left in its group.
func StartGroup(cmd *exec.Cmd, o GroupOptions) (*Group, error) {
	a := &syscall.SysProcAttr{Setpgid: true}
	if o.TTY >= 0 {
		a.Foreground, a.Ctty = true, o.TTY
	}
	cmd.SysProcAttr = a
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &Group{done: make(chan struct{}), sys: groupSys{cmd.Process.Pid}}
	go func() {
		err := cmd.Wait()
		restoreForeground(o.TTY)
		_ = syscall.Kill(-g.sys.pid, syscall.SIGKILL) // what the command left in its group
		g.finish(cmd, err)
	}()
	return g, nil
}

// Signal sends s to the command's process group.
func (g *Group) Signal(s os.Signal) { _ = syscall.Kill(-g.sys.pid, sysSignal(s)) }

// Terminate sends SIGTERM to the command's process group.
func (g *Group) Terminate() { g.Signal(syscall.SIGTERM) }

// Kill sends SIGKILL to the command's process group.
func (g *Group) Kill() { _ = syscall.Kill(-g.sys.pid, syscall.SIGKILL) }
