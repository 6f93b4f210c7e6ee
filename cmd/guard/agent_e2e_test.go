package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/agente2e"
)

// e2eRun runs one real agent session against the fake model.
func e2eRun(t *testing.T, name string, s *agente2e.Server, r agente2e.Run) agente2e.Result {
	t.Helper()
	switch name {
	case agente2e.Claude:
		return agente2e.RunClaude(t, s, r)
	case agente2e.Gemini:
		return agente2e.RunGemini(t, s, r)
	case agente2e.Codex:
		return agente2e.RunCodex(t, s, r)
	}
	t.Fatalf("unknown agent %s", name)
	return agente2e.Result{}
}

// e2eProject is a repository with a folder under alice's lock and a free one, and the
// hook installed by `guard agent-install NAME` (the project's settings) with HOME home.
// For Codex, the user has trusted the project (Codex loads a project's hooks.json only
// then); the hook's own trust record is agent-install's to write.
func e2eProject(t *testing.T, name, home string, s *agente2e.Server) (repo, lock string) {
	t.Helper()
	repo = ctRepo(t, map[string]string{"locked/a.go": "package a\n", "free/x.txt": "x\n"})
	lock = ctWrite(t, repo, "locked/LOCK.txt", "owner: alice\npurpose: the parser rewrite\n"+ctLive)
	env := []string{"HOME=" + home}
	if name == agente2e.Codex {
		agente2e.WriteFile(t, filepath.Join(agente2e.CodexHome(home), "config.toml"),
			agente2e.CodexConfig(s)+"\n[projects."+tomlQuote(repo)+"]\ntrust_level = \"trusted\"\n")
		env = append(env, "CODEX_HOME="+agente2e.CodexHome(home))
	}
	out, errOut, code := ctRun(t, repo, env, "", "agent-install", name)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "installed ")
	return repo, lock
}

func tomlQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestRealAgentsObeyTheInstalledHook drives the real Claude Code, Gemini CLI and Codex
// (installed by .ci/setup-agent-clis) offline: the fake model asks for a shell command
// writing into alice's locked folder, then one writing into a free folder. The hook
// `guard agent-install` wrote must stop the first (the file is never created, and the
// refusal, naming the lock and its owner, is what the model reads back as the tool's
// result) and let the second through.
func TestRealAgentsObeyTheInstalledHook(t *testing.T) {
	for _, name := range []string{agente2e.Claude, agente2e.Gemini, agente2e.Codex} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bin := agente2e.CLI(t, name)
			t.Logf("driving %s", agente2e.Version(t, bin))
			home := t.TempDir()
			s := agente2e.NewServer(t, "echo agent > locked/new.txt", "echo agent > free/new.txt")
			repo, lock := e2eProject(t, name, home, s)
			res := e2eRun(t, name, s, agente2e.Run{Dir: repo, Home: home})
			diag := "exit " + strconv.Itoa(res.Code) + "\nstdout: " + res.Stdout + "\nstderr: " + res.Stderr + "\nrequests:\n" + s.Log()
			require.NoError(t, res.Err, diag)

			_, err := os.Stat(filepath.Join(repo, "locked", "new.txt"))
			assert.ErrorIs(t, err, os.ErrNotExist, "the write into the locked folder happened\n%s", diag)
			data, err := os.ReadFile(filepath.Join(repo, "free", "new.txt"))
			assert.NoError(t, err, diag)
			assert.Equal(t, "agent\n", string(data), diag)

			results := s.ToolResults()
			require.Len(t, results, 2, diag)
			assert.Contains(t, results[0], lock, "the model was not told which lock refused the command")
			assert.Contains(t, results[0], "alice", "the model was not told whose lock it is")
			assert.NotContains(t, results[1], "guard:", "the free write was objected to")
			assert.Equal(t, 0, res.Code, diag)
		})
	}
}

