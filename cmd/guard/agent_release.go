package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/agent"
	"github.com/guardlocks/guard/guard"
)

func newAgentReleaseCmd(env *guard.Env) *cobra.Command {
	o := agent.ReleaseOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "agent-release [DIR] [--owner O | --session ID | --hook claude|gemini|codex]",
		Short: "Release the leases and team file claims an agent took by claiming on write",
		Long: `agent-release removes the leases (LOCK.txt files whose purpose starts with
"` + agent.LeasePurpose + `") that an identity holds in the repository of DIR
(default: the current directory), in its root and top-level folders, and releases the
identity's file claims in the team locks there and above. Locks the identity took by hand
are left alone. The identity is --owner, else GUARD_OWNER, else --session; with
--hook AGENT the session id and directory come from the hook input on stdin, so that a
SessionEnd hook can run it. Exit 0 when all were released (or there were none), 1 when
one could not be.`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Dir = args[0]
			}
			if o.Hook != "" && !slices.Contains(agent.Agents, o.Hook) {
				return guard.Fail(guard.BadInput, "--hook: unknown agent %q (supported: %s)", o.Hook, strings.Join(agent.Agents, ", "))
			}
			return agent.RunRelease(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Owner, "owner", "", "whose leases (default GUARD_OWNER)")
	f.StringVar(&o.Session, "session", "", "the agent's session id, when GUARD_OWNER is not set")
	f.StringVar(&o.Hook, "hook", "", "read session_id and cwd from this agent's hook input on stdin")
	f.BoolVar(&o.JSON, "json", false, "print the result as JSON")
	return cmd
}
