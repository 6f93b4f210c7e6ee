package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 7, item 1: LOCK.permissions.json allow rules never override a lock. A folder
// under bob's lock whose permissions file allows every write and every command still
// denies another agent's write there, naming the lock; the same rules let the write
// through once the lock is gone.
func TestAnAllowRuleNeverOverridesALock(t *testing.T) {
	perms := `{"format": "lock-permissions-v1", "default": "allow",
  "rules": {"allow": ["Write(**)", "Edit(**)", "Bash(*)", "Bash(echo:*)"]}, "applies_to_agents": ["*"]}`
	cases := []struct {
		name, tool string
		input      func(dir string) map[string]any
	}{
		{"a Write", "Write", func(dir string) map[string]any {
			return map[string]any{"file_path": filepath.Join(dir, "a.go"), "content": "x"}
		}},
		{"an Edit", "Edit", func(dir string) map[string]any {
			return map[string]any{"file_path": filepath.Join(dir, "a.go"), "old_string": "x", "new_string": "y"}
		}},
		{"a Bash redirection", "Bash", func(dir string) map[string]any {
			return map[string]any{"command": "echo x > " + filepath.Join(dir, "a.go")}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name+" into a locked folder that allows everything is denied", func(t *testing.T) {
			root := fixtureTree(t)
			dir := filepath.Join(root, "repo", "allowall")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte("x"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "LOCK.permissions.json"), []byte(perms), 0o644))
			lockPath := filepath.Join(dir, "LOCK.txt")
			require.NoError(t, os.WriteFile(lockPath, []byte("owner: bob\ncreated: 2026-11-29T09:30:00\nexpires_after: 2h\npurpose: migration\n"), 0o644))

			call := func() string {
				in, err := json.Marshal(map[string]any{"session_id": "sess-1", "cwd": filepath.Join(root, "repo"),
					"hook_event_name": "PreToolUse", "tool_name": tc.tool, "tool_input": tc.input(dir)})
				require.NoError(t, err)
				env, out, _ := fixtureEnv(root, string(in), nil)
				require.NoError(t, RunHook(HookOptions{Env: env, Agent: Claude, Classify: fakeClassify}))
				return out.String()
			}

			out := call()
			assert.Contains(t, out, `"permissionDecision":"deny"`)
			assert.Contains(t, out, "held by bob")
			assert.Contains(t, out, lockPath)

			require.NoError(t, os.Remove(lockPath))
			assert.Empty(t, call(), "without the lock the allow rules let it through")
		})
	}
}
