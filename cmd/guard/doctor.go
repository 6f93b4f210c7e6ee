package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/agent"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/history"
	"github.com/guardlocks/guard/install"
)

func newDoctorCmd(env *guard.Env) *cobra.Command {
	o := install.DoctorOptions{Env: env, StateMutexes: []string{history.ImportMutexName},
		AgentProblems: func(top string) []string { return agent.CodexProblems(env, top) }}
	cmd := &cobra.Command{
		Use:   "doctor [ROOT...] [--json] [--sweep]",
		Short: "Check hooks, the guard binary, stale locks, configuration and bypasses per repository",
		Long: "Check each repository (the current one, or those at or below each ROOT): hooks\n" +
			"installed, missing or foreign; the guard binary the hooks recorded; stale (expired,\n" +
			"prunable) locks; .guard.toml problems; the GUARD_BYPASS log; and scratch files (temporary\n" +
			"files of atomic writes, mutex files, waiters' queue tickets) in the repositories and\n" +
			"guard's state directory: stranded ones (older than 10 minutes, held by no process, their\n" +
			"process gone) are problems, and --sweep removes them (never a lock file). Exit 0 when\n" +
			"healthy, 1 when a problem is found, 2 when there is no repository to check.",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Roots = args
			return install.RunDoctor(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "one JSON document on stdout")
	cmd.Flags().BoolVar(&o.Sweep, "sweep", false, "remove the stranded scratch files (older than 10 minutes, held by no process)")
	return cmd
}
