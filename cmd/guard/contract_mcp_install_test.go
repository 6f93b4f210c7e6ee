package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// onPath is the environment of a machine where guard is installed on PATH.
func onPath(home string) []string {
	return []string{"HOME=" + home, "PATH=" + filepath.Dir(guardBin) + string(os.PathListSeparator) + testenv.Path()}
}

func ctJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(ctRead(t, path)), &doc), path)
	return doc
}

// hookCommands lists the commands of an event's hooks in a settings document.
func hookCommands(doc map[string]any, event string) []string {
	var out []string
	hooks, _ := doc["hooks"].(map[string]any)
	for _, g := range asAnyList(hooks[event]) {
		for _, h := range asAnyList(g.(map[string]any)["hooks"]) {
			out = append(out, h.(map[string]any)["command"].(string))
		}
	}
	return out
}

func asAnyList(v any) []any {
	l, _ := v.([]any)
	return l
}

// agent-install sets up every part an agent needs to claim and be released, in each
// client's own format, naming guard as PATH finds it (CONTRACT.md section 12); doctor
// reports a missing part; agent-uninstall removes exactly what install added.
func TestContractAgentInstallSetsUpClaimsReleaseAndGuardMCP(t *testing.T) {
	guardMCP := map[string]any{"command": "guard", "args": []any{"mcp"}}
	t.Run("claude project: the hooks, .mcp.json, and its enabling", func(t *testing.T) {
		project := ctRepo(t, nil)
		home := t.TempDir()
		original := "{\n  \"model\": \"x\"\n}\n"
		settings := ctWrite(t, project, ".claude/settings.json", original)
		_, errOut, code := ctRun(t, project, onPath(home), "", "agent-install", "claude")
		require.Equal(t, 0, code, errOut)
		doc := ctJSON(t, settings)
		assert.Equal(t, []string{"guard agent-hook claude --claim"}, hookCommands(doc, "PreToolUse"))
		assert.Equal(t, []string{"guard agent-release --hook claude"}, hookCommands(doc, "SessionEnd"))
		assert.Equal(t, []any{"guard"}, doc["enabledMcpjsonServers"])
		mcpJSON := filepath.Join(project, ".mcp.json")
		assert.Equal(t, map[string]any{"mcpServers": map[string]any{"guard": guardMCP}}, ctJSON(t, mcpJSON))
		assert.NotContains(t, errOut, "not on PATH")

		out, _, _ := ctRun(t, project, onPath(home), "", "doctor")
		assert.NotContains(t, out, "guard mcp is not registered")
		require.NoError(t, os.Remove(mcpJSON))
		out, _, _ = ctRun(t, project, onPath(home), "", "doctor")
		assert.Contains(t, out, "claude: guard mcp is not registered in "+mcpJSON)

		_, errOut, code = ctRun(t, project, onPath(home), "", "agent-install", "claude")
		require.Equal(t, 0, code, errOut)
		_, errOut, code = ctRun(t, project, onPath(home), "", "agent-uninstall", "claude")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, original, ctRead(t, settings), "exactly what install added is gone")
		assert.NoFileExists(t, mcpJSON)
	})
	t.Run("claude --user: ~/.claude.json keeps Claude Code's own keys", func(t *testing.T) {
		home := t.TempDir()
		state := ctWrite(t, home, ".claude.json", `{"numStartups": 3, "mcpServers": {"db": {"command": "dbtool"}}}`)
		_, errOut, code := ctRun(t, t.TempDir(), onPath(home), "", "agent-install", "claude", "--user")
		require.Equal(t, 0, code, errOut)
		doc := ctJSON(t, state)
		assert.Equal(t, float64(3), doc["numStartups"])
		assert.Equal(t, map[string]any{"db": map[string]any{"command": "dbtool"}, "guard": guardMCP}, doc["mcpServers"])
		assert.Equal(t, []string{"guard agent-release --hook claude"}, hookCommands(ctJSON(t, filepath.Join(home, ".claude", "settings.json")), "SessionEnd"))
		_, errOut, code = ctRun(t, t.TempDir(), onPath(home), "", "agent-uninstall", "claude", "--user")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, map[string]any{"db": map[string]any{"command": "dbtool"}}, ctJSON(t, state)["mcpServers"])
	})
	t.Run("claude --local: settings.local.json and the project's entry in ~/.claude.json", func(t *testing.T) {
		project := ctRepo(t, nil)
		home := t.TempDir()
		_, errOut, code := ctRun(t, project, onPath(home), "", "agent-install", "claude", "--local")
		require.Equal(t, 0, code, errOut)
		local := filepath.Join(project, ".claude", "settings.local.json")
		assert.Equal(t, []string{"guard agent-hook claude --claim"}, hookCommands(ctJSON(t, local), "PreToolUse"))
		assert.NoFileExists(t, filepath.Join(project, ".claude", "settings.json"), "nothing to commit")
		projects := ctJSON(t, filepath.Join(home, ".claude.json"))["projects"].(map[string]any)
		assert.Equal(t, map[string]any{"guard": guardMCP}, projects[project].(map[string]any)["mcpServers"])
		_, _, code = ctRun(t, project, onPath(home), "", "agent-install", "gemini", "--local")
		assert.Equal(t, 2, code, "Gemini CLI has no per-machine project settings")
	})
	t.Run("gemini: mcpServers beside the hooks", func(t *testing.T) {
		project := ctRepo(t, nil)
		_, errOut, code := ctRun(t, project, onPath(t.TempDir()), "", "agent-install", "gemini")
		require.Equal(t, 0, code, errOut)
		doc := ctJSON(t, filepath.Join(project, ".gemini", "settings.json"))
		assert.Equal(t, []string{"guard agent-hook gemini --claim"}, hookCommands(doc, "BeforeTool"))
		assert.Equal(t, []string{"guard agent-release --hook gemini"}, hookCommands(doc, "SessionEnd"))
		assert.Equal(t, map[string]any{"guard": guardMCP}, doc["mcpServers"])
		_, errOut, code = ctRun(t, project, onPath(t.TempDir()), "", "agent-uninstall", "gemini")
		require.Equal(t, 0, code, errOut)
		assert.NoFileExists(t, filepath.Join(project, ".gemini", "settings.json"))
	})
	t.Run("codex: [mcp_servers.guard] in the project's config.toml", func(t *testing.T) {
		project := ctRepo(t, nil)
		home := t.TempDir()
		env := append(onPath(home), "CODEX_HOME="+filepath.Join(home, ".codex"))
		ctWrite(t, home, ".codex/config.toml", "[projects."+tomlQuote(project)+"]\ntrust_level = \"trusted\"\n")
		_, errOut, code := ctRun(t, project, env, "", "agent-install", "codex")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, []string{"guard agent-hook codex --claim"}, hookCommands(ctJSON(t, filepath.Join(project, ".codex", "hooks.json")), "PreToolUse"))
		assert.Equal(t, "[mcp_servers.guard]\ncommand = \"guard\"\nargs = [\"mcp\", \"--release-on-exit\"]\nenv_vars = [\"GUARD_OWNER\", \"GUARD_HOST\", \"XDG_STATE_HOME\"]\n",
			ctRead(t, filepath.Join(project, ".codex", "config.toml")))
		_, errOut, code = ctRun(t, project, env, "", "agent-uninstall", "codex")
		require.Equal(t, 0, code, errOut)
		assert.NoFileExists(t, filepath.Join(project, ".codex", "config.toml"))
	})
	t.Run("without guard on PATH the settings name this binary, and say so", func(t *testing.T) {
		project := ctRepo(t, nil)
		_, errOut, code := ctRun(t, project, []string{"HOME=" + t.TempDir()}, "", "agent-install", "claude")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, []string{guardBin + " agent-hook claude --claim"}, hookCommands(ctJSON(t, filepath.Join(project, ".claude", "settings.json")), "PreToolUse"))
		assert.Contains(t, errOut, "guard is not on PATH here, so the settings name "+guardBin)
	})
}
