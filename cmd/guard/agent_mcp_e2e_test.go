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

// TestRealAgentsClaimWaitAndReleaseThroughGuardMCP drives two sessions of the real
// Claude Code, Gemini CLI and Codex at once, offline, in one project set up by `guard
// agent-install` (hooks with claim on write, the SessionEnd release, guard mcp
// registered in the client's own format). The first agent's scripted turn claims
// src through guard mcp's lock tool: the lock file appears with the agent's session
// as owner, and its own write into src is let through (one identity for the hook and
// the server). A second agent's write into src is refused by the hook, naming the
// claim and offering the wait tool; its wait returns once the first session ends,
// whose SessionEnd hook releases the claim; then its write goes through.
//
// Codex has no session-end event guard can use: its first agent releases the claim
// with guard mcp's unlock tool instead. Codex offers MCP tools to the models it knows
// only through its tool_search, which the fake model does not play, so its sessions
// run as agente2e.CodexToolModel, to which Codex offers them directly.
func TestRealAgentsClaimWaitAndReleaseThroughGuardMCP(t *testing.T) {
	for _, name := range []string{agente2e.Claude, agente2e.Gemini, agente2e.Codex} {
		t.Run(name, func(t *testing.T) {
			bin := agente2e.CLI(t, name)
			t.Logf("driving %s", agente2e.Version(t, bin))
			home := t.TempDir()
			repo := ctRepo(t, map[string]string{"src/a.go": "package a\n", "free/x.txt": "x\n"})
			env := []string{"HOME=" + home}
			if name == agente2e.Codex {
				// The user trusts the project: Codex loads its hooks.json only then.
				agente2e.WriteFile(t, filepath.Join(agente2e.CodexHome(home), "config.toml"),
					agente2e.CodexConfig(agente2e.NewScript(t))+"\n[projects."+tomlQuote(repo)+"]\ntrust_level = \"trusted\"\n")
				env = append(env, "CODEX_HOME="+agente2e.CodexHome(home))
			}
			_, errOut, code := ctRun(t, repo, env, "", "agent-install", name)
			require.Equal(t, 0, code, errOut)
			lock := filepath.Join(repo, "src", "LOCK.txt")

			firstSteps := []agente2e.Step{
				{Tool: "lock", Args: map[string]any{"path": "src", "purpose": "the parser rewrite", "expires": "1h"}},
				{Command: "echo first > src/first.txt"},
				// Holds the session open while the second agent runs into the claim.
				{Command: "timeout 180 sh -c 'until [ -e " + filepath.Join(repo, "free", ".second-waits") + " ]; do sleep 0.2; done'; sleep 8"},
			}
			if name == agente2e.Codex {
				firstSteps = append(firstSteps, agente2e.Step{Tool: "unlock", Args: map[string]any{"path": "src"}})
			}
			first := agente2e.NewScript(t, firstSteps...)
			second := agente2e.NewScript(t,
				agente2e.Step{Command: "echo second > src/second.txt"},
				agente2e.Step{Command: "touch free/.second-waits"},
				agente2e.Step{Tool: "wait", Args: map[string]any{"path": "src/second.txt", "timeout": 120}},
				agente2e.Step{Command: "echo second > src/second.txt"},
			)
			run := func(s *agente2e.Server) agente2e.Result {
				r := agente2e.Run{Dir: repo, Home: home, Timeout: 4 * time.Minute, Allow: []string{"mcp__guard"},
					// Claude Code defers MCP tools behind its ToolSearch, which the fake model
					// does not play: load them up front.
					Env: []string{"ENABLE_TOOL_SEARCH=false"}, Model: agente2e.CodexToolModel}
				return e2eRun(t, name, s, r)
			}
			firstDone := make(chan agente2e.Result, 1)
			var firstEnd time.Time
			go func() {
				res := run(first)
				firstEnd = time.Now()
				firstDone <- res
			}()

			// The claim appears, owned by the first session.
			var owner string
			for i := 0; i < 600 && owner == ""; i++ {
				if data, err := os.ReadFile(lock); err == nil {
					for _, line := range strings.Split(string(data), "\n") {
						if o, ok := strings.CutPrefix(line, "owner: "); ok {
							owner = o
						}
					}
				}
				select {
				case res := <-firstDone:
					t.Fatalf("the first agent ended before its claim appeared: exit %d %v\nstdout: %s\nstderr: %s\nrequests:\n%s", res.Code, res.Err, res.Stdout, res.Stderr, first.Log())
				case <-time.After(200 * time.Millisecond):
				}
			}
			require.NotEmpty(t, owner, "no claim appeared\nrequests:\n%s", first.Log())
			assert.NotContains(t, owner, "@", "the claim is the session's, not guard's usual identity")
			assert.Contains(t, ctRead(t, lock), "purpose: the parser rewrite")

			secondRes := run(second)
			firstRes := <-firstDone
			hist, _, _ := ctRun(t, repo, env, "", "history", "--limit", "40")
			sessions, _ := os.ReadDir(filepath.Join(home, ".local", "state", "guard", "agent-sessions"))
			for _, e := range sessions {
				data, _ := os.ReadFile(filepath.Join(home, ".local", "state", "guard", "agent-sessions", e.Name()))
				hist += "\nsession record " + e.Name() + ": " + string(data)
			}
			diag := func(label string, s *agente2e.Server, res agente2e.Result) string {
				return "history:\n" + hist + "\n" + label + ": exit " + strconv.Itoa(res.Code) + "\nstdout: " + res.Stdout + "\nstderr: " + res.Stderr + "\nrequests:\n" + s.Log()
			}
			require.NoError(t, firstRes.Err, diag("first", first, firstRes))
			require.NoError(t, secondRes.Err, diag("second", second, secondRes))

			fr := first.ToolResults()
			require.GreaterOrEqual(t, len(fr), 2, diag("first", first, firstRes))
			assert.Regexp(t, `"action":\s*"created"`, fr[0], "the lock tool returned guard lock --json")
			assert.Equal(t, "first\n", ctRead(t, filepath.Join(repo, "src", "first.txt")), "its own claim never refuses its own write\n%s", diag("first", first, firstRes))

			sr := second.ToolResults()
			require.Len(t, sr, 4, diag("second", second, secondRes))
			assert.Contains(t, sr[0], lock, "the refusal names the claim")
			assert.Contains(t, sr[0], owner, "and its holder")
			assert.Contains(t, sr[0], "call guard's MCP tool `wait`", "and offers waiting")
			assert.NotContains(t, sr[0], "--force")
			assert.Regexp(t, `"timed_out":\s*false`, sr[2], "the wait returned because the claim went")
			assert.Equal(t, "second\n", ctRead(t, filepath.Join(repo, "src", "second.txt")), diag("second", second, secondRes))
			assert.False(t, firstEnd.IsZero())

			if name == agente2e.Codex {
				// The first agent's unlock released its claim. The second's write then
				// claimed src for the second session (claim on write), and with no
				// session-end event that claim stays until it expires.
				require.Len(t, fr, 4, diag("first", first, firstRes))
				assert.Regexp(t, `"removed":\s*true`, fr[3], "the unlock tool returned guard unlock --json")
				assert.Contains(t, fr[3], owner)
				remains := ctRead(t, lock)
				assert.NotContains(t, remains, "owner: "+owner+"\n", "the first session's claim is gone")
				assert.Contains(t, remains, "owner: ", "the second session's claim on write")
			} else {
				// The sessions' ends released their claims: the first's, then the
				// second's claim on write.
				assert.NoFileExists(t, lock, "the SessionEnd hook released the claims")
			}
			assert.Equal(t, 0, firstRes.Code, diag("first", first, firstRes))
			assert.Equal(t, 0, secondRes.Code, diag("second", second, secondRes))
			if t.Failed() {
				t.Logf("first's results: %q\nsecond's results: %q\nfirst ended %s", first.ToolResults(), second.ToolResults(), firstEnd)
			}
		})
	}
}
