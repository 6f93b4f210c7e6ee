package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
)

func installEnv(t *testing.T, dir, home string) (*guard.Env, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	e := envtest.New(envtest.Dir(dir), envtest.Executable("/opt/guard/bin/guard"), envtest.Vars(map[string]string{"HOME": home}))
	return e.Env, e.Out, e.Err
}

const existingClaudeSettings = `{
    "model": "opus",
    "permissions": {
        "allow": ["Bash(npm test:*)"],
        "deny": []
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "command", "command": "~/bin/audit.sh", "timeout": 5}
                ]
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
    },
    "zzz_unknown": {"keep": [1, 2, 3]}
}
`

func TestAgentInstallMergesIntoExistingClaudeSettings(t *testing.T) {
	repo := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	sub := filepath.Join(repo, "src", "pkg")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	settings := filepath.Join(repo, ".claude", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(settings), 0o755))
	require.NoError(t, os.WriteFile(settings, []byte(existingClaudeSettings), 0o600))

	env, out, _ := installEnv(t, sub, t.TempDir())
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude}))
	assert.Equal(t, "installed "+settings+"\n", out.String())

	data, err := os.ReadFile(settings)
	require.NoError(t, err)
	assert.Equal(t, `{
    "model": "opus",
    "permissions": {
        "allow": [
            "Bash(npm test:*)"
        ],
        "deny": []
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": "~/bin/audit.sh",
                        "timeout": 5
                    }
                ]
            },
            {
                "matcher": "*",
                "hooks": [
                    {
                        "type": "command",
                        "command": "/opt/guard/bin/guard agent-hook claude --claim"
                    }
                ]
            }
        ],
        "Stop": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "say done"
                    }
                ]
            }
        ],
        "SessionEnd": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "/opt/guard/bin/guard agent-release --hook claude"
                    }
                ]
            }
        ]
    },
    "zzz_unknown": {
        "keep": [
            1,
            2,
            3
        ]
    },
    "enabledMcpjsonServers": [
        "guard"
    ]
}
`, string(data))
	backup, err := os.ReadFile(settings + BackupSuffix)
	require.NoError(t, err)
	assert.Equal(t, existingClaudeSettings, string(backup))
	st, err := os.Stat(settings)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the file keeps its permissions")

	t.Run("a second install changes nothing", func(t *testing.T) {
		env, out, _ := installEnv(t, sub, t.TempDir())
		require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude}))
		assert.Equal(t, "unchanged "+settings+"\n", out.String())
		again, err := os.ReadFile(settings)
		require.NoError(t, err)
		assert.Equal(t, string(data), string(again))
	})

	t.Run("a moved guard binary is updated in place, not added twice", func(t *testing.T) {
		env, _, _ := installEnv(t, sub, t.TempDir())
		env.Executable = "/home/me/go/bin/guard"
		var res InstallResult
		require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude, JSON: true}))
		require.NoError(t, json.Unmarshal(env.Stdout.(*bytes.Buffer).Bytes(), &res))
		assert.Equal(t, "updated", res.Action)
		now, err := os.ReadFile(settings)
		require.NoError(t, err)
		assert.Equal(t, 1, strings.Count(string(now), "agent-hook claude"))
		assert.Contains(t, string(now), `"command": "/home/me/go/bin/guard agent-hook claude --claim"`)
	})

	t.Run("uninstall removes only guard's entry", func(t *testing.T) {
		env, out, _ := installEnv(t, sub, t.TempDir())
		require.NoError(t, RunUninstall(InstallOptions{Env: env, Agent: Claude}))
		assert.Equal(t, "removed "+settings+"\n", out.String())
		now, err := os.ReadFile(settings)
		require.NoError(t, err)
		var got, want any
		require.NoError(t, json.Unmarshal(now, &got))
		require.NoError(t, json.Unmarshal([]byte(existingClaudeSettings), &want))
		assert.Equal(t, want, got)

		env, out, _ = installEnv(t, sub, t.TempDir())
		require.NoError(t, RunUninstall(InstallOptions{Env: env, Agent: Claude}))
		assert.Equal(t, "absent "+settings+"\n", out.String())
	})
}

func TestAgentInstallCreatesUserSettingsAndUninstallLeavesNoTrace(t *testing.T) {
	home := t.TempDir()
	env, out, _ := installEnv(t, t.TempDir(), home)
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Gemini, User: true}))
	settings := filepath.Join(home, ".gemini", "settings.json")
	assert.Equal(t, "installed "+settings+"\n", out.String())
	data, err := os.ReadFile(settings)
	require.NoError(t, err)
	assert.Equal(t, `{
  "hooks": {
    "BeforeTool": [
      {
        "matcher": ".*",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/guard/bin/guard agent-hook gemini --claim",
            "name": "guard",
            "description": "LOCK-SYSTEM locks and LOCK.permissions.json (guard agent-hook)"
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/guard/bin/guard agent-release --hook gemini",
            "name": "guard-release",
            "description": "releases the session's claims (guard agent-release)"
          }
        ]
      }
    ]
  },
  "mcpServers": {
    "guard": {
      "command": "/opt/guard/bin/guard",
      "args": [
        "mcp"
      ]
    }
  }
}
`, string(data))
	assert.NoFileExists(t, settings+BackupSuffix, "nothing to back up for a new file")

	env, _, _ = installEnv(t, t.TempDir(), home)
	require.NoError(t, RunUninstall(InstallOptions{Env: env, Agent: Gemini, User: true}))
	assert.NoFileExists(t, settings, "guard created the file for its entry alone")
	assert.NoDirExists(t, filepath.Join(home, ".gemini"))
}

