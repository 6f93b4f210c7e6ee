package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/cli"
)

func newPruneCmd(env *guard.Env) *cobra.Command {
	o := cli.PruneOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "prune [ROOT...]",
		Short: "Remove expired locks (never user, condition, until, ambiguous or legacy ones)",
		Long: `Remove the expired locks under the roots (found as guard scan finds them) that are
not protected (user, condition, until, ambiguous names) or legacy. Prints
"removed <path>" or, with --dry-run, "would remove <path>" per lock. Each lock is
read again just before removal; one that a live lock replaced is kept.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Roots = args
			return cli.RunPrune(o)
		},
	}
	addRootsFlags(cmd, &o.RootsInput)
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "only list what would be removed")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print a JSON report")
	return cmd
}
