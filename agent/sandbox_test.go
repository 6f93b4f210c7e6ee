package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
)

var sbID = guard.Identity{Owner: "sess-1", Host: "laptop"}

// The rewritten tool_input says exactly the sandboxed command, keeps every other field
// (its text and its place), and carries the original's JSON escapes over untouched.
func TestRewriteInputKeepsTheCommandAndEveryOtherField(t *testing.T) {
	prefix := sandboxPrefix("/usr/local/bin/guard", sbID, "bash")
	input := json.RawMessage(`{"description":"d <&>","command":"echo 'a' \u0027b\u0027 \"$x\" \\ \ud800 \u00e9 é\n","timeout":120000,"run_in_background":false}`)
	_, err := rewriteInput(input, prefix, "echo something else")
	require.Error(t, err, "a rewrite that does not read back as the command judged must be refused")
	var original struct{ Command string }
	require.NoError(t, json.Unmarshal(input, &original))
	out, err := rewriteInput(input, prefix, original.Command)
	require.NoError(t, err)
	assert.Equal(t, `{"description":"d <&>","command":"/usr/local/bin/guard sandbox --owner sess-1 --host laptop -- bash -c 'echo '\\''a'\\'' '\\''b'\\'' \"$x\" \\ \ud800 \u00e9 é\n'","timeout":120000,"run_in_background":false}`, string(out))
	var got map[string]any
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, prefix+singleQuote(original.Command), got["command"])
}

func TestRewriteInputRefusesWhatIsNotACommand(t *testing.T) {
	for _, in := range []string{`{}`, `{"command": 5}`, `[]`, `{"command": "x"`} {
		_, err := rewriteInput(json.RawMessage(in), "p ", "x")
		assert.Error(t, err, in)
	}
}

func TestAlreadySandboxedOnlyForTheHooksOwnForm(t *testing.T) {
	exe := "/opt/my guard/guard"
	own := SandboxCommand(exe, sbID, "bash", "rm -rf 'it''s' && make")
	assert.True(t, alreadySandboxed(own, exe, sbID, "bash"))
	for _, other := range []string{
		own + "; rm -rf locked",
		own + " > locked/f",
		strings.Replace(own, "--owner sess-1", "--owner alice", 1),
		SandboxCommand(exe, guard.Identity{Owner: "sess-1", Host: "box9"}, "bash", "make"),
		SandboxCommand("/usr/bin/guard", sbID, "bash", "make"),
		"guard sandbox -- make",
		"'/opt/my guard/guard' sandbox --allow locked -- make",
		SandboxCommand(exe, sbID, "bash", "make") + "'",
		strings.TrimSuffix(SandboxCommand(exe, sbID, "bash", "a'b"), "'") + "'x'",
	} {
		assert.False(t, alreadySandboxed(other, exe, sbID, "bash"), other)
	}
}

func TestSandboxShellIsTheShellClaudeCodeWouldUse(t *testing.T) {
	env := func(vars map[string]string) *guard.Env {
		return envtest.New(envtest.Vars(vars)).Env
	}
	assert.Equal(t, "bash", SandboxShell(env(nil)))
	assert.Equal(t, "/bin/zsh", SandboxShell(env(map[string]string{"SHELL": "/bin/zsh"})))
	assert.Equal(t, "bash", SandboxShell(env(map[string]string{"SHELL": "/usr/bin/fish"})))
	assert.Equal(t, "/opt/bash5/bin/bash", SandboxShell(env(map[string]string{"SHELL": "/bin/zsh", "CLAUDE_CODE_SHELL": "/opt/bash5/bin/bash"})))
	assert.Equal(t, "bash", SandboxShell(env(map[string]string{"SHELL": "zsh"})), "a relative shell is not trusted")
}