func TestAgentUninstallRestoresTheOriginalBytes(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".claude", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(settings), 0o755))
	original := `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}`
	require.NoError(t, os.WriteFile(settings, []byte(original), 0o644))
	env, _, _ := installEnv(t, dir, t.TempDir())
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude}))
	installed, err := os.ReadFile(settings)
	require.NoError(t, err)
	assert.NotEqual(t, original, string(installed))
	require.NoError(t, RunUninstall(InstallOptions{Env: env, Agent: Claude}))
	back, err := os.ReadFile(settings)
	require.NoError(t, err)
	assert.Equal(t, original, string(back))
}

func TestAgentInstallRefusesWhatItCannotEdit(t *testing.T) {
	cases := []struct {
		name, content, message string
	}{
		{"a file that is not JSON", "{ \"a\": ", "not a JSON object guard can edit"},
		{"a top-level array", "[]", "not a JSON object guard can edit"},
		{"hooks that are not an object", `{"hooks": []}`, `"hooks" is not a JSON object`},
		{"an event that is not a list", `{"hooks": {"PreToolUse": {}}}`, `hooks.PreToolUse: "PreToolUse" is not a JSON array`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			settings := filepath.Join(dir, ".claude", "settings.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(settings), 0o755))
			require.NoError(t, os.WriteFile(settings, []byte(tc.content), 0o644))
			env, out, _ := installEnv(t, dir, t.TempDir())
			err := RunInstall(InstallOptions{Env: env, Agent: Claude})
			assert.Equal(t, exitcode.Usage, exitcode.Of(err))
			assert.ErrorContains(t, err, tc.message)
			assert.ErrorContains(t, err, "nothing was changed")
			assert.Empty(t, out.String())
			data, _ := os.ReadFile(settings)
			assert.Equal(t, tc.content, string(data))
			assert.NoFileExists(t, settings+BackupSuffix)
		})
	}
}

func TestHookCommandQuotesPathsForTheShell(t *testing.T) {
	assert.Equal(t, "/usr/local/bin/guard agent-hook claude", HookCommand("/usr/local/bin/guard", Claude))
	assert.Equal(t, `'/Users/Me Too/bin/guard' agent-hook gemini`, HookCommand("/Users/Me Too/bin/guard", Gemini))
	assert.True(t, isGuardHook(`'/Users/Me Too/bin/guard' agent-hook gemini`, Gemini))
	assert.False(t, isGuardHook(`/usr/bin/guard agent-hook gemini`, Claude))
}

// guard's entry is known by its shape (one program word, then agent-hook <agent>), not
// by the binary's name: installed from a binary called gd, a second install finds it
// (issue 11: it was added twice, and agent-uninstall left it in place).
func TestIsGuardHookWhateverTheBinaryIsCalled(t *testing.T) {
	for _, cmd := range []string{
		"/usr/bin/other agent-hook claude",
		"gd agent-hook claude",
		"  /opt/x/guard-1.4 agent-hook claude ",
		`'/Users/Me Too/bin/gd' agent-hook claude`,
		`'/tmp/it'\''s/gd' agent-hook claude`,
		`"/Users/Me Too/bin/gd" agent-hook claude`,
		// agent-install turns claim on write on (issue 23): its own entry.
		"/usr/bin/guard agent-hook claude --claim",
		"guard agent-hook claude --claim --sandbox",
	} {
		assert.True(t, isGuardHook(cmd, Claude), cmd)
	}
	for _, cmd := range []string{
		"agent-hook claude",
		"~/bin/audit.sh",
		"sh -c 'guard' agent-hook claude",
		"/bin/wrap --flag agent-hook claude",
		"$GUARD agent-hook claude",
		"a;b agent-hook claude",
		`'/x/gd agent-hook claude`,
		`"/x/$g" agent-hook claude`,
		"/usr/bin/guard agent-hook claudex",
	} {
		assert.False(t, isGuardHook(cmd, Claude), cmd)
	}
	for _, exe := range []string{"/opt/tools/gd", "/Users/Me Too/gd", "/tmp/it's/gd"} {
		assert.True(t, isGuardHook(HookCommand(exe, Codex), Codex), exe)
	}
}

func TestAgentInstallFromABinaryNotCalledGuard(t *testing.T) {
	repo, home := t.TempDir(), t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	env, out, _ := installEnv(t, repo, home)
	env.Executable = "/opt/tools/gd"
	settings := filepath.Join(repo, ".claude", "settings.json")
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude}))
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude}))
	assert.Equal(t, "installed "+settings+"\nunchanged "+settings+"\n", out.String())
	env.Executable = "/usr/local/bin/gd-2"
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude}))
	data, err := os.ReadFile(settings)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(data), "agent-hook claude"), string(data))
	assert.Contains(t, string(data), "/usr/local/bin/gd-2 agent-hook claude")
	require.NoError(t, RunUninstall(InstallOptions{Env: env, Agent: Claude}))
	data, err = os.ReadFile(settings)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "agent-hook")
}

func TestAgentInstallWritesCodexHooksJSON(t *testing.T) {
	codexHome := t.TempDir()
	env := envtest.New(envtest.Dir(t.TempDir()), envtest.Executable("/opt/guard/bin/guard"), envtest.Vars(map[string]string{"CODEX_HOME": codexHome}))
	require.NoError(t, RunInstall(InstallOptions{Env: env.Env, Agent: Codex, User: true}))
	hooks := filepath.Join(codexHome, "hooks.json")
	assert.Equal(t, "installed "+hooks+"\n", env.Out.String())
	data, err := os.ReadFile(hooks)
	require.NoError(t, err)
	assert.Equal(t, `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": ".*",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/guard/bin/guard agent-hook codex --claim"
          }
        ]
      }
    ]
  }
}
`, string(data))
}
