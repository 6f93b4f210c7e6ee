package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/sandbox"
)

func newRunCmd(env *guard.Env) *cobra.Command {
	o := command.RunOptions{LockOptions: command.LockOptions{Env: env}}
	var contested, noContest bool
	sb := sandbox.WrapOptions{Env: env}
	var sandboxed bool
	cmd := &cobra.Command{
		Use:   "run [lock flags] [--wait D] [--grace D] DIR -- COMMAND [ARGS...]",
		Short: "Run a command while holding a lock: claim, renew, release, stop it if the lock is lost",
		Long: `Claim the lock on DIR exactly as guard lock would (--wait included; or a
resource with --resource URI and no DIR), then run COMMAND with stdin, stdout and
stderr passed through and GUARD_LOCK_HELD=1, LOCK_FENCE and LOCK_FENCE_FILE in its
environment. The lock is renewed at half its lifetime and released when COMMAND
exits; guard exits with COMMAND's code (128+N for signal N). SIGINT, SIGTERM and
SIGHUP go to COMMAND; the lock is released once it has exited.

If the lock is lost while COMMAND runs (the file removed or replaced, its fence
changed, a renewal refused), COMMAND and its process group get SIGTERM, then
SIGKILL after --grace (default 10s), and guard exits 5. A refused claim runs
nothing: 1 (3 for a lost contest). COMMAND not found: 127.

With --sandbox, COMMAND runs under guard sandbox as the lock's holder: the kernel
refuses its writes into every area locked by someone else (see guard sandbox).`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if dash < 0 {
				return guard.Fail(guard.BadInput, "run: COMMAND goes after --: guard run [flags] DIR -- COMMAND [ARGS...]")
			}
			switch {
			case dash > 1:
				return guard.Fail(guard.BadInput, "run: one DIR before --, got %d", dash)
			case dash == 1:
				o.Dir = args[0]
			case o.Resource == "":
				return guard.Fail(guard.BadInput, "run: no DIR before -- (or --resource URI)")
			}
			o.Args = args[dash:]
			o.Contest = contestChoice(contested, noContest)
			// guard stays alive while COMMAND runs, to renew and release the lock;
			// COMMAND gets the signals.
			sigs := make(chan os.Signal, 4)
			signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
			defer signal.Stop(sigs)
			o.Signals = sigs
			if sandboxed {
				sb.Host = o.Host
				o.Wrap = sandbox.Wrap(sb)
			}
			return command.RunRun(cmd.Context(), o)
		},
	}
	addClaimFlags(cmd, &o.LockOptions, &contested, &noContest)
	cmd.Flags().StringVar(&o.Grace, "grace", "10s", "after SIGTERM to a command whose lock was lost, SIGKILL follows after `DURATION`")
	cmd.Flags().BoolVar(&sandboxed, "sandbox", false, "run COMMAND under guard sandbox as the lock's holder: the kernel refuses its writes into everyone else's locked areas")
	cmd.Flags().StringArrayVar(&sb.Allow, "sandbox-allow", nil, "with --sandbox, exempt `PATH` deliberately (guard sandbox --allow); repeatable")
	cmd.Flags().BoolVar(&sb.BestEffort, "sandbox-best-effort", false, "with --sandbox, run COMMAND unsandboxed with a warning where the kernel cannot sandbox it")
	return cmd
}
