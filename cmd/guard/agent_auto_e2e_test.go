package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/agente2e"
)

// TestRealAgentsRunShellCommandsSandboxed drives the real Claude Code, Gemini CLI and
// Codex offline with the hook agent-install wrote and no [agent] settings
// (sandbox = "auto"): every shell command comes back rewritten to run under guard
// sandbox. Python code writing into alice's locked folder, which the hook cannot read,
// is stopped by the kernel (the file keeps its content); an ordinary build in the
// same project, writing into a free subfolder and into the project root beside the
// locked folder, succeeds.
func TestRealAgentsRunShellCommandsSandboxed(t *testing.T) {
	python, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Skipf("no /usr/bin/python3: %v", err)
	}
	write := python + ` -c "open('locked/a.go', 'w').write('agent')"`
	const build = "sh build.sh"
	for _, name := range []string{agente2e.Claude, agente2e.Gemini, agente2e.Codex} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bin := agente2e.CLI(t, name)
			t.Logf("driving %s", agente2e.Version(t, bin))
			home := t.TempDir()
			s := agente2e.NewServer(t, write, build)
			repo, _ := e2eProject(t, name, home, s)
			ctWrite(t, repo, "build.sh", "set -e\nmkdir -p out\necho built > out/bin.txt\necho stamp > BUILD_STAMP\necho ok\n")
			res := e2eRun(t, name, s, agente2e.Run{Dir: repo, Home: home})
			diag := "exit " + strconv.Itoa(res.Code) + "\nstdout: " + res.Stdout + "\nstderr: " + res.Stderr + "\nrequests:\n" + s.Log()
			require.NoError(t, res.Err, diag)

			assert.Equal(t, "package a\n", ctRead(t, filepath.Join(repo, "locked", "a.go")), "the python write into the locked folder happened\n%s", diag)
			data, err := os.ReadFile(filepath.Join(repo, "out", "bin.txt"))
			assert.NoError(t, err, diag)
			assert.Equal(t, "built\n", string(data), diag)
			data, err = os.ReadFile(filepath.Join(repo, "BUILD_STAMP"))
			assert.NoError(t, err, "the build could not write into the project root beside the locked folder\n%s", diag)
			assert.Equal(t, "stamp\n", string(data), diag)

			results := s.ToolResults()
			require.Len(t, results, 2, diag)
			assert.Regexp(t, `Read-only file system|Permission denied`, results[0], "the python write did not fail in the kernel\n%s", diag)
			assert.Contains(t, results[1], "ok", diag)
			assert.Equal(t, 0, res.Code, diag)
		})
	}
}
