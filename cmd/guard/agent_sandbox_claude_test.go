package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/agente2e"
)

// TestRealClaudeCodeRunsBashCommandsInTheKernelSandbox drives the real Claude Code
// (installed by .ci/setup-agent-clis) offline with `guard agent-install claude
// --sandbox`. The fake model asks for a program guard cannot read (python) that
// writes into alice's locked folder and into a free one: the hook rewrites it to run
// under guard sandbox, Claude Code runs the rewritten command, and the kernel refuses
// the locked write (EROFS in the exact sandbox, EACCES under Landlock alone) while the free one lands. A project allow rule names the
// original, so the hook answers allow and no prompt is needed; a command only the rule
// on Claude Code's command line names (RunClaude's --allowedTools Bash, which the hook
// reads from its parent process) is allowed too, and runs sandboxed; a plain write into
// the locked folder is still denied by the hook itself. (A command no rule names is
// answered ask: TestHookSandboxDecisions.)
func TestRealClaudeCodeRunsBashCommandsInTheKernelSandbox(t *testing.T) {
	sbNeedLandlock(t)
	bin := agente2e.CLI(t, agente2e.Claude)
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3 for the program guard cannot read")
	}
	if _, err := os.Stat(claudeManagedSettings()); err == nil {
		t.Skipf("%s exists on this machine: its rules would change what the hook answers", claudeManagedSettings())
	}
	t.Logf("driving %s", agente2e.Version(t, bin))
	home := t.TempDir()
	tools := t.TempDir()
	probe := filepath.Join(tools, "probe.py")
	ctWrite(t, tools, "probe.py", `import errno, sys
for p in sys.argv[1:]:
    try:
        open(p, 'w').write('agent\n')
        print(p, 'written')
    except OSError as e:
        print(p, errno.errorcode[e.errno])
`)
	sandboxed := "python3 " + probe + " locked/new.txt free/new.txt"
	unruled := "sh -c 'python3 " + probe + " locked/unruled.txt free/unruled.txt'"
	s := agente2e.NewServer(t, sandboxed, unruled, "echo agent > locked/direct.txt")
	repo := ctRepo(t, map[string]string{"locked/a.go": "package a\n", "free/x.txt": "x\n"})
	lock := ctWrite(t, repo, "locked/LOCK.txt", "owner: alice\npurpose: the parser rewrite\n"+ctLive)
	ctWrite(t, repo, ".claude/settings.local.json", `{"permissions": {"allow": ["Bash(python3 *)", "Bash(echo *)"]}}`)
	out, errOut, code := ctRun(t, repo, []string{"HOME=" + home}, "", "agent-install", "claude", "--sandbox")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "installed ")

	res := agente2e.RunClaude(t, s, agente2e.Run{Dir: repo, Home: home, Env: []string{"GUARD_HOST=box1"}})
	diag := "exit " + strconv.Itoa(res.Code) + "\nstdout: " + res.Stdout + "\nstderr: " + res.Stderr + "\nrequests:\n" + s.Log()
	require.NoError(t, res.Err, diag)

	results := s.ToolResults()
	require.Len(t, results, 3, diag)
	// The rewritten command ran: the kernel refused the write into alice's folder.
	assert.Contains(t, results[0], "locked/new.txt "+sbDenied(), diag)
	assert.Contains(t, results[0], "free/new.txt written", diag)
	assert.NoFileExists(t, filepath.Join(repo, "locked", "new.txt"), diag)
	assert.Equal(t, "agent\n", ctRead(t, filepath.Join(repo, "free", "new.txt")))
	// Only Claude Code's command line names the second command: it ran, sandboxed.
	assert.Contains(t, results[1], "locked/unruled.txt "+sbDenied(), diag)
	assert.Contains(t, results[1], "free/unruled.txt written", diag)
	assert.NoFileExists(t, filepath.Join(repo, "locked", "unruled.txt"), diag)
	// The plain write is the hook's own denial, naming the lock.
	assert.Contains(t, results[2], lock, diag)
	assert.Contains(t, results[2], "alice", diag)
	assert.NoFileExists(t, filepath.Join(repo, "locked", "direct.txt"), diag)
}
