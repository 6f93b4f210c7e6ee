package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/agent"
	"github.com/guardlocks/guard/guard"
)

func newAgentInstallCmd(env *guard.Env) *cobra.Command {
	return newAgentSettingsCmd(env, "agent-install",
		"Add guard's hooks and guard mcp to a coding agent's settings (structural edit, backup kept, idempotent)",
		agent.RunInstall)
}

// newAgentSettingsCmd builds agent-install and agent-uninstall, which differ only in
// what they do to the settings file they both choose the same way.
func newAgentSettingsCmd(env *guard.Env, name, short string, run func(agent.InstallOptions) error) *cobra.Command {
	o := agent.InstallOptions{Env: env}
	var project bool
	cmd := &cobra.Command{
		Use:   name + " claude|gemini|codex [--project | --user | --local]",
		Short: short,
		Long: `The settings file is the project's (.claude/settings.json, .gemini/settings.json or
.codex/hooks.json at the repository root, or in the current directory outside a
repository; the default) or the user's (--user: ~/.claude/settings.json, or
$CLAUDE_CONFIG_DIR/settings.json; ~/.gemini/settings.json; ~/.codex/hooks.json, or
$CODEX_HOME/hooks.json). Only guard's own entry (a command running
"<guard> agent-hook <agent>") is added or removed; every other key keeps its value and
place. Before a change the previous file is kept beside it with .guard-backup appended.

agent-install sets up three parts: the pre-tool hook with claim on write
("guard agent-hook <agent> --claim"), the session-end hook that releases the session's
claims ("guard agent-release --hook <agent>": Claude Code and Gemini CLI SessionEnd;
Codex has none guard can install), and guard mcp, registered in the client's own format
(Claude Code: .mcp.json, enabled by enabledMcpjsonServers in the settings, or
~/.claude.json for --user and --local; Gemini CLI: mcpServers in settings.json; Codex:
[mcp_servers.guard] in .codex/config.toml or $CODEX_HOME/config.toml). Commands name
"guard" when it is on PATH, so that committed settings work on every machine of a team
(else this binary's absolute path). --local (Claude Code) writes
.claude/settings.local.json, the per-machine file that is not committed.
agent-uninstall removes exactly these parts.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if project && (o.User || o.Local) || o.User && o.Local {
				return guard.Fail(guard.BadInput, "--project, --user and --local exclude each other")
			}
			o.Agent = args[0]
			return run(o)
		},
	}
	cmd.Flags().BoolVar(&project, "project", false, "edit the project's settings (default)")
	cmd.Flags().BoolVar(&o.User, "user", false, "edit the user's settings")
	cmd.Flags().BoolVar(&o.Local, "local", false, "edit the project's per-machine settings (Claude Code: .claude/settings.local.json)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the result as JSON")
	if name == "agent-install" {
		cmd.Flags().BoolVar(&o.Sandbox, "sandbox", false, "Claude Code: the hook runs every Bash command it lets through under guard sandbox (agent-hook --sandbox)")
	}
	return cmd
}
