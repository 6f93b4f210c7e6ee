package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
)

func newPruneCmd(env *guard.Env) *cobra.Command {
	o := command.PruneOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "prune [ROOT...] [--dry-run] [--json] [--webhook URL]",
		Short: "Remove expired locks (never user, condition, until, ambiguous or legacy ones)",
		Long: `Remove the expired locks under the roots (found as guard scan finds them) that are
not protected (user, condition, until, ambiguous names) or legacy. Prints
"removed <path>" or, with --dry-run, "would remove <path>" per lock. Each lock is
read again just before removal; one that a live lock replaced is kept. With --webhook
URL, a JSON summary of what was removed is posted to URL (5 s at most); a failed post
is a warning on stderr and changes neither the prune nor its exit code.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Roots = args
			return command.RunPrune(cmd.Context(), o)
		},
	}
	addRootsFlags(cmd, &o.RootsInput)
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "only list what would be removed")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print a JSON report")
	cmd.Flags().StringVar(&o.Webhook, "webhook", "", "after real removals, POST a JSON summary to this http(s) URL (a failure only warns)")
	return cmd
}
