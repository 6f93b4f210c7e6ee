package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// runShell runs a shell command line (as an agent runs its hook) with stdin.
func runShell(t *testing.T, dir, stdin, line string, env ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + testenv.Path(), "HOME=" + t.TempDir(), "NO_COLOR=1"}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errb.String(), code
}

func agentRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	if r, err := filepath.EvalSymlinks(repo); err == nil {
		repo = r
	}
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "locked"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "locked", "LOCK.txt"), []byte("owner: alice\nexpires_after: 2h\npurpose: big refactor\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "PRIVATE.txt"), []byte("until the audit is done\n"), 0o644))
	// These tests are about what the hook reads, the same on every kernel: no sandbox
	// rewrite, and no fallback for where there is no exact sandbox (agent_auto_e2e_test.go).
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".guard.toml"), []byte("[agent]\nsandbox = false\n"), 0o644))
	return repo
}

func bashInput(repo, command string) string {
	data, _ := json.Marshal(map[string]any{
		"session_id": "s-1", "cwd": repo, "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": command},
	})
	return string(data)
}

func TestInstalledClaudeHookDeniesLockedWritesAndPrivatePublications(t *testing.T) {
	repo := agentRepo(t)
	out, _, code := runShell(t, repo, "", guardBin+" agent-install claude --json")
	require.Equal(t, 0, code)
	var res struct{ Settings, Action, Command string }
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, filepath.Join(repo, ".claude", "settings.json"), res.Settings)
	assert.Equal(t, "installed", res.Action)

	// Run the command exactly as written into the settings, as Claude Code would.
	var settings struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []struct{ Type, Command string }
		}
	}
	data, err := os.ReadFile(res.Settings)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &settings))
	hook := settings.Hooks["PreToolUse"][0].Hooks[0].Command
	assert.Equal(t, guardBin+" agent-hook claude --claim", hook, "agent-install turns claim on write on (issue 23)")

	cases := []struct {
		name, command, decision, reason string
	}{
		{"a redirection into the locked folder", "echo x > locked/a.txt", "deny", "held by alice"},
		{"a public repository under PRIVATE.txt", "gh repo create me/x --public --source .", "deny", "marks this project private"},
		{"npm publish under PRIVATE.txt", "npm publish", "deny", "marks this project private"},
		{"a private repository", "gh repo create me/x --private", "", ""},
		{"a dry run", "npm publish --dry-run", "", ""},
		{"a build", "go build ./... && go test ./...", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, _, code := runShell(t, repo, bashInput(repo, tc.command), hook)
			assert.Equal(t, 0, code)
			if tc.decision == "" {
				assert.True(t, ctNoObjection(t, out), out)
				return
			}
			var ans struct {
				HookSpecificOutput struct {
					HookEventName, PermissionDecision, PermissionDecisionReason string
				}
			}
			require.NoError(t, json.Unmarshal([]byte(out), &ans), out)
			assert.Equal(t, "PreToolUse", ans.HookSpecificOutput.HookEventName)
			assert.Equal(t, tc.decision, ans.HookSpecificOutput.PermissionDecision)
			assert.Contains(t, ans.HookSpecificOutput.PermissionDecisionReason, tc.reason)
		})
	}

	out, _, code = runShell(t, repo, "", guardBin+" agent-uninstall claude")
	assert.Equal(t, 0, code)
	assert.Equal(t, "removed "+res.Settings+"\n", out)
}

func TestAgentHookCommandLine(t *testing.T) {
	repo := agentRepo(t)
	t.Run("an unknown agent is a usage error", func(t *testing.T) {
		_, stderr, code := runShell(t, repo, "{}", guardBin+" agent-hook vim")
		assert.Equal(t, 2, code)
		assert.Equal(t, "guard: agent-hook: \"vim\" is not claude, gemini or codex\nusage: guard agent-hook claude|gemini|codex [flags]\nsee 'guard agent-hook --help'\n", stderr)
	})
	t.Run("gemini answers {} when it has nothing to object to", func(t *testing.T) {
		in := `{"session_id":"g","cwd":"` + repo + `","hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"absolute_path":"` + repo + `/locked/LOCK.txt"}}`
		out, _, code := runShell(t, repo, in, guardBin+" agent-hook gemini")
		assert.Equal(t, 0, code)
		assert.Equal(t, "{}\n", out)
	})
	t.Run("claim on write and release through a SessionEnd hook input", func(t *testing.T) {
		require.NoError(t, os.MkdirAll(filepath.Join(repo, "src"), 0o755))
		in := `{"session_id":"s-7","cwd":"` + repo + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + repo + `/src/a.go","content":""}}`
		out, stderr, code := runShell(t, repo, in, guardBin+" agent-hook claude --claim")
		assert.Equal(t, 0, code)
		assert.Empty(t, out)
		assert.Contains(t, stderr, "guard: claimed "+repo+"/src/LOCK.txt (created, expires after 30m)")
		out, _, code = runShell(t, repo, `{"session_id":"s-7","cwd":"`+repo+`","hook_event_name":"SessionEnd"}`, guardBin+" agent-release --hook claude")
		assert.Equal(t, 0, code)
		assert.Equal(t, "released "+repo+"/src/LOCK.txt\n", out)
	})
}

func TestAgentHookAndCheckGiveTheSameRefusal(t *testing.T) {
	repo := agentRepo(t)
	// A user lock never expires, so both answers say the same "until" whenever they run.
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "held"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "held", "LOCK.user.txt"), []byte("owner: alice\ncreated: 2026-11-01T09:00:00\npurpose: my thesis\n"), 0o644))
	_, checkErr, code := runShell(t, repo, "", guardBin+" check held/a.txt", "GUARD_OWNER=s-1")
	require.Equal(t, 1, code)
	in := `{"session_id":"s-1","cwd":"` + repo + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + repo + `/held/a.txt","content":""}}`
	out, _, code := runShell(t, repo, in, guardBin+" agent-hook claude")
	require.Equal(t, 0, code)
	var ans struct {
		HookSpecificOutput struct{ PermissionDecisionReason string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &ans))
	reason := ans.HookSpecificOutput.PermissionDecisionReason
	// The same refusal up to "what now", which is written for whom it stops: a person
	// may force a lock at a terminal, an agent is told to wait, work elsewhere or ask
	// (guard.AgentWayOut), never to force.
	same, _, _ := strings.Cut(checkErr, "  what now: ")
	assert.True(t, strings.HasPrefix(reason, same), "hook:\n%s\ncheck:\n%s", reason, checkErr)
	assert.Contains(t, checkErr, "unlock --force")
	assert.NotContains(t, reason, "--force")
	assert.Contains(t, reason, "  what now: only the user removes a user lock: work in another area (claim it with guard's MCP tool `lock`), or ask the person you work for\n")
	assert.True(t, strings.HasSuffix(reason, "(you are s-1 on host "+hostname(t)+"; your session id; locks you claim through guard's MCP tools are yours; from a shell, give guard lock `--owner s-1` so that the lock is yours)"), reason)
}

func hostname(t *testing.T) string {
	h, err := os.Hostname()
	require.NoError(t, err)
	return h
}
