package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/agent"
	"github.com/guardlocks/guard/guard"
)

func newAgentInstallCmd(env *guard.Env) *cobra.Command {
	return newAgentSettingsCmd(env, "agent-install",
		"Add guard's pre-tool hook to a coding agent's settings (structural JSON edit, backup kept, idempotent)",
		agent.RunInstall)
}

// newAgentSettingsCmd builds agent-install and agent-uninstall, which differ only in
// what they do to the settings file they both choose the same way.
func newAgentSettingsCmd(env *guard.Env, name, short string, run func(agent.InstallOptions) error) *cobra.Command {
	o := agent.InstallOptions{Env: env}
	var project bool
	cmd := &cobra.Command{
		Use:   name + " claude|gemini|codex [--project | --user]",
		Short: short,
		Long: `The settings file is the project's (.claude/settings.json, .gemini/settings.json or
.codex/hooks.json at the repository root, or in the current directory outside a
repository; the default) or the user's (--user: ~/.claude/settings.json, or
$CLAUDE_CONFIG_DIR/settings.json; ~/.gemini/settings.json; ~/.codex/hooks.json, or
$CODEX_HOME/hooks.json). Only guard's own entry (a command running
"<guard> agent-hook <agent>") is added or removed; every other key keeps its value and
place. Before a change the previous file is kept beside it with .guard-backup appended.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if project && o.User {
				return guard.Exitf(guard.ExitUsage, "--project and --user exclude each other")
			}
			o.Agent = args[0]
			return run(o)
		},
	}
	cmd.Flags().BoolVar(&project, "project", false, "edit the project's settings (default)")
	cmd.Flags().BoolVar(&o.User, "user", false, "edit the user's settings")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the result as JSON")
	if name == "agent-install" {
		cmd.Flags().BoolVar(&o.Sandbox, "sandbox", false, "Claude Code: the hook runs every Bash command it lets through under guard sandbox (agent-hook --sandbox)")
	}
	return cmd
}
