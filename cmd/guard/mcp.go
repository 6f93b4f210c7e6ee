//go:build !nomcp

package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/mcp"
)

// guard mcp links the MCP SDK into guard, unless it is built with -tags nomcp
// (mcp_off.go), which exists only so that bench/mcp.sh can measure what linking the
// SDK costs every other command's start-up.

func newMCPCmd(env *guard.Env, bi buildInfo) *cobra.Command {
	o := mcp.Options{Env: env, Version: bi.version, History: historyJSON, ExitCode: exitCode}
	cmd := &cobra.Command{
		Use:   "mcp [--owner O] [--host H]",
		Short: "Serve guard's lock tools to a coding agent: an MCP server on stdin/stdout",
		Long: `mcp is a Model Context Protocol server (JSON-RPC 2.0 over stdio) that a coding agent
starts, so that it can claim an area before it works in it instead of only being
refused: the tools status, check, lock, renew, unlock (its own locks only), wait (until
a refused path is free, with progress) and history each return the JSON of the guard
command of that name; the resource guard://locks lists the project's active locks, with
update notifications for subscribers.

The identity is --owner, else the one the agent hook judges this client's session as
(GUARD_OWNER, else the session id: from the session record the client's agent hook
leaves, else CLAUDE_CODE_SESSION_ID), else guard's usual identity. guard agent-install
registers it with each client.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return mcp.Run(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Owner, "owner", "", "who claims (default: the identity the agent hook judges this client's session as)")
	f.StringVar(&o.Host, "host", "", "the claiming host (default GUARD_HOST, .guard.toml host, the host name)")
	f.BoolVar(&o.ReleaseOnExit, "release-on-exit", false, "release this server's claims when the client goes (for a client without a session-end hook: Codex)")
	return cmd
}
