package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/install"
)

func newUninstallCmd(env *guard.Env) *cobra.Command {
	o := install.Options{Env: env}
	cmd := &cobra.Command{
		Use:   "uninstall [--repo DIR]",
		Short: "Remove guard's git hooks and put back the hooks they kept",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return install.RunUninstall(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Repo, "repo", "", "a directory inside the repository (default: the current directory)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "one JSON document on stdout: the hooks folder and what was done to each hook")
	return cmd
}
