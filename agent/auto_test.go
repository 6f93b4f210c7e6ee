package agent

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
)

// autoHook runs the hook of agentName on one shell call in the fixture tree's repo
// (alice's lock in locked/) with [agent] sandbox left at its default ("auto"), the
// exact sandbox's probe answering exact, and the client started as args says. It
// returns stdout with the tree's root as {{ROOT}}.
func autoHook(t *testing.T, root, agentName, command, mode string, exact error, args [][]string) string {
	t.Helper()
	in := map[string]any{"session_id": "sess-1", "cwd": filepath.Join(root, "repo"), "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command}}
	if mode != "" {
		in["permission_mode"] = mode
	}
	if agentName == Gemini {
		in["hook_event_name"], in["tool_name"] = "BeforeTool", "run_shell_command"
		in["tool_input"] = map[string]any{"command": command, "description": "run it", "dir_path": "."}
	}
	data, err := json.Marshal(in)
	require.NoError(t, err)
	env, out, _ := fixtureEnv(root, string(data), map[string]string{"HOME": filepath.Join(root, "home"), "CODEX_HOME": filepath.Join(root, "home", ".codex")})
	require.NoError(t, RunHook(HookOptions{Env: env, Agent: agentName, ClaudeManaged: filepath.Join(root, "managed.json"),
		Exact:      func() error { return exact },
		ClientArgs: func() [][]string { return args }}))
	return strings.ReplaceAll(out.String(), root, "{{ROOT}}")
}

const (
	autoPython  = `python3 -c "open('locked/a.go','w')"`
	autoRewrite = `/usr/local/bin/guard sandbox --owner sess-1 --host laptop -- bash -c 'python3 -c \"open('\\''locked/a.go'\\'','\\''w'\\'')\"'`
	autoNote    = "runs this command under guard sandbox as sess-1 on host laptop (the kernel keeps the areas locked against you read-only; the command inside is exactly the one proposed)"
)

var (
	codexExec  = [][]string{{"sh", "-c", "guard agent-hook codex"}, {"/opt/codex/codex", "exec", "--sandbox", "danger-full-access", "Do it."}}
	geminiYOLO = [][]string{{"bash", "-c", "guard agent-hook gemini"}, {"node", "/opt/gemini/bundle/gemini.js", "-p", "Do it.", "--approval-mode", "yolo"}}
)

// Under "auto" every shell command comes back rewritten to run under guard sandbox,
// in each client's own format, with the decision that keeps the client's prompts:
// Claude Code's as its rules (here, --allowedTools on its command line) have it,
// Codex's allow (which it needs to apply a rewrite, and which asks nothing with
// approval never), Gemini CLI's tool_input with no decision (yolo runs it).
func TestAutoRewritesEveryShellCommandPerClient(t *testing.T) {
	root := fixtureTree(t)
	claudeArgs := [][]string{{"/usr/bin/claude", "-p", "Do it.", "--allowedTools", "Bash", "--max-turns", "3"}}
	assert.Equal(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"guard: `+autoNote+`; Claude Code's allow rule \"Bash\" in Claude Code's command line (--allowedTools) allows every command.","updatedInput":{"command":"`+autoRewrite+`"}}}`+"\n",
		autoHook(t, root, Claude, autoPython, "default", nil, claudeArgs))
	// Without the command line's rule Claude Code would ask: so does guard.
	assert.Equal(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"guard: `+autoNote+`. Claude Code would ask before running it (no allow rule in Claude Code's settings names every part of this command), so approve it here.","updatedInput":{"command":"`+autoRewrite+`"}}}`+"\n",
		autoHook(t, root, Claude, autoPython, "default", nil, nil))
	// A command guard reads whole that no rule of Claude Code's names is left to
	// Claude Code's own judgement (it runs ls without asking): no prompt is added.
	assert.Empty(t, autoHook(t, root, Claude, "ls -la free && git status", "default", nil, nil))
	assert.Contains(t, autoHook(t, root, Claude, "ls -la free", "default", nil, claudeArgs), `"permissionDecision":"allow"`)
	assert.Equal(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"guard: `+autoNote+`; Codex asks for no approval in this session.","updatedInput":{"command":"`+autoRewrite+`"}}}`+"\n",
		autoHook(t, root, Codex, autoPython, "bypassPermissions", nil, codexExec))
	assert.Equal(t, `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"`+autoRewrite+`","description":"run it","dir_path":"."}}}`+"\n",
		autoHook(t, root, Gemini, autoPython, "", nil, geminiYOLO))
	// A deny stays a deny, with no rewrite.
	out := autoHook(t, root, Gemini, "echo x > locked/b.go", "", nil, geminiYOLO)
	assert.True(t, strings.HasPrefix(out, `{"decision":"deny","reason":"guard: `), out)
	assert.NotContains(t, out, "tool_input")
}

