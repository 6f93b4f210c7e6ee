package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
)

// codexRepo is a project whose hooks.json gets guard's entry; HOME holds .codex.
func codexRepo(t *testing.T, config string) (repo, home, configPath string) {
	t.Helper()
	repo, home = t.TempDir(), t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	configPath = filepath.Join(home, ".codex", "config.toml")
	if config != "" {
		require.NoError(t, os.MkdirAll(filepath.Dir(configPath), 0o755))
		require.NoError(t, os.WriteFile(configPath, []byte(config), 0o600))
	}
	return repo, home, configPath
}

func TestAgentInstallCodexRecordsTheTrustCodexAsksFor(t *testing.T) {
	userConfig := "# my settings\nmodel = \"o3\"\n\n[projects.\"/somewhere\"]\ntrust_level = \"trusted\"\n"
	repo, home, config := codexRepo(t, userConfig)
	env, out, errb := installEnv(t, repo, home)
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Codex}))
	hooks := filepath.Join(repo, ".codex", "hooks.json")
	assert.Equal(t, "installed "+hooks+"\n", out.String())
	assert.Contains(t, errb.String(), "recorded the hook as trusted in "+config)
	assert.Contains(t, errb.String(), "warning: Codex loads "+hooks+" only in a project it trusts")

	text, err := os.ReadFile(config)
	require.NoError(t, err)
	// The user's text is kept as it was, the record is added after it.
	require.True(t, strings.HasPrefix(string(text), userConfig), string(text))
	data, err := os.ReadFile(hooks)
	require.NoError(t, err)
	entries, err := codexEntries(hooks, data)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, hooks+":pre_tool_use:0:0", entries[0].Key)
	assert.Equal(t, string(text), userConfig+"\n[hooks.state."+guard.QuoteTOML(entries[0].Key)+"]\ntrusted_hash = "+guard.QuoteTOML(entries[0].Hash)+"\n")
	backup, err := os.ReadFile(config + BackupSuffix)
	require.NoError(t, err)
	assert.Equal(t, userConfig, string(backup))

	// Again: nothing to change; the project still untrusted is still said.
	out.Reset()
	errb.Reset()
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Codex}))
	assert.Equal(t, "unchanged "+hooks+"\n", out.String())
	assert.NotContains(t, errb.String(), "recorded")
	again, _ := os.ReadFile(config)
	assert.Equal(t, string(text), string(again))
	assert.Equal(t, []string{"codex loads " + hooks + " only in a trusted project, and " + repo + " is not trusted in " + config +
		" (trust it when Codex asks, or install the hook for every project: `guard agent-install codex --user`)"}, CodexProblems(env, repo))

	// A stale hash (the hook's command changed) is replaced in place.
	stale := strings.Replace(string(text), entries[0].Hash, "sha256:0000", 1)
	require.NoError(t, os.WriteFile(config, []byte(stale), 0o600))
	assert.Contains(t, strings.Join(CodexProblems(env, repo), "\n"), "changed since it was trusted ("+config+" records sha256:0000")
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Codex}))
	again, _ = os.ReadFile(config)
	assert.Equal(t, string(text), string(again))

	// Uninstalling takes the record away again.
	require.NoError(t, RunUninstall(InstallOptions{Env: env, Agent: Codex}))
	again, _ = os.ReadFile(config)
	assert.Equal(t, userConfig, string(again))
}

func TestAgentInstallCodexUserHooksUseCodexHome(t *testing.T) {
	repo, home, _ := codexRepo(t, "")
	codexHome := filepath.Join(t.TempDir(), "ch")
	env, _, errb := installEnv(t, repo, home)
	env.Getenv = func(k string) string {
		return map[string]string{"HOME": home, "CODEX_HOME": codexHome}[k]
	}
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Codex, User: true}))
	assert.NotContains(t, errb.String(), "warning")
	var st codexState
	_, err := toml.DecodeFile(filepath.Join(codexHome, "config.toml"), &st)
	require.NoError(t, err)
	key := filepath.Join(codexHome, "hooks.json") + ":pre_tool_use:0:0"
	require.NotNil(t, st.Hooks.State[key].TrustedHash)
	assert.Empty(t, CodexProblems(env, ""))
}

// A config.toml whose hooks.state guard cannot extend textually is left alone, and the
// refusal says what to add by hand; hooks.json is not written either.
func TestAgentInstallCodexRefusesWhatItCannotEdit(t *testing.T) {
	for _, config := range []string{
		"[hooks]\nstate = {}\n",
		"model = \"o3\"\n[[broken\n",
	} {
		repo, home, path := codexRepo(t, config)
		env, _, _ := installEnv(t, repo, home)
		err := RunInstall(InstallOptions{Env: env, Agent: Codex})
		require.Error(t, err)
		assert.Contains(t, err.Error(), path)
		assert.Contains(t, err.Error(), "nothing was changed")
		data, _ := os.ReadFile(path)
		assert.Equal(t, config, string(data))
		assert.NoFileExists(t, filepath.Join(repo, ".codex", "hooks.json"))
	}
}

// The hash follows Codex's normalisation: an absent timeout is 600, keys sorted, no
// HTML escaping; a matcher, a timeout or a status message changes it.
func TestCodexHookHash(t *testing.T) {
	h := func(extra string) string {
		data := []byte(`{"hooks":{"PreToolUse":[{"matcher":".*","hooks":[{"type":"command","command":"/x/guard agent-hook codex"` + extra + `}]}]}}`)
		e, err := codexEntries("/p/hooks.json", data)
		require.NoError(t, err)
		require.Len(t, e, 1)
		return e[0].Hash
	}
	base := h("")
	assert.Equal(t, base, h(`,"timeout":600`))
	assert.Equal(t, base, h(`,"async":false`))
	assert.NotEqual(t, base, h(`,"timeout":5`))
	assert.NotEqual(t, base, h(`,"statusMessage":"guard"`))
	// serde_json escapes quote, backslash and control characters only.
	var b bytes.Buffer
	canonicalJSON(&b, map[string]any{"type": "command", "command": "a<b>&\"\\\n\x01é", "timeout": uint64(600), "async": false})
	assert.Equal(t, `{"async":false,"command":"a<b>&\"\\\n\u0001é","timeout":600,"type":"command"}`, b.String())
}

// Codex trusts a project by its own entry (or the folder it runs in), never by an
// entry for a folder above it (the real Codex: TestRealCodexTrustsOnlyTheProjectItself).
func TestCodexTrustIsTheProjectsOwnEntry(t *testing.T) {
	st := codexState{}
	st.Projects = map[string]struct {
		TrustLevel string `toml:"trust_level"`
	}{
		"/home/alice":              {"trusted"},
		"/home/alice/work/blocked": {"untrusted"},
		"/home/alice/work/proj":    {"trusted"},
	}
	assert.False(t, codexTrustsProject(st, "/home/alice/code/proj"), "a trusted parent does not trust the project")
	assert.False(t, codexTrustsProject(st, "/home/alice/work/blocked"))
	assert.True(t, codexTrustsProject(st, "/home/alice/work/proj"))
	assert.True(t, codexTrustsProject(st, "/home/alice"))
}
