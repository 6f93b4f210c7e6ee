package child

import (
	"os/exec"
	"time"

	"github.com/guardlocks/guard/internal/execpath"
)

// SupervisorArg is the hidden first argument with which guard's binary is the
// supervisor of a Group (StartGroup, Linux): guard's main hands such a process to
// Supervise before anything else.
const SupervisorArg = "__guard-run-supervisor"

// Group is a command started in a process group of its own, the way guard run runs
// COMMAND: signals go to the whole group, and neither the command nor anything it
// started outlives guard (on Linux through a supervisor, see StartGroup).
type Group struct {
	done chan struct{}
	code int
	err  error
	// The platform's part: how signals reach the group and how it is killed.
	sys groupSys
}

// GroupOptions are how StartGroup runs the command.
type GroupOptions struct {
	// TTY is guard's controlling terminal's descriptor when stdin is that terminal
	// (-1: none): the group is the terminal's foreground group while it runs (it reads
	// the terminal and gets Ctrl-C directly), and guard takes the terminal back
	// afterwards.
	TTY int
	// Grace is how long the command and what it started get between SIGTERM and
	// SIGKILL when guard dies without stopping them (Linux).
	Grace time.Duration
}

// Done closes when the command has exited and what it left behind was stopped.
func (g *Group) Done() <-chan struct{} { return g.done }

// Wait blocks until Done and returns the command's exit status as a shell reports
// it (128+N for signal N); the error is for a command that could not be waited for.
func (g *Group) Wait() (int, error) {
	<-g.done
	return g.code, g.err
}

// finish records how the process that guard waited for ended.
func (g *Group) finish(cmd *exec.Cmd, err error) {
	g.code, g.err = execpath.Status(cmd, err)
	close(g.done)
}
