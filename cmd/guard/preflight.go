package main

import (
	"github.com/guardlocks/guard/classify"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/publish"
)

func newPreflightCmd(env *guard.Env) *cobra.Command {
	o := publish.PreflightOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "preflight [--op OP] [DIR] [--json]",
		Short: "Report whether DIR is ready for OP (default publish-release): 0 ready, 1 refused",
		Long: `preflight reports the publication markers (PRIVATE.txt, PUBLIC.txt), the locks
that block OP, the PUBLIC.txt checks (it runs them), the repository state (clean tree,
branch, HEAD pushed) and package.json's "private" field against the markers. Exit 0:
ready; 1: refused. Use it in npm's prepublishOnly and in CI release jobs.`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Dir = args[0]
			}
			return publish.RunPreflight(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Op, "op", classify.OpPublishRelease, "operation: publish-release, registry-upload, visibility-public, or any word")
	f.BoolVar(&o.JSON, "json", false, "print the report as JSON on stdout")
	return cmd
}
