package main

import (
	"github.com/guardlocks/guard/classify"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/agent"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/sandbox"
)

func newAgentHookCmd(env *guard.Env) *cobra.Command {
	o := agent.HookOptions{Env: env}
	var sandboxFlag bool
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
Under [agent] sandbox = "auto" (the default) every shell command comes back rewritten
to run under guard sandbox as that identity wherever the exact sandbox runs and the
client keeps its prompts: Claude Code always (allow only where its own permission
rules would have run the original without a prompt, ask otherwise), Codex with
approval never and no sandbox or rules of its own, Gemini CLI in yolo mode with no
policy of its own. Elsewhere "auto" asks, near a lock, about what guard cannot judge;
--sandbox (or sandbox = true) refuses the command instead.
Always exit 0, except for an unknown agent (2).`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agent = args[0]
			o.Classify = classifyPublication(env)
			o.ClaudeManaged = claudeManagedSettings()
			if sandboxFlag {
				o.Sandbox = guard.SandboxOn
			}
			o.Exact = exactSandbox
			o.ClientArgs = parentArgs
			return agent.RunHook(o)
		},
	}
	cmd.Flags().BoolVar(&o.Claim, "claim", false, "claim a free area on the first write into it (a short lease; see guard agent-release)")
	cmd.Flags().BoolVar(&sandboxFlag, "sandbox", false, "require every shell command let through to run under guard sandbox, refusing it where it cannot ([agent] sandbox = true)")
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
		c, err := classify.Classify(args, dir, subject.Config)
		if err != nil {
			return "", nil, false, err
		}
		return c.Op, c.Projects, c.DryRun, nil
	}
}

// exactSandbox tells the agent hook whether guard sandbox runs exactly here (user
// and mount namespaces): the sandbox package's probe, handed over as a function
// value (agent does not import sandbox).
func exactSandbox() error { return sandbox.Exact() }

// parentArgs are the command lines of the hook's parent processes, nearest first (at
// most eight, read from /proc; nil where there is none): how the agent's client was
// started, which its hook input does not say.
func parentArgs() [][]string {
	var out [][]string
	pid := os.Getppid()
	for i := 0; i < 8 && pid > 1; i++ {
		dir := filepath.Join("/proc", strconv.Itoa(pid))
		data, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil {
			break
		}
		out = append(out, strings.Split(strings.TrimRight(string(data), "\x00"), "\x00"))
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			break
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		rest := string(stat)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			break
		}
		if pid, err = strconv.Atoi(f[1]); err != nil {
			break
		}
	}
	return out
}
