package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTeamCommandsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	env := []string{"GUARD_HOST=LAPTOP", "GUARD_OWNER=lead"}
	lock := filepath.Join(dir, "LOCK.team.LAPTOP.txt")
	_, errs, code := runGuard(t, dir, env, "lock", "--team", "LAPTOP")
	require.Equal(t, 0, code, errs)

	steps := []struct {
		name string
		args []string
		code int
	}{
		{"the first agent checks in", []string{"team", "checkin", "--agent", "agent-1", "--role", "writer", "--task", "docs"}, 0},
		{"the first agent claims a bundle", []string{"team", "claim", "--agent", "agent-1", "--resource", "src", "--resource", "docs"}, 0},
		{"a second agent's overlapping claim is a conflict", []string{"team", "claim", "--agent", "agent-2", "--resource", "src/a.go"}, 1},
		{"the second agent may queue", []string{"team", "claim", "--agent", "agent-2", "--resource", "src/a.go", "--queue"}, 0},
		{"a path outside the project is bad input", []string{"team", "claim", "--agent", "agent-2", "--resource", "../x"}, 2},
		{"an unknown action is a usage error", []string{"team", "bogus"}, 2},
		{"check refuses the claimed path to another agent of the team", []string{"check", "--owner", "agent-2", "src/a.go"}, 1},
		{"check lets the claiming agent edit", []string{"check", "--owner", "agent-1", "src/a.go"}, 0},
		{"check lets another agent edit an unclaimed path", []string{"check", "--owner", "agent-2", "lib/a.go"}, 0},
		{"the claimant releases and the waiter is promoted", []string{"team", "release", "--agent", "agent-1", "--resource", "src"}, 0},
		{"check now lets the promoted agent edit", []string{"check", "--owner", "agent-2", "src/a.go"}, 0},
		{"show reads the file", []string{"team", "show", "--json"}, 0},
		{"the last agent checks out", []string{"team", "checkout", "--agent", "agent-1"}, 0},
	}
	for _, s := range steps {
		_, errs, code := runGuard(t, dir, env, s.args...)
		require.Equal(t, s.code, code, "%s: %s", s.name, errs)
	}
	assert.NoFileExists(t, lock, "the presence log is empty: the team lock is gone")
	assert.FileExists(t, lock+".guard")
}

func TestTeamAcceptsTheReferenceActionNames(t *testing.T) {
	dir := t.TempDir()
	env := []string{"GUARD_HOST=LAPTOP", "GUARD_OWNER=lead"}
	_, errs, code := runGuard(t, dir, env, "lock", "--team", "LAPTOP")
	require.Equal(t, 0, code, errs)
	for _, args := range [][]string{
		{"team", "claim-presence", dir, "--lock-name", "LOCK.team.LAPTOP.txt", "--agent", "agent-1", "--role", "r", "--task", "t"},
		{"team", "claim-file", dir, "--lock-name", "LOCK.team.LAPTOP.txt", "--agent", "agent-1", "--resource", "src"},
		{"team", "claim-tool", dir, "--lock-name", "LOCK.team.LAPTOP.txt", "--agent", "agent-1", "--resource", "MCP::FileCommander"},
		{"team", "add-message", dir, "--lock-name", "LOCK.team.LAPTOP.txt", "--agent", "agent-1", "--msg", "hello"},
	} {
		_, errs, code := runGuard(t, dir, env, args...)
		require.Equal(t, 0, code, "%v: %s", args, errs)
	}
	_, errs, code = runGuard(t, dir, env, "team", "claim-tool", dir, "--lock-name", "LOCK.team.LAPTOP.txt", "--agent", "agent-2", "--resource", "mcp::filecommander")
	assert.Equal(t, 1, code, errs)
	body, err := os.ReadFile(filepath.Join(dir, "LOCK.team.LAPTOP.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(body), "[agent-1] USING   order=000001 | mcp::filecommander\n")
	assert.Contains(t, string(body), "[agent-1] EDITING  order=000001 | src\n")
}

func TestPermissionsCommandExitCodes(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "LOCK.permissions.json"), []byte(
		`{"format": "lock-permissions-v1", "rules": {"deny": ["Bash(rm:*)"], "ask": ["Bash(git push:*)"]}}`), 0o644))
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		{"a denied action exits 1", []string{"permissions", "--agent", "a", "Bash(rm -rf x)"}, 1, "deny\n"},
		{"an asked action exits 4", []string{"permissions", "--agent", "a", "Bash(git push)"}, 4, "ask\n"},
		{"an allowed action exits 0", []string{"permissions", "--agent", "a", "Bash(ls)"}, 0, "allow\n"},
		{"DIR may be given before the action", []string{"permissions", dir, "--agent", "a", "Bash(rm x)"}, 1, "deny\n"},
		{"no action is a usage error", []string{"permissions", "--agent", "a"}, 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, code := runGuard(t, dir, nil, c.args...)
			assert.Equal(t, c.code, code, errs)
			assert.Equal(t, c.stdout, out)
		})
	}
}