// TestRealCodexRunsTheHookOnlyWithItsTrustRecord shows why agent-install writes Codex's
// hooks.state record: without it the real codex exec skips guard's hook without a word
// (no prompt, the write lands) and guard doctor says so; installing again puts the
// record back and the hook refuses again, with no prompt either.
func TestRealCodexRunsTheHookOnlyWithItsTrustRecord(t *testing.T) {
	bin := agente2e.CLI(t, agente2e.Codex)
	t.Logf("driving %s", agente2e.Version(t, bin))
	home := t.TempDir()
	codexHome := agente2e.CodexHome(home)
	env := []string{"HOME=" + home, "CODEX_HOME=" + codexHome}
	s := agente2e.NewServer(t, "echo agent > locked/new.txt")
	repo, lock := e2eProject(t, agente2e.Codex, home, s)
	config := filepath.Join(codexHome, "config.toml")
	require.Contains(t, ctRead(t, config), "[hooks.state.")

	out, _, _ := ctRun(t, repo, env, "", "doctor", "--json")
	assert.NotContains(t, out, "codex", "doctor objects to a trusted hook")

	// The user's config.toml without guard's record, as before agent-install.
	untrusted := agente2e.CodexConfig(s) + "\n[projects." + tomlQuote(repo) + "]\ntrust_level = \"trusted\"\n"
	agente2e.WriteFile(t, config, untrusted)
	out, _, code := ctRun(t, repo, env, "", "doctor", "--json")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "codex hook in "+filepath.Join(repo, ".codex", "hooks.json")+" is not trusted in "+config)
	res := agente2e.RunCodex(t, s, agente2e.Run{Dir: repo, Home: home})
	require.NoError(t, res.Err)
	assert.FileExists(t, filepath.Join(repo, "locked", "new.txt"), "codex ran an untrusted hook: the record may no longer be needed\n%s", res.Stderr)
	require.NoError(t, os.Remove(filepath.Join(repo, "locked", "new.txt")))

	// Installing again (hooks.json unchanged) records the trust again.
	out, errOut, code := ctRun(t, repo, env, "", "agent-install", "codex")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "unchanged ")
	assert.Contains(t, errOut, "recorded the hook as trusted in "+config)
	s2 := agente2e.NewServer(t, "echo agent > locked/new.txt")
	cfg := ctRead(t, config)
	agente2e.WriteFile(t, config, strings.Replace(cfg, s.URL, s2.URL, 1))
	res = agente2e.RunCodex(t, s2, agente2e.Run{Dir: repo, Home: home})
	require.NoError(t, res.Err)
	assert.NoFileExists(t, filepath.Join(repo, "locked", "new.txt"), res.Stderr)
	results := s2.ToolResults()
	require.Len(t, results, 1, s2.Log())
	assert.Contains(t, results[0], lock)

	// A changed hook (another guard binary) is stale until installed again.
	hooks := filepath.Join(repo, ".codex", "hooks.json")
	agente2e.WriteFile(t, hooks, strings.Replace(ctRead(t, hooks), guardBin, guardBin+"-moved", 1))
	out, _, code = ctRun(t, repo, env, "", "doctor", "--json")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "changed since it was trusted")

	// Uninstalling removes the record guard wrote, and nothing else.
	_, errOut, code = ctRun(t, repo, env, "", "agent-uninstall", "codex")
	require.Equal(t, 0, code, errOut)
	_, errOut, code = ctRun(t, repo, env, "", "agent-install", "codex")
	require.Equal(t, 0, code, errOut)
	_, errOut, code = ctRun(t, repo, env, "", "agent-uninstall", "codex")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "removed the hook's trust record")
	assert.NotContains(t, ctRead(t, config), "hooks.state")
	assert.Contains(t, ctRead(t, config), "trust_level = \"trusted\"")
}

// TestRealAgentsAnswerAnAsk: a command guard cannot judge near alice's lock is asked
// about. Gemini CLI honours ask (it would prompt; headless it stops before running
// the tool, showing guard's reason as the hook's system message); Claude Code in -p
// mode cannot prompt and refuses; Codex does not honour ask at all (it reports
// "PreToolUse Failed" and runs the command), so guard denies there. In every case the
// command does not run.
func TestRealAgentsAnswerAnAsk(t *testing.T) {
	const command = "touch $DEST/new.txt"
	for _, name := range []string{agente2e.Claude, agente2e.Gemini, agente2e.Codex} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bin := agente2e.CLI(t, name)
			t.Logf("driving %s", agente2e.Version(t, bin))
			home := t.TempDir()
			s := agente2e.NewServer(t, command)
			repo, lock := e2eProject(t, name, home, s)
			res := e2eRun(t, name, s, agente2e.Run{Dir: repo, Home: home, Env: []string{"DEST=" + filepath.Join(repo, "locked")}})
			diag := "exit " + strconv.Itoa(res.Code) + "\nstdout: " + res.Stdout + "\nstderr: " + res.Stderr + "\nrequests:\n" + s.Log()
			require.NoError(t, res.Err, diag)
			assert.NoFileExists(t, filepath.Join(repo, "locked", "new.txt"), diag)
			results := s.ToolResults()
			switch name {
			case agente2e.Gemini:
				// Headless (gemini -p), with guard mcp connected as agent-install
				// registers it: an ask would stop Gemini CLI 0.61 for good, so guard
				// refuses, and the model reads why.
				require.Len(t, results, 1, diag)
				assert.Contains(t, results[0], "guard: cannot judge this command", diag)
				assert.Contains(t, results[0], lock, diag)
				assert.Contains(t, results[0], "Gemini CLI runs headless here (gemini -p): no one can approve, so guard refuses", diag)
			case agente2e.Codex:
				require.Len(t, results, 1, diag)
				assert.Contains(t, results[0], "Codex hooks cannot ask for approval, so guard refuses", diag)
			case agente2e.Claude:
				require.Len(t, results, 1, diag)
				t.Logf("claude's result: %s", results[0])
			}
		})
	}
}

