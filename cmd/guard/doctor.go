package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/agent"
	"github.com/guardlocks/guard/backend"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/install"
)

func newDoctorCmd(env *guard.Env) *cobra.Command {
	o := install.DoctorOptions{Env: env, StateMutexes: historyStateMutexes,
		AgentProblems: func(top string) []string { return agent.AgentProblems(env, top) }}
	var server bool
	var layout, serverRepo string
	cmd := &cobra.Command{
		Use:   "doctor [ROOT...] [--json] [--sweep] [--repair] | --server [--repo BARE]",
		Short: "Check hooks, the guard binary, stale locks, configuration and bypasses per repository",
		Long: "Check each repository (the current one, or those at or below each ROOT): hooks\n" +
			"installed (guard's), managed (husky, lefthook or the pre-commit framework, followed to\n" +
			"a guard call that refuses), missing or foreign; the guard binary the hooks run; stale (expired,\n" +
			"prunable) locks; .guard.toml problems; the lock backend ([backend]: its health, and\n" +
			"every disagreement between its locks and the lock files; --repair makes the files\n" +
			"follow it); the GUARD_BYPASS log; and scratch files (temporary\n" +
			"files of atomic writes, mutex files, waiters' queue tickets) in the repositories and\n" +
			"guard's state directory: stranded ones (older than 10 minutes, held by no process, their\n" +
			"process gone) are problems, and --sweep removes them (never a lock file). Exit 0 when\n" +
			"healthy, 1 when a problem is found, 2 when there is no repository to check.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if server {
				if len(args) > 0 {
					return guard.Fail(guard.BadInput, "doctor --server: name the bare repository with --repo, not as an argument")
				}
				return install.RunServerDoctor(cmd.Context(), install.ServerOptions{Env: env, Repo: serverRepo, Layout: layout, JSON: o.JSON})
			}
			if serverRepo != "" {
				return guard.Fail(guard.BadInput, "doctor: --repo goes with --server (without it, name repositories as arguments)")
			}
			o.Roots = args
			return install.RunDoctor(cmd.Context(), o)
		},
	}
	serverFlags(cmd, &server, &layout, "report the server hooks of the bare repository --repo names, its server configuration and where the pusher's identity comes from")
	cmd.Flags().StringVar(&serverRepo, "repo", "", "with --server: the bare repository (default: the current directory)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "one JSON document on stdout")
	cmd.Flags().BoolVar(&o.Sweep, "sweep", false, "remove the stranded scratch files (older than 10 minutes, held by no process)")
	cmd.Flags().BoolVar(&o.Repair, "repair", false, "make the lock files follow the lock backend ([backend] in .guard.toml)")
	o.Backend = doctorBackend
	return cmd
}

// doctorBackend reports the lock backend of the repository at top (nil without one).
func doctorBackend(ctx context.Context, env *guard.Env, top string, repair bool) *install.BackendReport {
	subject, err := guard.ResolveSubject(env, top, guard.Identity{})
	if err != nil {
		return nil // doctor reports the configuration's error itself
	}
	pb, err := guard.SubjectBackend(env, subject)
	switch {
	case err != nil:
		return &install.BackendReport{Summary: "error: " + err.Error(), Problems: []string{"backend: " + err.Error()}}
	case pb == nil:
		return nil
	}
	h := backend.Check(ctx, pb, repair, env.Clock.Now())
	summary := fmt.Sprintf("%s: unreachable (%s)", h.Where, h.Error)
	if h.Reachable {
		summary = fmt.Sprintf("%s: reachable, revision %d, %d lock(s); %d key(s) without a file, %d file(s) without a key, %d differ",
			h.Where, h.Revision, h.Locks, len(h.KeysWithoutFile), len(h.FilesWithoutKey), len(h.Differ))
		if len(h.Repaired) > 0 {
			summary += fmt.Sprintf("; repaired: %s", strings.Join(h.Repaired, ", "))
		}
	}
	return &install.BackendReport{Summary: summary, Detail: h, Problems: h.Problems}
}
