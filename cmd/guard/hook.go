package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/audit"
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
			return guard.Fail(guard.BadInput, "hook: name a hook: pre-commit, pre-merge-commit, pre-push, or on a server pre-receive, update, post-receive")
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
			Use:   "pre-merge-commit",
			Short: "Refuse a merge that brings changes into an area under someone else's lock, or a publication marker",
			Args:  usageArgs(cobra.NoArgs),
			RunE: func(cmd *cobra.Command, args []string) error {
				return hooks.RunPreMergeCommit(cmd.Context(), env)
			},
		},
		&cobra.Command{
			Use:   "pre-push REMOTE URL",
			Long:  "Reads git's pre-push ref lines on stdin. Run without arguments by the pre-commit framework,\nit reads PRE_COMMIT_REMOTE_NAME, PRE_COMMIT_LOCAL_BRANCH, PRE_COMMIT_TO_REF, ... instead.",
			Short: "Refuse a push that publishes paths under someone else's lock (ref lines on stdin)",
			Args:  usageArgs(cobra.RangeArgs(0, 2)),
			RunE: func(cmd *cobra.Command, args []string) error {
				// Without arguments (the pre-commit framework), the push is described in
				// PRE_COMMIT_* variables.
				var remote, url string
				if len(args) > 0 {
					remote = args[0]
				}
				if len(args) > 1 {
					url = args[1]
				}
				// The visibility check is audit's; hooks gets it as a function value
				// (siblings never import each other).
				vis := func(ctx context.Context, top, commonDir, url string) (string, error) {
					return audit.PushVisibility(ctx, audit.VisibilityOptions{Env: env, Dir: top, GitCommonDir: commonDir, RemoteURL: url})
				}
				return hooks.RunPrePush(cmd.Context(), env, remote, url, env.Stdin, vis)
			},
		},
	)
	cmd.AddCommand(serverHookCmds(env)...)
	return cmd
}