// TestRealGeminiRunsProjectHooksOnlyInATrustedFolder: Gemini CLI reads a project's
// .gemini/settings.json only in a folder the user trusts, and `gemini --skip-trust`
// runs in an untrusted one without it: the write lands. agent-install and doctor say
// so; trusting the folder, or the hook in the user's settings, stops the write.
func TestRealGeminiRunsProjectHooksOnlyInATrustedFolder(t *testing.T) {
	bin := agente2e.CLI(t, agente2e.Gemini)
	t.Logf("driving %s", agente2e.Version(t, bin))
	home := t.TempDir()
	agente2e.WriteFile(t, filepath.Join(home, ".gemini", "settings.json"), agente2e.GeminiUserSettings)
	env := []string{"HOME=" + home}
	repo := ctRepo(t, map[string]string{"locked/a.go": "package a\n"})
	lock := ctWrite(t, repo, "locked/LOCK.txt", "owner: alice\n"+ctLive)
	_, errOut, code := ctRun(t, repo, env, "", "agent-install", "gemini")
	require.Equal(t, 0, code, errOut)
	settings := filepath.Join(repo, ".gemini", "settings.json")
	trustFile := filepath.Join(home, ".gemini", "trustedFolders.json")
	assert.Contains(t, errOut, "warning: Gemini CLI reads "+settings+" only in a folder it trusts, and "+repo+" is not trusted in "+trustFile)
	out, _, code := ctRun(t, repo, env, "", "doctor", "--json")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "gemini reads "+settings+" only in a trusted folder")

	// As a person runs it: no trust from the environment.
	untrusted := agente2e.Run{Dir: repo, Home: home, Env: []string{"GEMINI_CLI_TRUST_WORKSPACE="}}
	run := func(args ...string) []string {
		t.Helper()
		s := agente2e.NewServer(t, "echo agent > locked/new.txt")
		res := agente2e.RunGemini(t, s, untrusted, args...)
		require.NoError(t, res.Err, res.Stderr)
		return s.ToolResults()
	}
	run("--skip-trust")
	assert.FileExists(t, filepath.Join(repo, "locked", "new.txt"), "gemini ran a project hook in an untrusted folder: the warning may no longer be needed")
	require.NoError(t, os.Remove(filepath.Join(repo, "locked", "new.txt")))

	// The user trusts the folder.
	agente2e.WriteFile(t, trustFile, `{"`+repo+`": "TRUST_FOLDER"}`)
	out, _, _ = ctRun(t, repo, env, "", "doctor", "--json")
	assert.NotContains(t, out, "gemini reads")
	results := run()
	assert.NoFileExists(t, filepath.Join(repo, "locked", "new.txt"))
	require.Len(t, results, 1)
	assert.Contains(t, results[0], lock)

	// Or the hook is the user's: it runs in an untrusted folder too.
	require.NoError(t, os.Remove(trustFile))
	_, errOut, code = ctRun(t, repo, env, "", "agent-uninstall", "gemini")
	require.Equal(t, 0, code, errOut)
	_, errOut, code = ctRun(t, repo, env, "", "agent-install", "gemini", "--user")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, errOut, "warning")
	results = run("--skip-trust")
	assert.NoFileExists(t, filepath.Join(repo, "locked", "new.txt"))
	require.Len(t, results, 1)
	assert.Contains(t, results[0], lock)
}

