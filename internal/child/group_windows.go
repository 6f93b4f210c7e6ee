package child

import (
	"os"
	"os/exec"
)

type groupSys struct{ cmd *exec.Cmd }

// StartGroup starts cmd. Windows has no process groups to signal, so the command is
// stopped alone.
func StartGroup(cmd *exec.Cmd, _ GroupOptions) (*Group, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &Group{done: make(chan struct{}), sys: groupSys{cmd}}
	go func() { g.finish(cmd, cmd.Wait()) }()
	return g, nil
}

// Signal ends the command: Windows cannot deliver SIGTERM or SIGINT to another
// process, so every signal ends it.
func (g *Group) Signal(os.Signal) { g.Kill() }

// Terminate ends the command.
func (g *Group) Terminate() { g.Kill() }

// Kill ends the command.
func (g *Group) Kill() { _ = g.sys.cmd.Process.Kill() }
