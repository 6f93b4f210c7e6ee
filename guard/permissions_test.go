package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

func writePerms(t *testing.T, dir, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "LOCK.permissions.json"), []byte(body), 0o644))
}

func TestPermissionsFilesAboveATargetAllApplyAndTheStrictestWins(t *testing.T) {
	root := t.TempDir()
	writePerms(t, root, `{"format":"lock-permissions-v1","default":"allow","rules":{"deny":["Write(**/secrets/**)"],"ask":["Bash(git push:*)"]}}`)
	writePerms(t, filepath.Join(root, "app"), `{"format":"lock-permissions-v1","default":"deny","rules":{"allow":["Write(src/**)","Edit(**)","Bash(*)"]},"applies_to_agents":["claude"]}`)
	cases := []struct {
		name  string
		agent string
		req   PermRequest
		want  lockcore.Decision
		rule  string
	}{
		{"a relative allow rule lets a write through", "claude",
			PermRequest{Dir: root + "/app/src", Target: root + "/app/src/a.go", Tools: []string{"Write"}}, lockcore.Allow, "Write(src/**)"},
		{"the parent's deny beats the folder's allow", "claude",
			PermRequest{Dir: root + "/app/src/secrets", Target: root + "/app/src/secrets/k", Tools: []string{"Write"}}, lockcore.Deny, "Write(**/secrets/**)"},
		{"the folder's default denies what no rule allows", "claude",
			PermRequest{Dir: root + "/app/docs", Target: root + "/app/docs/a.md", Tools: []string{"Write"}}, lockcore.Deny, ""},
		{"an Edit allowed as Edit is not denied as a Write by default", "claude",
			PermRequest{Dir: root + "/app/docs", Target: root + "/app/docs/a.md", Tools: []string{"Edit", "Write"}}, lockcore.Allow, "Edit(**)"},
		{"an agent the folder's file does not name gets its default", "gemini",
			PermRequest{Dir: root + "/app/src", Target: root + "/app/src/a.go", Tools: []string{"Write"}}, lockcore.Deny, ""},
		{"an ask above outranks an allow below", "claude",
			PermRequest{Dir: root + "/app", Actions: []string{"Bash(git push origin main)"}}, lockcore.Ask, "Bash(git push:*)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, ok, err := NewPermissionsChain().Check(tc.agent, tc.req)
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, tc.want, v.Decision)
			assert.Equal(t, tc.rule, v.Rule)
		})
	}
}

func TestExplicitOnlyPermissionsIgnoreTheDefault(t *testing.T) {
	root := t.TempDir()
	writePerms(t, root, `{"format":"lock-permissions-v1","default":"deny","rules":{"ask":["WebFetch"]}}`)
	_, ok, err := NewPermissionsChain().Check("claude", PermRequest{Dir: root, Actions: []string{"TodoWrite"}, ExplicitOnly: true})
	require.NoError(t, err)
	assert.False(t, ok)
	v, ok, err := NewPermissionsChain().Check("claude", PermRequest{Dir: root, Actions: []string{"WebFetch"}, ExplicitOnly: true})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, lockcore.Ask, v.Decision)
}
