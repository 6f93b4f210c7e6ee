package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCodexMCPTableIsEditedAsTextKeepingTheRest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	before := "# my settings\nmodel = \"o4\"\n\n[mcp_servers.db]\ncommand = \"dbtool\" # keep me\n"
	require.NoError(t, os.WriteFile(path, []byte(before), 0o600))
	action, err := editCodexMCP(path, "guard", true)
	require.NoError(t, err)
	assert.Equal(t, "installed", action)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before+"\n[mcp_servers.guard]\ncommand = \"guard\"\nargs = [\"mcp\", \"--release-on-exit\"]\nenv_vars = [\"GUARD_OWNER\", \"GUARD_HOST\", \"XDG_STATE_HOME\"]\n", string(data))

	action, err = editCodexMCP(path, "guard", true)
	require.NoError(t, err)
	assert.Equal(t, "unchanged", action)
	action, err = editCodexMCP(path, "/opt/bin/guard", true)
	require.NoError(t, err)
	assert.Equal(t, "updated", action, "a moved binary is updated in place")

	action, err = editCodexMCP(path, "", false)
	require.NoError(t, err)
	assert.Equal(t, "removed", action)
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, string(data), "exactly what install added is gone")
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}

func TestAUsersOwnGuardServerIsNotReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	mine := "[mcp_servers.guard]\ncommand = \"my-guard-proxy\"\nargs = [\"serve\"]\n"
	require.NoError(t, os.WriteFile(path, []byte(mine), 0o644))
	_, err := editCodexMCP(path, "guard", true)
	require.Error(t, err)
	action, err := editCodexMCP(path, "", false)
	require.NoError(t, err)
	assert.Equal(t, "absent", action)
	data, _ := os.ReadFile(path)
	assert.Equal(t, mine, string(data))

	root, err := parseObject([]byte(`{"mcpServers": {"guard": {"command": "npx", "args": ["guard-mcp"]}}}`))
	require.NoError(t, err)
	_, err = addMCPServer(root, "mcpServers", "guard")
	assert.ErrorContains(t, err, "mcpServers.guard is a server of another command")
	action, err = removeMCPServer(root, "mcpServers")
	require.NoError(t, err)
	assert.Equal(t, "absent", action)
}

func TestAMalformedConfigTomlIsLeftAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	bad := "model = \"o4\n"
	require.NoError(t, os.WriteFile(path, []byte(bad), 0o644))
	_, err := editCodexMCP(path, "guard", true)
	require.ErrorContains(t, err, "nothing was changed")
	data, _ := os.ReadFile(path)
	assert.Equal(t, bad, string(data))
}

func FuzzEditCodexMCP(f *testing.F) {
	f.Add("model = \"x\"\n")
	f.Add("[mcp_servers.guard]\ncommand = \"guard\"\nargs = [\"mcp\"]\n\n[other]\n")
	f.Add("mcp_servers.guard.command = \"x\"\n")
	f.Fuzz(func(t *testing.T, text string) {
		path := filepath.Join(t.TempDir(), "config.toml")
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		if _, err := editCodexMCP(path, "guard", true); err != nil {
			data, _ := os.ReadFile(path)
			assert.Equal(t, text, string(data), "a refused edit changes nothing")
			return
		}
		// What install wrote, uninstall can remove.
		_, err := editCodexMCP(path, "", false)
		assert.NoError(t, err)
	})
}