// Where the client would judge the rewritten command by rules or prompts of its own,
// or no exact sandbox runs, "auto" does not rewrite: near a lock, code guard cannot
// read is asked about (Codex, which cannot ask, refuses); sandbox = true refuses.
func TestAutoFallsBackToTheStrictRuleNearALock(t *testing.T) {
	root := fixtureTree(t)
	ask := func(why string) string {
		return "guard: cannot know what this command writes: `python3 -c open('locked/a.go','w')` runs python3 code guard does not read.\n  {{ROOT}}/repo/locked/LOCK.txt (held by alice) lies in its working tree and guard sandbox cannot run it: " + why + ", so guard asks first.\n  what now: approve it if it stays out of that area."
	}
	claudeAsk := func(why string) string {
		b, _ := marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": ask(why)}})
		return string(b) + "\n"
	}
	noNS := errors.New("user namespaces are disabled (user.max_user_namespaces=0)")
	assert.Equal(t, claudeAsk("the exact sandbox cannot run here (user namespaces are disabled (user.max_user_namespaces=0))"),
		autoHook(t, root, Claude, autoPython, "default", noNS, nil))

	codexDeny := func(why string) string {
		b, _ := marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": ask(why) + "\n" + cannotAsk("Codex")}})
		return string(b) + "\n"
	}
	assert.Equal(t, codexDeny(`Codex asks for approval in this session (permission_mode "default"), and it would judge the rewritten command, not the one proposed`),
		autoHook(t, root, Codex, autoPython, "default", nil, codexExec))
	assert.Equal(t, codexDeny("Codex runs commands in a sandbox of its own in this session, which guard sandbox does not start inside"),
		autoHook(t, root, Codex, autoPython, "bypassPermissions", nil, [][]string{{"/opt/codex/codex", "exec", "Do it."}}))

	geminiAsk := func(why string) string {
		b, _ := marshal(map[string]any{"decision": "ask", "reason": ask(why), "systemMessage": ask(why)})
		return string(b) + "\n"
	}
	// Started with its interface (-i): headless, the ask would be a refusal (see
	// TestGeminiHeadlessTurnsAnAskIntoARefusal).
	assert.Equal(t, geminiAsk("Gemini CLI asks for approval in this session (not --approval-mode yolo), and its policy would judge the rewritten command, not the one proposed"),
		autoHook(t, root, Gemini, autoPython, "", nil, [][]string{{"node", "/opt/gemini/bundle/gemini.js", "-i", "Do it."}}))
	policy := filepath.Join(root, "home", ".gemini", "policies", "mine.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(policy), 0o755))
	require.NoError(t, os.WriteFile(policy, []byte("[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"deny\"\n"), 0o644))
	assert.Equal(t, geminiAsk("Gemini CLI's policy in {{ROOT}}/home/.gemini/policies/mine.toml would judge the rewritten command, not the one proposed"),
		autoHook(t, root, Gemini, autoPython, "", nil, [][]string{{"node", "/opt/gemini/bundle/gemini.js", "-i", "Do it.", "--approval-mode", "yolo"}}))
	rules := filepath.Join(root, "home", ".codex", "rules", "default.rules")
	require.NoError(t, os.MkdirAll(filepath.Dir(rules), 0o755))
	require.NoError(t, os.WriteFile(rules, []byte("prefix_rule(pattern=[\"rm\"], decision=\"forbidden\")\n"), 0o644))
	assert.Equal(t, codexDeny("Codex's rules in {{ROOT}}/home/.codex/rules/default.rules would judge the rewritten command, not the one proposed"),
		autoHook(t, root, Codex, autoPython, "bypassPermissions", nil, codexExec))

	// sandbox = true refuses what cannot run sandboxed.
	require.NoError(t, os.WriteFile(filepath.Join(root, "repo", ".guard.toml"), []byte("[agent]\nsandbox = true\n"), 0o644))
	out := autoHook(t, root, Claude, "ls", "default", noNS, nil)
	assert.Equal(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"guard: [agent] sandbox = true, but this command cannot run under guard sandbox: the exact sandbox cannot run here (user namespaces are disabled (user.max_user_namespaces=0)); guard does not run it unsandboxed (fail closed).\n  what now: start the whole session sandboxed, `+"`guard sandbox -- claude`"+` (every command it runs is then confined), or set [agent] sandbox = \"auto\" in {{ROOT}}/repo/.guard.toml."}}`+"\n", out)
	// sandbox = false: no rewrite, no fallback.
	require.NoError(t, os.WriteFile(filepath.Join(root, "repo", ".guard.toml"), []byte("[agent]\nsandbox = false\n"), 0o644))
	assert.Empty(t, autoHook(t, root, Claude, autoPython, "default", nil, nil))
}

func TestClaudeCommandLineRules(t *testing.T) {
	r := &ClaudeRules{}
	require.NoError(t, r.AddCommandLine([]string{"-p", "x", "--allowedTools", "Bash(git log:*) Edit,Read", "Write", "--disallowed-tools=Bash(rm:*)", "--max-turns", "3"}))
	var allow, deny []string
	for _, x := range r.allow {
		allow = append(allow, x.text)
	}
	for _, x := range r.deny {
		deny = append(deny, x.text)
	}
	assert.Equal(t, []string{"Bash(git log:*)", "Edit", "Read", "Write"}, allow)
	assert.Equal(t, []string{"Bash(rm:*)"}, deny)
	assert.Equal(t, Deny, r.JudgeBash("rm -rf x", "/tmp", "bypassPermissions", nil).Decision)
	require.NoError(t, r.AddCommandLine([]string{"--settings", `{"permissions": {"ask": ["Bash(make:*)"]}}`}))
	assert.Equal(t, Ask, r.JudgeBash("make", "/tmp", "bypassPermissions", nil).Decision)
	assert.Error(t, r.AddCommandLine([]string{"--settings", "/nonexistent/settings.json"}), "settings guard cannot read may deny what it would allow")
}

func FuzzSplitToolList(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(git log:*) Edit,Read", "((", "a,,b  c", "Bash(x))y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range splitToolList(s) {
			if r == "" || r != strings.TrimSpace(r) || !strings.Contains(s, r) {
				t.Fatalf("splitToolList(%q) gave %q", s, r)
			}
		}
	})
}

func TestSandboxModeFromConfig(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]guard.SandboxMode{"": guard.SandboxAuto, "sandbox = true": guard.SandboxOn, "sandbox = false": guard.SandboxOff, `sandbox = "auto"`: guard.SandboxAuto} {
		p := filepath.Join(dir, ".guard.toml")
		require.NoError(t, os.WriteFile(p, []byte("[agent]\n"+text+"\n"), 0o644))
		cfg, err := guard.LoadConfig(p)
		require.NoError(t, err, text)
		assert.Equal(t, want, cfg.Agent.Sandbox.Mode(), text)
	}
	p := filepath.Join(dir, ".guard.toml")
	require.NoError(t, os.WriteFile(p, []byte("[agent]\nsandbox = \"yes\"\n"), 0o644))
	_, err := guard.LoadConfig(p)
	assert.ErrorContains(t, err, `[agent] sandbox must be true, false or "auto", not yes`)
}

// An ask is refused in a headless Gemini CLI (-p without -i), where no one could
// answer it (and Gemini CLI 0.61 never exits after one while guard mcp is
// connected); started with its interface, or started in a way guard cannot read,
// Gemini CLI is asked as before.
func TestGeminiHeadlessTurnsAnAskIntoARefusal(t *testing.T) {
	root := fixtureTree(t)
	const unknown = "touch $DEST/new.txt"
	interactive := [][]string{{"bash", "-c", "guard agent-hook gemini"}, {"node", "/opt/gemini/bundle/gemini.js", "-i", "Do it.", "--approval-mode", "yolo"}}
	for _, tc := range []struct {
		name string
		args [][]string
		want string
	}{
		{"headless", geminiYOLO, `"decision":"deny"`},
		{"interactive", interactive, `"decision":"ask"`},
		{"unknown start", nil, `"decision":"ask"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := autoHook(t, root, Gemini, unknown, "", errors.New("no namespaces"), tc.args)
			assert.Contains(t, out, tc.want)
			assert.Contains(t, out, "{{ROOT}}/repo/locked/LOCK.txt", "the reason names the lock either way")
			if tc.name == "headless" {
				assert.Contains(t, out, noOneToAsk)
				assert.NotContains(t, out, "systemMessage", "nothing is shown to a person who is not there")
			} else {
				assert.NotContains(t, out, "runs headless")
			}
		})
	}
}
