package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/hooks"
)

// newHookCmd is what the installed git hooks run.
func newHookCmd(env *guard.Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Run a git hook's check (what `guard install` wires into git)",
		Long: "Run a git hook's check. Exit 0 lets git go on, 1 refuses (a lock or a marker said no),\n" +
			"2 is an internal error (fail closed). GUARD_BYPASS=\"<reason>\" lets a refusal through\n" +
			"and records it in <git-common-dir>/guard/bypass.log.",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return guard.Exitf(guard.ExitUsage, "hook: name a hook: pre-commit or pre-push")
		},
	}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "pre-commit",
			Short: "Refuse a commit that stages paths under someone else's lock, or a publication marker",
			Args:  usageArgs(cobra.NoArgs),
			RunE: func(cmd *cobra.Command, args []string) error {
				return hooks.RunPreCommit(cmd.Context(), env)
			},
		},
		&cobra.Command{
			Use:   "pre-push REMOTE URL",
			Short: "Refuse a push that publishes paths under someone else's lock (ref lines on stdin)",
			Args:  usageArgs(cobra.RangeArgs(1, 2)),
			RunE: func(cmd *cobra.Command, args []string) error {
				url := ""
				if len(args) > 1 {
					url = args[1]
				}
				return hooks.RunPrePush(cmd.Context(), env, args[0], url, env.Stdin)
			},
		},
	)
	return cmd
}