// sbHook runs the hook on one Bash call in the fixture tree with [agent] sandbox on
// (through --sandbox) and returns its stdout, decoded.
func sbHook(t *testing.T, root, agentName, command, mode string, getenv map[string]string) map[string]any {
	t.Helper()
	in := map[string]any{"session_id": "sess-1", "cwd": filepath.Join(root, "repo"), "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command, "description": "run it"}}
	if mode != "" {
		in["permission_mode"] = mode
	}
	if agentName == Gemini {
		in["hook_event_name"], in["tool_name"] = "BeforeTool", "run_shell_command"
	}
	data, err := json.Marshal(in)
	require.NoError(t, err)
	vars := map[string]string{"HOME": filepath.Join(root, "home")}
	for k, v := range getenv {
		vars[k] = v
	}
	env, out, _ := fixtureEnv(root, string(data), vars)
	require.NoError(t, RunHook(HookOptions{Env: env, Agent: agentName, Sandbox: guard.SandboxOn, Exact: func() error { return nil }, ClaudeManaged: filepath.Join(root, "managed.json")}))
	if out.Len() == 0 {
		return nil
	}
	var doc map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc), out.String())
	return doc
}

func hookOut(doc map[string]any) (decision, reason, command string) {
	h, _ := doc["hookSpecificOutput"].(map[string]any)
	decision, _ = h["permissionDecision"].(string)
	reason, _ = h["permissionDecisionReason"].(string)
	if u, ok := h["updatedInput"].(map[string]any); ok {
		command, _ = u["command"].(string)
	}
	return
}

func TestHookSandboxDecisions(t *testing.T) {
	root := fixtureTree(t)
	settings := filepath.Join(root, "repo", ".claude", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(settings), 0o755))
	require.NoError(t, os.WriteFile(settings, []byte(`{"permissions": {"allow": ["Bash(make *)", "Bash(python3 *)"], "deny": ["Bash(curl:*)"], "ask": ["Bash(make release)"]}}`), 0o644))
	wrap := func(cmd string) string { return SandboxCommand("/usr/local/bin/guard", sbID, "bash", cmd) }
	cases := []struct {
		name, command, mode, decision, reason, rewritten string
	}{
		{"allowed by the project's rule", "make -j2", "default", "allow", `Claude Code's allow rule "Bash(make *)"`, wrap("make -j2")},
		{"code guard cannot read, allowed by a rule", "python3 gen.py > /dev/null", "default", "allow", "allow rule", wrap("python3 gen.py > /dev/null")},
		{"no rule: Claude would ask", "npm install", "default", "ask", "Claude Code would ask before running it", wrap("npm install")},
		{"Claude's ask rule", "make release", "default", "ask", `ask rule "Bash(make release)"`, wrap("make release")},
		{"Claude's deny rule stays a denial", "curl -o x https://e", "default", "deny", `deny rule "Bash(curl:*)"`, ""},
		{"guard's own denial, no rewrite", "make > locked/out.txt", "default", "deny", "alice", ""},
		{"bypassPermissions runs it", "npm install", "bypassPermissions", "allow", "bypassPermissions", wrap("npm install")},
		{"dontAsk refuses what no rule allows", "npm install", "dontAsk", "deny", "dontAsk", ""},
		{"guard's own ask keeps its reason", "eval \"$X\"", "bypassPermissions", "ask", "cannot judge this command", wrap("eval \"$X\"")},
		{"already in the hook's own form", wrap("make -j2"), "default", "", "", ""},
		{"another guard sandbox is wrapped again", "guard sandbox --owner sess-1 -- make", "default", "ask", "Claude Code would ask", wrap("guard sandbox --owner sess-1 -- make")},
		{"a guard sandbox as someone else is refused", "guard sandbox --owner alice -- make", "default", "deny", "--owner alice acts as someone other than this agent", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := sbHook(t, root, Claude, c.command, c.mode, nil)
			decision, reason, rewritten := hookOut(doc)
			assert.Equal(t, c.decision, decision, reason)
			assert.Contains(t, reason, c.reason)
			assert.Equal(t, c.rewritten, rewritten)
		})
	}
}

