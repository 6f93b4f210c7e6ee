package main

import (
	"runtime"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/agent"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/publish"
)

func newAgentHookCmd(env *guard.Env) *cobra.Command {
	o := agent.HookOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "agent-hook claude|gemini|codex",
		Short: "Answer a coding agent's pre-tool hook: deny writes into locked areas, apply LOCK.permissions.json",
		Long: `agent-hook is the command a coding agent runs before every tool call (Claude Code's
PreToolUse hook, Gemini CLI's BeforeTool hook, Codex's PreToolUse hook). It reads the hook's JSON on stdin and
answers on stdout in the agent's format: deny (with the lock, its owner, purpose and the
way out) for a write into an area under someone else's active lock, for a publication
under PRIVATE.txt or refused by a lock, and for LOCK.permissions.json deny rules; ask for
its ask rules; nothing otherwise, leaving the call to the agent's own permission system.
Malformed input is denied. The agent's identity is GUARD_OWNER, else its session id.
With --sandbox (or [agent] sandbox = true in .guard.toml), Claude Code's Bash commands
come back rewritten to run under guard sandbox as that identity (updatedInput), with
allow only where Claude Code's own permission rules would have run the original
without a prompt, ask otherwise; Gemini CLI's and Codex's shell commands are refused
unless the session itself runs under guard sandbox.
Always exit 0, except for an unknown agent (2).`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agent = args[0]
			o.Classify = classifyPublication(env)
			o.ClaudeManaged = claudeManagedSettings()
			return agent.RunHook(o)
		},
	}
	cmd.Flags().BoolVar(&o.Claim, "claim", false, "claim a free area on the first write into it (a short lease; see guard agent-release)")
	cmd.Flags().BoolVar(&o.Sandbox, "sandbox", false, "run every Bash command let through under guard sandbox (Claude Code; also [agent] sandbox in .guard.toml)")
	return cmd
}

// claudeManagedSettings is where Claude Code reads its managed (enterprise) settings
// on this system: their permission rules bind the sandbox rewrite too.
func claudeManagedSettings() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/managed-settings.json"
	case "windows":
		return `C:\Program Files\ClaudeCode\managed-settings.json`
	}
	return "/etc/claude-code/managed-settings.json"
}

// classifyPublication hands the publish package's classifier to the agent hook (the
// two packages are siblings and do not import each other), reading the command with
// the configuration of the directory it runs in, as guard publish does.
func classifyPublication(env *guard.Env) agent.ClassifyFunc {
	return func(args []string, dir string) (op string, projects []string, dryRun bool, err error) {
		subject, err := guard.ResolveSubject(env, dir, guard.Identity{})
		if err != nil {
			return "", nil, false, err
		}
		c, err := publish.Classify(args, dir, subject.Config)
		if err != nil {
			return "", nil, false, err
		}
		return c.Op, c.Projects, c.DryRun, nil
	}
}
