//go:build nomcp

package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
)

// A guard built with -tags nomcp leaves guard mcp, and the MCP SDK, out: it exists
// only for bench/mcp.sh, which compares every other command's start-up with and
// without the SDK linked. The tests are not built this way.
func newMCPCmd(*guard.Env, buildInfo) *cobra.Command {
	return &cobra.Command{Use: "mcp", Short: "(not in this build: -tags nomcp)",
		RunE: func(*cobra.Command, []string) error {
			return guard.Fail(guard.BadInput, "mcp: this guard was built with -tags nomcp, for benchmarks only")
		}}
}