// TestRealCodexTrustsOnlyTheProjectItself: Codex 0.171 decides a project's trust by
// the config.toml entry of the folder it runs in or of its git root, not of a folder
// above: with only the parent trusted it skips the project's hooks.json without a
// word and the write into the locked folder lands. doctor says so, and stops saying
// it once the project itself is trusted, when the hook runs again.
func TestRealCodexTrustsOnlyTheProjectItself(t *testing.T) {
	bin := agente2e.CLI(t, agente2e.Codex)
	t.Logf("driving %s", agente2e.Version(t, bin))
	home := t.TempDir()
	codexHome := agente2e.CodexHome(home)
	env := []string{"HOME=" + home, "CODEX_HOME=" + codexHome}
	s := agente2e.NewServer(t, "echo agent > locked/new.txt")
	repo := ctRepo(t, map[string]string{"locked/a.go": "package a\n", "free/x.txt": "x\n"})
	lock := ctWrite(t, repo, "locked/LOCK.txt", "owner: alice\npurpose: the parser rewrite\n"+ctLive)
	config := filepath.Join(codexHome, "config.toml")
	agente2e.WriteFile(t, config, agente2e.CodexConfig(s)+"\n[projects."+tomlQuote(filepath.Dir(repo))+"]\ntrust_level = \"trusted\"\n")
	out, errOut, code := ctRun(t, repo, env, "", "agent-install", "codex")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "installed ")
	assert.Contains(t, errOut, "Codex loads "+filepath.Join(repo, ".codex", "hooks.json")+" only in a project it trusts, and "+repo+" is not trusted in "+config)
	out, _, code = ctRun(t, repo, env, "", "doctor", "--json")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "codex loads "+filepath.Join(repo, ".codex", "hooks.json")+" only in a trusted project, and "+repo+" is not trusted in "+config)

	res := agente2e.RunCodex(t, s, agente2e.Run{Dir: repo, Home: home})
	require.NoError(t, res.Err)
	assert.FileExists(t, filepath.Join(repo, "locked", "new.txt"), "Codex ran the hook with only a parent folder trusted: doctor's rule may be too strict now\n%s", res.Stderr)
	require.NoError(t, os.Remove(filepath.Join(repo, "locked", "new.txt")))

	// The project itself trusted: doctor is content, and the hook runs.
	agente2e.WriteFile(t, config, ctRead(t, config)+"\n[projects."+tomlQuote(repo)+"]\ntrust_level = \"trusted\"\n")
	out, _, _ = ctRun(t, repo, env, "", "doctor", "--json")
	assert.NotContains(t, out, "codex")
	s2 := agente2e.NewServer(t, "echo agent > locked/new.txt")
	agente2e.WriteFile(t, config, strings.Replace(ctRead(t, config), s.URL, s2.URL, 1))
	res = agente2e.RunCodex(t, s2, agente2e.Run{Dir: repo, Home: home})
	require.NoError(t, res.Err)
	assert.NoFileExists(t, filepath.Join(repo, "locked", "new.txt"), res.Stderr)
	results := s2.ToolResults()
	require.Len(t, results, 1, s2.Log())
	assert.Contains(t, results[0], lock)
}

// TestRealGeminiAsksAPersonInItsInterface: in Gemini CLI's interactive interface (in a
// terminal, even with --approval-mode yolo), guard's ask for a command it cannot judge
// near alice's lock stops before the command runs and shows a person Gemini's own
// "Allow execution" dialog with guard's reason and the lock. Declining (Esc) leaves
// the locked folder untouched; allowing once runs the command: the person decides.
func TestRealGeminiAsksAPersonInItsInterface(t *testing.T) {
	bin := agente2e.CLI(t, agente2e.Gemini)
	t.Logf("driving %s", agente2e.Version(t, bin))
	for _, tc := range []struct {
		name, keys string
		runs       bool
	}{
		{"declined", "\x1b", false},
		{"allowed once", "\r", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			s := agente2e.NewServer(t, "touch $DEST/new.txt")
			repo, lock := e2eProject(t, agente2e.Gemini, home, s)
			// A target in a variable near alice's lock is asked about; allowed, it runs
			// (under guard sandbox: [agent] sandbox = "auto" rewrites it in yolo mode).
			created := filepath.Join(repo, "free", "new.txt")
			sess := agente2e.StartGeminiInteractive(t, s, agente2e.Run{Dir: repo, Home: home, Env: []string{"DEST=" + filepath.Join(repo, "free")}})
			if !sess.WaitFor("Allow execution of [Shell]?", 90*time.Second) {
				t.Fatalf("gemini showed no dialog:\n%s\nrequests:\n%s", sess.Output(), s.Log())
			}
			out := sess.Output()
			assert.Contains(t, out, "guard: cannot judge this command")
			assert.Contains(t, out, lock+" (held by alice)")
			assert.NoFileExists(t, created, "the command ran before anyone answered")
			sess.Type(tc.keys)
			if tc.runs {
				deadline := time.Now().Add(30 * time.Second)
				for time.Now().Before(deadline) {
					if _, err := os.Stat(created); err == nil {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				assert.FileExists(t, created, "allowed once, the command did not run:\n%s", sess.Output())
			} else {
				time.Sleep(3 * time.Second)
				assert.NoFileExists(t, created, "declined, the command ran:\n%s", sess.Output())
			}
			sess.Stop()
		})
	}
}
