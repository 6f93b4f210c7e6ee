package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/install"
)

func newDoctorCmd(env *guard.Env) *cobra.Command {
	o := install.DoctorOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "doctor [ROOT...] [--json]",
		Short: "Check hooks, the guard binary, stale locks, configuration and bypasses per repository",
		Long: "Check each repository (the current one, or those at or below each ROOT): hooks\n" +
			"installed, missing or foreign; the guard binary the hooks recorded; stale (expired,\n" +
			"prunable) locks; .guard.toml problems; and the GUARD_BYPASS log. Exit 0 when\n" +
			"healthy, 1 when a problem is found, 2 when there is no repository to check.",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Roots = args
			return install.RunDoctor(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "one JSON document on stdout")
	return cmd
}