// The identity the rewrite passes on is the one the hook judged as: GUARD_OWNER when
// set, else the session id; the host is guard's.
func TestHookSandboxPassesTheAgentsIdentityOn(t *testing.T) {
	root := fixtureTree(t)
	_, _, rewritten := hookOut(sbHook(t, root, Claude, "ls", "bypassPermissions", map[string]string{"GUARD_OWNER": "it's me", "GUARD_HOST": "box7"}))
	assert.Equal(t, SandboxCommand("/usr/local/bin/guard", guard.Identity{Owner: "it's me", Host: "box7"}, "bash", "ls"), rewritten)
	assert.Contains(t, rewritten, `--owner 'it'\''s me' --host box7 --`)
}

func TestHookSandboxRefusesForAgentsThatCannotRewrite(t *testing.T) {
	root := fixtureTree(t)
	for _, a := range []string{Gemini, Codex} {
		doc := sbHook(t, root, a, "make", "", nil)
		var decision, reason string
		if a == Gemini {
			decision, _ = doc["decision"].(string)
			reason, _ = doc["reason"].(string)
		} else {
			decision, reason, _ = hookOut(doc)
		}
		assert.Equal(t, "deny", decision, a)
		assert.Contains(t, reason, "guard sandbox -- "+a, a)
		// Started under guard sandbox, the session is confined already.
		doc = sbHook(t, root, a, "make", "", map[string]string{"GUARD_SANDBOX": "7"})
		if a == Gemini {
			assert.Equal(t, map[string]any{}, doc)
		} else {
			assert.Nil(t, doc)
		}
		// GUARD_SANDBOX=0 is --best-effort: not confined.
		doc = sbHook(t, root, a, "make", "", map[string]string{"GUARD_SANDBOX": "0"})
		assert.NotNil(t, doc)
	}
}

func TestHookSandboxAskWhenClaudeSettingsCannotBeRead(t *testing.T) {
	root := fixtureTree(t)
	settings := filepath.Join(root, "repo", ".claude", "settings.local.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(settings), 0o755))
	require.NoError(t, os.WriteFile(settings, []byte(`{"permissions": `), 0o644))
	decision, reason, rewritten := hookOut(sbHook(t, root, Claude, "make", "bypassPermissions", nil))
	assert.Equal(t, "ask", decision)
	assert.Contains(t, reason, settings)
	assert.NotEmpty(t, rewritten)
}

// FuzzSandboxCommandQuotesExactly: for any command, the rewritten tool_input decodes
// to the sandboxed command, and a shell reading that command line gets the original
// back, byte for byte, as the last argument.
func FuzzSandboxCommandQuotesExactly(f *testing.F) {
	for _, s := range []string{"", "'", "''", `'\''`, "a'b\"c$d`e\\f\ng", "\x00", "\xff\xfe", "cat <<'EOF'\n$x\nEOF", "\u2028<>&", `\u0027`} {
		f.Add(s)
	}
	prefix := sandboxPrefix("/usr/local/bin/guard", sbID, "bash")
	f.Fuzz(func(t *testing.T, cmd string) {
		in, err := marshal(map[string]any{"command": cmd, "timeout": 1})
		require.NoError(t, err)
		var decoded struct{ Command string }
		require.NoError(t, json.Unmarshal(in, &decoded))
		out, err := rewriteInput(in, prefix, decoded.Command)
		require.NoError(t, err)
		var got struct{ Command string }
		require.NoError(t, json.Unmarshal(out, &got))
		require.Equal(t, prefix+singleQuote(decoded.Command), got.Command)
		if strings.ContainsRune(decoded.Command, 0) {
			return // no shell takes a NUL in an argument
		}
		file, err := syntax.NewParser().Parse(strings.NewReader(got.Command), "")
		require.NoError(t, err)
		require.Len(t, file.Stmts, 1)
		call, ok := file.Stmts[0].Cmd.(*syntax.CallExpr)
		require.True(t, ok)
		fields, err := expand.Fields(&expand.Config{NoUnset: true}, call.Args[len(call.Args)-1])
		require.NoError(t, err)
		require.Equal(t, []string{decoded.Command}, fields)
		require.True(t, alreadySandboxed(got.Command, "/usr/local/bin/guard", sbID, "bash"))
	})
}
