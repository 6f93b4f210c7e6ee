package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/agent"
	"github.com/guardlocks/guard/guard"
)

func newAgentUninstallCmd(env *guard.Env) *cobra.Command {
	return newAgentSettingsCmd(env, "agent-uninstall",
		"Remove guard's pre-tool hook (and only it) from a coding agent's settings",
		agent.RunUninstall)
}
