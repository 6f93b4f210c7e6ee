package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/lockcore"
)

const permsFile = `{
  "format": "lock-permissions-v1",
  "default": "allow",
  "rules": {
    "deny": ["Bash(rm -rf:*)", "mcp__*__delete*"],
    "ask":  ["Bash(git push:*)"],
    "allow": ["Bash(git status)"]
  },
  "applies_to_agents": ["*"]
}`

func TestRunPermissions(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "LOCK.permissions.json"), []byte(permsFile), 0o644))
	empty := t.TempDir()
	broken := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(broken, "LOCK.permissions.txt"), []byte("{\n\"rules\": [\n"), 0o644))

	cases := []struct {
		name, dir, action string
		code              int
		stdout, stderr    string
	}{
		{"a deny rule answers deny with exit 1", dir, "Bash(rm -rf /)", 1, "deny\n", `rule "Bash(rm -rf:*)"`},
		{"an ask rule answers ask with exit 4", dir, "Bash(git push origin main)", 4, "ask\n", "ask list"},
		{"an allow rule answers allow with exit 0", dir, "Bash(git status)", 0, "allow\n", "allow list"},
		{"an unmatched action gets the default", dir, "Read(x)", 0, "allow\n", "default decides"},
		{"a tool glob denies an mcp deletion", dir, "mcp__github__delete_repo", 1, "deny\n", "mcp__*__delete*"},
		{"no permissions file allows and says so", empty, "Bash(rm -rf /)", 0, "allow\n", "default allow"},
		{"an invalid file is an error naming it and the line", broken, "Bash(ls)", 2, "", "LOCK.permissions.txt: invalid JSON at line 3"},
		{"a DIR that does not exist is bad input, not an allow", filepath.Join(empty, "nope"), "Bash(ls)", 2, "", "is not a directory"},
		{"a relative DIR is read from the working directory", filepath.Base(dir), "Bash(rm -rf x)", 1, "deny\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, out, errb := checkEnv(filepath.Dir(dir), nil)
			err := RunPermissions(PermissionsOptions{Env: env, Dir: c.dir, Agent: "agent-1", Action: c.action})
			assert.Equal(t, c.code, exitcode.Of(err), "stderr: %s", errb)
			assert.Equal(t, c.stdout, out.String())
			msg := errb.String()
			if err != nil {
				msg += err.Error()
			}
			assert.Contains(t, msg, c.stderr)
		})
	}
}

func TestRunPermissionsJSON(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "LOCK.permissions.json"), []byte(permsFile), 0o644))
	env, out, _ := checkEnv(dir, map[string]string{"GUARD_OWNER": "agent-7"})
	err := RunPermissions(PermissionsOptions{Env: env, Action: "Bash(git push)", JSON: true})
	assert.Equal(t, 4, exitcode.Of(err))
	var got map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, "ask", got["decision"])
	assert.Equal(t, "agent-7", got["agent"], "the agent defaults to the owner identity")
	assert.Equal(t, "Bash(git push:*)", got["rule"])
	assert.Equal(t, filepath.Join(dir, "LOCK.permissions.json"), got["file"])
	assert.Equal(t, 1, strings.Count(out.String(), "\n}"), "one JSON document")
}

func TestRunPermissionsWithoutAgentRefusesAMalformedGuardToml(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "LOCK.permissions.json"), []byte(permsFile), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".guard.toml"), []byte("owner = \"agent-1\"\nowner = [\n"), 0o644))
	env, out, _ := lockTestEnv(dir, lockcore.FixedClock(lockT0), nil)
	err := RunPermissions(PermissionsOptions{Env: env, Action: "Bash(git status)"})
	require.Error(t, err)
	assert.Equal(t, exitcode.Usage, exitcode.Of(err), "the identity would come from a file guard cannot read")
	assert.Contains(t, err.Error(), filepath.Join(dir, ".guard.toml")+":")
	assert.Empty(t, out.String())
}
