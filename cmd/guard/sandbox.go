package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/sandbox"
)

// newSandboxCmd wires `guard sandbox`; runF replaces sandbox.Run in tests of the flag
// parsing (nil: the real thing).
func newSandboxCmd(env *guard.Env, runF func(sandbox.Options) error) *cobra.Command {
	if runF == nil {
		runF = sandbox.Run
	}
	o := sandbox.Options{Env: env}
	cmd := &cobra.Command{
		Use:   "sandbox [--owner O] [--host H] [--allow PATH]... [--best-effort] -- COMMAND [ARGS...]",
		Short: "Run COMMAND so that the kernel refuses its writes into areas locked against you",
		Long: `sandbox runs COMMAND so that neither it nor any process it starts can create, write,
truncate, remove, rename or link anything inside an area whose active lock refuses your
edit (as guard check says), nor change a lock file, PRIVATE.txt, PUBLIC.txt, a
permissions file, .guard.toml, an agent's settings that run guard's hook or a git hook
guard installed that it does not own, whatever program does it; nor signal or reach a
process outside it. Reading stays allowed. guard reads the locks of the current
project (the repository that holds the current directory, every working tree of it, and
every directory above), and the roots of the roots file, when COMMAND starts.

On Linux with unprivileged user namespaces, COMMAND runs in a user and mount namespace
of its own (keeping your uid) where each read-only area is mounted read-only: writes
there fail with "Read-only file system", and everything beside the areas stays writable.
Landlock applies on top. Without user namespaces (or with GUARD_SANDBOX_NAMESPACES=0)
Landlock alone enforces it, and guard says so: then nothing can be created, removed or
renamed directly in a folder that holds a read-only area (its existing files stay
writable), since Landlock cannot say "this folder except that entry". --allow PATH
exempts a path deliberately.

Exit: COMMAND's own code (128+N for signal N; 127 not found, 126 cannot run). When
COMMAND fails, stderr lists the read-only areas and their locks. Without Landlock
(other systems, kernels before 5.13) it refuses (2) unless --best-effort, which runs
COMMAND unsandboxed with a warning.`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Command = args
			// The roots file is read as guard scan reads it.
			_, roots, err := command.ResolveRoots(env, command.RootsInput{})
			if err != nil {
				return err
			}
			o.ExtraRoots = roots
			return runF(o)
		},
	}
	f := cmd.Flags()
	// Everything from COMMAND on belongs to COMMAND, "--" or not.
	f.SetInterspersed(false)
	f.StringVar(&o.Owner, "owner", "", "who runs COMMAND (default GUARD_OWNER, .guard.toml owner, user@host)")
	f.StringVar(&o.Host, "host", "", "the host it runs on (default GUARD_HOST, .guard.toml host, the hostname)")
	f.StringArrayVar(&o.Allow, "allow", nil, "exempt PATH (and everything below it) deliberately; repeatable")
	f.BoolVar(&o.BestEffort, "best-effort", false, "where the kernel cannot sandbox, run COMMAND unsandboxed with a warning instead of refusing (2)")
	// guard run --sandbox starts guard sandbox --exec, which becomes COMMAND.
	f.BoolVar(&o.Exec, "exec", false, "replace guard with COMMAND once sandboxed (no explanation when it fails)")
	_ = f.MarkHidden("exec")
	return cmd
}
