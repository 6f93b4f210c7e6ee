package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/ci"
	"github.com/guardlocks/guard/guard"
)

func newCICmd(env *guard.Env) *cobra.Command {
	opts := ci.Options{Env: env}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ci",
		Short: "The CI job gate: check every path changed in a range as a push would",
		Long: `Checks every path changed between base and head for the push operation (and each
--op), and fails when PRIVATE.txt or PUBLIC.txt is committed. The base defaults to the
merge base of head with origin/$GITHUB_BASE_REF (pull requests), else
GITHUB_EVENT_BEFORE (pushes), else the merge base with origin/HEAD. Exit 0 allowed,
1 refused, 2 when the range cannot be established (a shallow clone: fetch-depth: 0).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				if cmd.Flags().Changed("format") && opts.Format != ci.FormatJSON {
					return guard.Fail(guard.BadInput, "ci: --json and --format %s exclude each other", opts.Format)
				}
				opts.Format = ci.FormatJSON
			}
			return ci.Run(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Base, "base", "", "base of the range (default: from the CI environment, else origin/HEAD)")
	f.StringVar(&opts.Head, "head", "", "head of the range (default HEAD)")
	f.StringArrayVar(&opts.Ops, "op", nil, "an extra operation to check on every changed path (repeatable)")
	f.StringVar(&opts.Format, "format", ci.FormatText, "output format: text, json or github")
	f.BoolVar(&asJSON, "json", false, "same as --format json")
	return cmd
}
