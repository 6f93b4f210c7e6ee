package sandbox

import (
	"fmt"
	"os/exec"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/execpath"
	"github.com/guardlocks/guard/lockcore"
)

// WrapOptions are what `guard run --sandbox` passes on to the sandbox.
type WrapOptions struct {
	Env *guard.Env
	// Host is guard run's --host ("" resolves it as guard sandbox does).
	Host string
	// Allow are paths to exempt (--allow), relative to Env.Dir.
	Allow []string
	// BestEffort runs COMMAND unsandboxed where the kernel cannot sandbox it.
	BestEffort bool
}

// Wrap returns the rewrite guard run applies to its child once the lock is held: the
// child becomes `guard sandbox --exec --owner HOLDER -- COMMAND ...`, which restricts
// itself and then becomes COMMAND (same process, so guard run's process group, its
// signals and COMMAND's exit status stay exactly as without the sandbox). The holder is
// the owner of the lock guard run holds (LOCK_FENCE_FILE in the child's
// environment): its own lock leaves its area writable, everyone else's stay
// read-only.
func Wrap(o WrapOptions) func(*exec.Cmd) error {
	return func(cmd *exec.Cmd) error {
		lockFile := execpath.Value(cmd.Env, "LOCK_FENCE_FILE")
		if lockFile == "" {
			return fmt.Errorf("sandbox: guard run named no lock file (LOCK_FENCE_FILE) to take the holder from")
		}
		l, err := lockcore.ReadLock(lockFile, o.Env.Clock.Now().Location())
		if err != nil {
			return fmt.Errorf("sandbox: reading the held lock: %w", err)
		}
		if l.ReadErr != nil || l.Owner == "" {
			return fmt.Errorf("sandbox: the held lock %s names no readable owner", lockFile)
		}
		args := []string{o.Env.Executable, "sandbox", "--exec", "--owner", l.Owner}
		if o.Host != "" {
			args = append(args, "--host", o.Host)
		}
		for _, a := range o.Allow {
			args = append(args, "--allow", a)
		}
		if o.BestEffort {
			args = append(args, "--best-effort")
		}
		// COMMAND as guard run found it: the sandbox looks up nothing again.
		args = append(append(args, "--", cmd.Path), cmd.Args[1:]...)
		cmd.Path, cmd.Args = o.Env.Executable, args
		return nil
	}
}
