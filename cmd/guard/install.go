package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/install"
)

func newInstallCmd(env *guard.Env) *cobra.Command {
	o := install.Options{Env: env}
	var server bool
	var layout string
	cmd := &cobra.Command{
		Use:   "install [--repo DIR] [--hooks pre-commit,pre-merge-commit,pre-push] [--force] | --server [--repo BARE] [--layout auto|git|gitlab|gitea]",
		Short: "Install guard's git hooks into the hooks folder git really uses",
		Long: "Install guard's pre-commit, pre-merge-commit and pre-push hooks into the folder git runs hooks from\n" +
			"(core.hooksPath and linked worktrees included). A hook already there is kept as\n" +
			"<hook>.pre-guard and still runs after guard's check. Idempotent. Also adds\n" +
			"PRIVATE.txt and PUBLIC.txt to the repository's info/exclude.",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if server {
				return install.RunServerInstall(cmd.Context(), serverOptions(env, o, layout))
			}
			return install.RunInstall(cmd.Context(), o)
		},
	}
	serverFlags(cmd, &server, &layout, "install the server hooks (pre-receive, post-receive) into the bare repository --repo names")
	cmd.Flags().StringVar(&o.Repo, "repo", "", "a directory inside the repository (default: the current directory)")
	cmd.Flags().StringSliceVar(&o.Hooks, "hooks", nil, "hooks to install (default pre-commit,pre-merge-commit,pre-push)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "one JSON document on stdout: the hooks folder and what was done to each hook")
	cmd.Flags().BoolVar(&o.Force, "force", false, "install even where an earlier kept hook is in the way (it is kept as <hook>.pre-guard.<n>)")
	return cmd
}
