package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAgentHookClosesTheGates runs a few of issue 11's examples through the built
// binary: a real repository, a real lock of alice's, the hook as Claude Code runs it.
func TestAgentHookClosesTheGates(t *testing.T) {
	repo := ctRepo(t, map[string]string{"locked/a.go": "package a\n", "free/x.txt": "x\n"})
	lock := ctWrite(t, repo, "locked/LOCK.txt", "owner: alice\n"+ctLive)
	require.NoError(t, os.Symlink("locked", filepath.Join(repo, "plink")))
	// What the hook reads, the same on every kernel: no sandbox rewrite or fallback.
	ctWrite(t, repo, ".guard.toml", "[agent]\nsandbox = false\n")
	cases := []struct {
		name, command, decision, contains string
	}{
		{"a removal before a process substitution", "rm -rf locked; cat <(true)", "deny", lock},
		{"a brace expansion", "touch {locked,free}/x", "deny", lock},
		{"a pattern in a folder name", "echo x > lock?d/a.go", "deny", lock},
		{"sudo with grouped options", "sudo -nu root rm -rf locked", "deny", lock},
		{"a here-document fed to bash", "bash <<'EOF'\nrm -rf locked\nEOF", "deny", lock},
		{"rm -rf through a link", "rm -rf plink/", "deny", lock},
		{"tar -x -C", "tar -xf a.tar -C locked", "deny", lock},
		{"a variable target near the lock", "rm -rf $TARGET", "ask", "cannot judge"},
		{"a command too long to read", "echo " + strings.Repeat("x", 1<<20), "ask", lock},
		{"ordinary work", "git status && go build ./... && echo ok > free/ok.txt", "", ""},
		{"interpreter code with the sandbox off", "python3 -c 'print(1)'", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := ctRun(t, repo, []string{"GUARD_OWNER=bob"}, ctHookInput(t, "Bash", map[string]any{"command": c.command}, repo, "s1"), "agent-hook", "claude")
			require.Equal(t, 0, code, errOut)
			decision, reason := ctDecision(t, out)
			assert.Equal(t, c.decision, decision, out)
			assert.Contains(t, reason, c.contains)
		})
	}
	// [agent] strict in the project's .guard.toml asks before interpreter code.
	ctWrite(t, repo, ".guard.toml", "[agent]\nsandbox = false\nstrict = true\n")
	out, errOut, code := ctRun(t, repo, []string{"GUARD_OWNER=bob"}, ctHookInput(t, "Bash", map[string]any{"command": "python3 -c 'print(1)'"}, repo, "s1"), "agent-hook", "claude")
	require.Equal(t, 0, code, errOut)
	decision, reason := ctDecision(t, out)
	assert.Equal(t, "ask", decision, out)
	assert.Contains(t, reason, "[agent] strict")
	assert.Contains(t, reason, lock)
}
