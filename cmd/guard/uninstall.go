package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/install"
)

func newUninstallCmd(env *guard.Env) *cobra.Command {
	o := install.Options{Env: env}
	var server bool
	cmd := &cobra.Command{
		Use:   "uninstall [--repo DIR] [--server]",
		Short: "Remove guard's git hooks and put back the hooks they kept",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if server {
				return install.RunServerUninstall(cmd.Context(), serverOptions(env, o, ""))
			}
			return install.RunUninstall(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&server, "server", false, "remove the server hooks from the bare repository --repo names (every layout), putting back the hooks they kept")
	cmd.Flags().StringVar(&o.Repo, "repo", "", "a directory inside the repository (default: the current directory)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "one JSON document on stdout: the hooks folder and what was done to each hook")
	return cmd
}
