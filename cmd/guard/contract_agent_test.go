package main

// CONTRACT.md section 4: guard agent-hook claude and guard agent-install/uninstall claude.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ctHookInput(t *testing.T, tool string, input map[string]any, cwd, session string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"tool_name": tool, "tool_input": input, "cwd": cwd, "session_id": session,
		"hook_event_name": "PreToolUse"})
	require.NoError(t, err)
	return string(b)
}

// ctDecision decodes the hook's answer: "" when it printed nothing or only rewrote
// the command to run under guard sandbox ([agent] sandbox = "auto": no objection).
func ctDecision(t *testing.T, stdout string) (decision, reason string) {
	t.Helper()
	if ctNoObjection(t, stdout) {
		return "", ""
	}
	var ans struct {
		HookSpecificOutput map[string]any `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &ans), stdout)
	out := ans.HookSpecificOutput
	assert.Equal(t, "PreToolUse", out["hookEventName"])
	decision, _ = out["permissionDecision"].(string)
	reason, _ = out["permissionDecisionReason"].(string)
	return decision, reason
}

// ctNoObjection reports whether the hook's answer objects to nothing: no output, or
// only the command rewritten to run under guard sandbox (allow or ask as Claude
// Code's own rules would have it, with the sandbox's note as the whole reason).
func ctNoObjection(t *testing.T, stdout string) bool {
	t.Helper()
	if stdout == "" {
		return true
	}
	var ans struct {
		HookSpecificOutput struct {
			PermissionDecision, PermissionDecisionReason string
			UpdatedInput                                 map[string]any
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &ans), stdout)
	h := ans.HookSpecificOutput
	command, _ := h.UpdatedInput["command"].(string)
	return h.PermissionDecision != "deny" && strings.Contains(command, " sandbox --owner ") &&
		strings.HasPrefix(h.PermissionDecisionReason, "guard: runs this command under guard sandbox as ")
}

func TestContractAgentHookClaude(t *testing.T) {
	repo := ctRepo(t, map[string]string{"src/a.go": "a\n", "docs/d.md": "d\n"})
	lock := ctWrite(t, repo, "src/LOCK.txt", "owner: alice\n"+ctLive)
	pathEnv, _ := ctStandIns(t)
	file := func(p string) map[string]any { return map[string]any{"file_path": p, "content": "x"} }
	bash := func(c string) map[string]any { return map[string]any{"command": c} }
	cases := []struct {
		name     string
		tool     string
		input    map[string]any
		env      []string
		session  string
		setup    func(t *testing.T) func()
		decision string
		contains string
	}{
		{"a write into a locked area is denied", "Write", file(filepath.Join(repo, "src", "x.go")), []string{"GUARD_OWNER=bob"}, "s1", nil, "deny", lock},
		{"an edit with a relative path is resolved against cwd", "Edit", map[string]any{"file_path": "src/a.go", "old_string": "a", "new_string": "b"}, []string{"GUARD_OWNER=bob"}, "s1", nil, "deny", lock},
		{"the lock's owner may write", "Write", file(filepath.Join(repo, "src", "x.go")), []string{"GUARD_OWNER=alice"}, "s1", nil, "", ""},
		{"without GUARD_OWNER the session id is the identity", "Write", file(filepath.Join(repo, "src", "x.go")), nil, "alice", nil, "", ""},
		{"another session is denied", "Write", file(filepath.Join(repo, "src", "x.go")), nil, "s2", nil, "deny", lock},
		{"a write outside the lock is fine", "Write", file(filepath.Join(repo, "docs", "x.md")), []string{"GUARD_OWNER=bob"}, "s1", nil, "", ""},
		{"a read is never objected to", "Read", map[string]any{"file_path": filepath.Join(repo, "src", "a.go")}, []string{"GUARD_OWNER=bob"}, "s1", nil, "", ""},
		{"a shell write into a locked area is denied", "Bash", bash("echo hi > src/y.go"), []string{"GUARD_OWNER=bob"}, "s1", nil, "deny", lock},
		{"a publication under PRIVATE.txt is denied", "Bash", bash("npm publish"), []string{"GUARD_OWNER=alice"}, "s1", func(t *testing.T) func() {
			p := ctWrite(t, repo, "PRIVATE.txt", "not before launch\n")
			return func() { require.NoError(t, os.Remove(p)) }
		}, "deny", "not before launch"},
		{"a publication refused by a lock is denied", "Bash", bash("gh release create v1"), []string{"GUARD_OWNER=bob"}, "s1", func(t *testing.T) func() {
			p := ctWrite(t, repo, "LOCK.rel.txt", "owner: alice\noperations: publish-release\n"+ctLive)
			return func() { require.NoError(t, os.Remove(p)) }
		}, "deny", "LOCK.rel.txt"},
		{"a LOCK.permissions.json deny rule denies", "Bash", bash("rm -rf docs"), []string{"GUARD_OWNER=bob"}, "s1", func(t *testing.T) func() {
			p := ctWrite(t, repo, "LOCK.permissions.json", `{"format": "lock-permissions-v1", "rules": {"deny": ["Bash(rm:*)"], "ask": ["Bash(git push*)"]}}`)
			return func() { require.NoError(t, os.Remove(p)) }
		}, "deny", "Bash(rm:*)"},
		{"a LOCK.permissions.json ask rule asks", "Bash", bash("git push origin main"), []string{"GUARD_OWNER=bob"}, "s1", func(t *testing.T) func() {
			p := ctWrite(t, repo, "LOCK.permissions.json", `{"format": "lock-permissions-v1", "rules": {"deny": ["Bash(rm:*)"], "ask": ["Bash(git push*)"]}}`)
			return func() { require.NoError(t, os.Remove(p)) }
		}, "ask", "Bash(git push*)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.setup != nil {
				defer c.setup(t)()
			}
			out, errOut, code := ctRun(t, repo, append([]string{pathEnv}, c.env...), ctHookInput(t, c.tool, c.input, repo, c.session), "agent-hook", "claude")
			if code == 2 {
				// The contract's alternative form of a denial: exit 2 with the reason on stderr.
				assert.Equal(t, "deny", c.decision, errOut)
				assert.Contains(t, errOut, c.contains)
				return
			}
			require.Equal(t, 0, code, errOut)
			decision, reason := ctDecision(t, out)
			assert.Equal(t, c.decision, decision, out)
			assert.Contains(t, reason, c.contains)
		})
	}
	for name, stdin := range map[string]string{
		"input that is not JSON":   "not json",
		"a JSON array":             "[]",
		"an empty input":           "",
		"a tool_input of a string": `{"tool_name": "Write", "tool_input": "x", "cwd": "/", "session_id": "s"}`,
	} {
		t.Run("malformed input is denied: "+name, func(t *testing.T) {
			out, errOut, code := ctRun(t, repo, []string{"GUARD_OWNER=bob"}, stdin, "agent-hook", "claude")
			if code == 2 {
				assert.NotEmpty(t, errOut)
				return
			}
			require.Equal(t, 0, code, errOut)
			decision, _ := ctDecision(t, out)
			assert.Equal(t, "deny", decision)
		})
	}
}

func TestContractAgentInstallClaude(t *testing.T) {
	project := ctRepo(t, nil)
	home := t.TempDir()
	settings := ctWrite(t, project, ".claude/settings.json", `{
  "model": "x",
  "hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "echo post"}]}]},
  "permissions": {"allow": ["Read"]}
}
`)
	env := []string{"HOME=" + home}
	_, errOut, code := ctRun(t, project, env, "", "agent-install", "claude", "--project")
	require.Equal(t, 0, code, errOut)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(ctRead(t, settings)), &got))
	assert.Equal(t, "x", got["model"], "everything else is kept")
	assert.Equal(t, map[string]any{"allow": []any{"Read"}}, got["permissions"])
	hooks := got["hooks"].(map[string]any)
	assert.Len(t, hooks["PostToolUse"], 1)
	pre := hooks["PreToolUse"].([]any)
	require.Len(t, pre, 1)
	cmd := pre[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)["command"].(string)
	assert.Contains(t, cmd, "agent-hook claude")
	installed := ctRead(t, settings)

	_, errOut, code = ctRun(t, project, env, "", "agent-install", "claude", "--project")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, installed, ctRead(t, settings), "idempotent")

	_, errOut, code = ctRun(t, project, env, "", "agent-uninstall", "claude", "--project")
	require.Equal(t, 0, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(ctRead(t, settings)), &got))
	assert.NotContains(t, got["hooks"].(map[string]any), "PreToolUse")
	assert.Len(t, got["hooks"].(map[string]any)["PostToolUse"], 1)
	assert.Equal(t, "x", got["model"])
	_, _, code = ctRun(t, project, env, "", "agent-uninstall", "claude", "--project")
	assert.Equal(t, 0, code, "idempotent")

	t.Run("--user edits the user's settings", func(t *testing.T) {
		_, errOut, code := ctRun(t, project, env, "", "agent-install", "claude", "--user")
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, ctRead(t, filepath.Join(home, ".claude", "settings.json")), "agent-hook claude")
	})
	t.Run("a malformed settings file is an error and stays as it was", func(t *testing.T) {
		p := ctRepo(t, nil)
		bad := ctWrite(t, p, ".claude/settings.json", "{\"model\": \"x\",\n")
		_, _, code := ctRun(t, p, env, "", "agent-install", "claude", "--project")
		assert.Equal(t, 2, code)
		assert.Equal(t, "{\"model\": \"x\",\n", ctRead(t, bad))
	})
	t.Run("--project and --user exclude each other", func(t *testing.T) {
		_, _, code := ctRun(t, project, env, "", "agent-install", "claude", "--project", "--user")
		assert.Equal(t, 2, code)
	})
}

// CONTRACT.md section 4: guard's own commands are judged like any other. The agent
// claims, renews and releases its own locks; forcing another's away, acting as someone
// else and taking guard's hooks out are denied, however the command is spelled.
func TestContractAgentHookJudgesGuardsOwnCommands(t *testing.T) {
	repo := ctRepo(t, map[string]string{"src/a.go": "a\n", "docs/d.md": "d\n"})
	lock := ctWrite(t, repo, "src/LOCK.txt", "owner: alice\n"+ctLive)
	for command, want := range map[string]string{
		"guard unlock --force src":                                 "--force removes a lock whoever holds it",
		"env GUARD_OWNER=alice guard unlock src":                   "it sets GUARD_OWNER=alice",
		"sh -c 'guard lock --force src'":                           "--force would replace " + lock + " (held by alice)",
		guardBin + " sandbox --owner alice -- make":                "--owner alice acts as someone other than this agent",
		"echo claude | xargs guard agent-uninstall":                "it removes guard's hooks",
		"guard uninstall":                                          "it removes guard's hooks",
		"guard lock docs && guard renew docs && guard unlock docs": "",
		"guard status src && guard scan":                           "",
	} {
		out, errOut, code := ctRun(t, repo, []string{"GUARD_OWNER=bob"}, ctHookInput(t, "Bash", map[string]any{"command": command}, repo, "s1"), "agent-hook", "claude")
		require.Equal(t, 0, code, errOut)
		decision, reason := ctDecision(t, out)
		if want == "" {
			assert.Equal(t, "", decision, "%s: %s", command, reason)
			continue
		}
		assert.Equal(t, "deny", decision, command)
		assert.Contains(t, reason, want, command)
		assert.Contains(t, reason, "(you are bob on host ", command)
		assert.NotContains(t, reason, "set GUARD_OWNER", command)
	}
}
