package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/publish"
)

func newPublishCmd(env *guard.Env) *cobra.Command {
	o := publish.PublishOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "publish [--dry-run] [--no-chores] -- COMMAND [ARGS...]",
		Short: "Run a publishing command only if markers, locks and PUBLIC.txt checks allow it",
		Long: `publish classifies COMMAND (npm publish: registry-upload, gh release create:
publish-release, gh repo create --public: visibility-public, ...), refuses it under
PRIVATE.txt or a lock that blocks that operation, runs the PUBLIC.txt checks, then runs
COMMAND with its own stdin, stdout, stderr and exit code, then the PUBLIC.txt chores
(each once). Commands that publish nothing and dry-run forms run unguarded; a command
guard cannot classify is refused (2) with the .guard.toml line that would map it.`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Args = args
			// guard stays alive while the command runs, so that it can pass the
			// command's exit code on and run the chores; the command gets the signals.
			sigs := make(chan os.Signal, 4)
			signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
			defer signal.Stop(sigs)
			o.Signals = sigs
			return publish.RunPublish(o)
		},
	}
	f := cmd.Flags()
	// Everything from COMMAND on belongs to COMMAND, "--" or not.
	f.SetInterspersed(false)
	f.BoolVar(&o.DryRun, "dry-run", false, "report what would happen and run nothing")
	f.BoolVar(&o.NoChores, "no-chores", false, "skip the PUBLIC.txt chores after the command")
	return cmd
}
