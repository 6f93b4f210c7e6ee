package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/child"
	"github.com/guardlocks/guard/internal/execpath"
	"github.com/guardlocks/guard/lockcore"
)

// DefaultGrace is how long guard run waits after SIGTERM before it sends SIGKILL to
// a command whose lock was lost.
const DefaultGrace = 10 * time.Second

// RunOptions are the inputs of `guard run`.
type RunOptions struct {
	// LockOptions is the claim, exactly as guard lock takes it (its JSON is unused:
	// stdout belongs to COMMAND).
	LockOptions
	// Grace is --grace: SIGTERM to SIGKILL for a command whose lock was lost
	// (<number><s|m|h|d>; "" is DefaultGrace).
	Grace string
	// Args are COMMAND and its arguments.
	Args []string
	// Signals delivers the signals guard receives that COMMAND should get (SIGINT,
	// SIGTERM, SIGHUP); nil passes none.
	Signals <-chan os.Signal
	// Wrap, when set, may rewrite the child's command just before it starts (guard run
	// --sandbox puts the sandbox in here); the claim is held by then.
	Wrap func(*exec.Cmd) error
}

// RunRun is `guard run` (CONTRACT.md section 8): it claims the lock as guard lock
// would (claimLock, --wait included), runs COMMAND with the lock held and its fence
// in the environment, renews the lock at half its lifetime, and releases it when
// COMMAND has exited; guard's exit code is then COMMAND's (128+N for signal N).
// Losing the lock while COMMAND runs (the file removed or replaced, its fence
// changed, a renewal refused) stops COMMAND's process group, SIGTERM and after the
// grace SIGKILL, and exits 5. A refused claim runs nothing: 1, or 3 for a lost
// contest. A COMMAND that cannot be found is 127 (126 when it cannot be started), as
// env(1) and timeout(1) answer, and nothing is claimed for it.
func RunRun(ctx context.Context, o RunOptions) error {
	env := o.Env
	if len(o.Args) == 0 {
		return guard.Fail(guard.BadInput, "run: no COMMAND (guard run [flags] DIR -- COMMAND [ARGS...])")
	}
	grace := DefaultGrace
	if strings.TrimSpace(o.Grace) != "" {
		g, err := parseWait(o.Grace)
		if err != nil {
			return guard.Fail(guard.BadInput, "run: --grace %q is not <number><s|m|h|d>", o.Grace)
		}
		grace = g
	}
	prog, err := execpath.Look(o.Args[0], env.Dir, execpath.Value(env.Environ, "PATH"))
	if err != nil {
		return guard.Fail(guard.CommandNotFound, "run: %w", err)
	}
	c, err := claimLock(ctx, o.LockOptions, "run")
	if err != nil {
		return err
	}
	h := c.handle
	res := h.Acquired()
	reportClaim(env, "run", res, false)
	fmt.Fprintf(env.Stderr, "guard run: holding %s (fence %d); running %s\n", res.Path, res.Fence, strings.Join(o.Args, " "))
	code, runErr := superviseChild(ctx, o, prog, h, grace)
	// A lock held before run started (renewed, not created) is the holder's to keep;
	// a joined team lock belongs to its owner.
	// COMMAND may end by itself before guard has seen the loss (guard was paused,
	// or the notice was on its way): the lock was lost all the same while COMMAND
	// ran, and its work was done without it, which is 5, never COMMAND's 0.
	var lostWhy error
	releaseFailed := false
	switch {
	case runErr != nil:
	case res.Action == lockcore.Renewed:
		if lostWhy = h.Err(); lostWhy == nil {
			fmt.Fprintf(env.Stderr, "guard run: %s was held before run started; left in place\n", res.Path)
		}
	case h.Err() != nil:
		lostWhy = h.Err()
	default:
		err := h.Release(ctx)
		switch {
		case errors.Is(err, lockcore.ErrFenceChanged), errors.Is(err, guard.ErrBackendLost):
			lostWhy = err
		case err != nil:
			fmt.Fprintf(env.Stderr, "guard run: could not release %s: %v\n", res.Path, err)
			releaseFailed = true
		}
	}
	if runErr != nil {
		return runErr
	}
	if lostWhy != nil {
		return guard.Fail(guard.LockLost, "run: lost the lock while %s ran (%v); it had exited with %d before guard saw the loss", o.Args[0], lostWhy, code)
	}
	switch {
	case code != 0:
		return guard.CommandExit(code)
	case releaseFailed:
		// COMMAND succeeded, but its lock stayed behind: not a success of guard's.
		return guard.Explained(guard.Internal)
	}
	return nil
}

