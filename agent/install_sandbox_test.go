package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func claudeHookCommands(t *testing.T, settings string) []string {
	t.Helper()
	data, err := os.ReadFile(settings)
	require.NoError(t, err)
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	var out []string
	for _, g := range doc.Hooks["PreToolUse"] {
		for _, h := range g.Hooks {
			out = append(out, h.Command)
		}
	}
	return out
}

// agent-install claude --sandbox writes the flag into the hook's command; installing
// again without it updates guard's one entry in place (no second entry).
func TestAgentInstallSandboxWritesTheFlagAndUpdatesInPlace(t *testing.T) {
	repo := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	settings := filepath.Join(repo, ".claude", "settings.json")

	env, out, _ := installEnv(t, repo, t.TempDir())
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude, Sandbox: true}))
	assert.Equal(t, "installed "+settings+"\n", out.String())
	assert.Equal(t, []string{"/opt/guard/bin/guard agent-hook claude --claim --sandbox"}, claudeHookCommands(t, settings))

	env, out, _ = installEnv(t, repo, t.TempDir())
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude, Sandbox: true}))
	assert.Equal(t, "unchanged "+settings+"\n", out.String())

	env, out, _ = installEnv(t, repo, t.TempDir())
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude}))
	assert.Equal(t, "updated "+settings+"\n", out.String())
	assert.Equal(t, []string{"/opt/guard/bin/guard agent-hook claude --claim"}, claudeHookCommands(t, settings))

	env, out, _ = installEnv(t, repo, t.TempDir())
	require.NoError(t, RunUninstall(InstallOptions{Env: env, Agent: Claude}))
	assert.Equal(t, "removed "+settings+"\n", out.String())
}

// Every client's hook can now rewrite a command (Claude Code and Codex updatedInput,
// Gemini CLI tool_input), so --sandbox is no longer refused for Gemini and Codex.
func TestAgentInstallSandboxWorksForEveryClient(t *testing.T) {
	for _, a := range []string{Gemini, Codex} {
		repo := t.TempDir()
		env, _, _ := installEnv(t, repo, t.TempDir())
		require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: a, Sandbox: true}), a)
		data, err := os.ReadFile(filepath.Join(repo, "."+a, map[string]string{Gemini: "settings.json", Codex: "hooks.json"}[a]))
		require.NoError(t, err, a)
		assert.Contains(t, string(data), "agent-hook "+a+" --claim --sandbox", a)
	}
}

func TestIsGuardHookKnowsTheSandboxFlag(t *testing.T) {
	assert.True(t, isGuardHook("/usr/bin/guard agent-hook claude --sandbox", Claude))
	assert.True(t, isGuardHook("'/a b/gd' agent-hook claude --sandbox ", Claude))
	assert.True(t, isGuardHook(HookCommand("/tmp/it's/gd", Claude)+" --sandbox", Claude))
	assert.True(t, isGuardHook("/usr/bin/guard agent-hook claude --sandbox --claim", Claude), "agent-install writes --claim too")
	assert.False(t, isGuardHook("/usr/bin/guard agent-hook claude extra", Claude))
	assert.False(t, isGuardHook("/usr/bin/guard agent-hook gemini --sandbox", Claude))
	assert.False(t, isGuardHook("agent-hook claude --sandbox", Claude))
}