// superviseChild starts COMMAND and watches it, its signals, its lock's renewal and
// its lock's loss until it has exited. It returns COMMAND's exit code, or the outcome
// LockLost when the lock was lost.
func superviseChild(ctx context.Context, o RunOptions, prog string, h lockcore.Handle, grace time.Duration) (int, error) {
	env := o.Env
	cmd := childCommand(o, prog, h)
	g, err := startChild(o, cmd, grace)
	if err != nil {
		return 0, guard.Fail(guard.CannotRun, "run: starting %s: %w", o.Args[0], err)
	}
	var renew <-chan time.Time
	if every := renewEvery(h.Acquired().Lock); every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		renew = t.C
	}
	lost := h.Lost()
	for {
		select {
		case <-g.Done():
			return childResult(o, g)
		case s := <-o.Signals:
			g.Signal(s)
		case <-renew:
			if err := h.Renew(ctx); err != nil && h.Err() == nil {
				fmt.Fprintf(env.Stderr, "guard run: warning: renewing %s: %v (trying again)\n", h.Path(), err)
			}
		case <-lost:
			why := h.Err()
			fmt.Fprintf(env.Stderr, "guard run: lock lost: %v; stopping %s (SIGTERM, SIGKILL after %s)\n", why, o.Args[0], grace)
			g.Terminate()
			killed := false
			select {
			case <-g.Done():
			case <-time.After(grace):
				killed = true
				g.Kill()
				<-g.Done()
			}
			how := "it exited after SIGTERM"
			if killed {
				how = fmt.Sprintf("it was killed (SIGKILL) after %s", grace)
			}
			return 0, guard.Fail(guard.LockLost, "run: lost the lock while %s ran (%v); %s", o.Args[0], why, how)
		}
		// A lost lock is noticed however the loss came (a refused renewal included).
		lost = h.Lost()
	}
}

// childCommand is COMMAND as guard starts it: guard's streams and working
// directory, its environment (Env.Environ) with the lock's fence.
func childCommand(o RunOptions, prog string, h lockcore.Handle) *exec.Cmd {
	env := o.Env
	cmd := exec.Command(prog, o.Args[1:]...)
	cmd.Args[0] = o.Args[0]
	cmd.Dir = env.Dir
	cmd.Env = execpath.With(env.Environ, "GUARD_LOCK_HELD=1", "LOCK_FENCE="+strconv.FormatInt(h.Fence(), 10), "LOCK_FENCE_FILE="+h.Path())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	return cmd
}

// startChild is the one place COMMAND starts (o.Wrap may rewrite it first): in a
// process group of its own that does not outlive guard (child.StartGroup: on Linux
// under a supervisor that also stops what COMMAND started and abandoned, even when
// guard is killed), the terminal's foreground group while it runs when stdin is a
// terminal.
func startChild(o RunOptions, cmd *exec.Cmd, grace time.Duration) (*child.Group, error) {
	if o.Wrap != nil {
		if err := o.Wrap(cmd); err != nil {
			return nil, err
		}
	}
	return child.StartGroup(cmd, child.GroupOptions{TTY: ttyFd(o.Env), Grace: grace})
}

// childResult is COMMAND's exit status once it has exited.
func childResult(o RunOptions, g *child.Group) (int, error) {
	code, err := g.Wait()
	if err != nil {
		return 0, guard.Fail(guard.BadInput, "run: %s: %w", o.Args[0], err)
	}
	return code, nil
}

// renewEvery is half the lock's lifetime (0: it has none to renew). created is
// written to the second, so a renewal may date the lock up to a second back: the
// half is taken of the lifetime less that second, or short lifetimes would lapse
// between two renewals.
func renewEvery(l *lockcore.Lock) time.Duration {
	if l == nil {
		return 0
	}
	if _, ok := l.ExpiresAt(); !ok || l.ExpiresAfter <= 0 {
		return 0
	}
	return max((l.ExpiresAfter-time.Second)/2, 250*time.Millisecond)
}

// ttyFd is stdin's descriptor when it is a terminal (-1 otherwise).
func ttyFd(env *guard.Env) int {
	if f, ok := env.Stdin.(*os.File); ok && env.StdinTTY {
		return int(f.Fd())
	}
	return -1
}
