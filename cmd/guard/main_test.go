package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

// guardBin is the guard binary of the end-to-end tests of this package
// (guardtest.Binary: built once per go test run, shared with the other packages).
var guardBin string

func TestMain(m *testing.M) {
	bin, err := guardtest.BuildBinary()
	if err != nil {
		panic(err)
	}
	guardBin = bin
	os.Exit(m.Run())
}

// runGuard runs the built binary in dir with a clean, pinned environment.
func runGuard(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(guardBin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + testenv.Path(), "HOME=" + t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "NO_COLOR=1"}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errb.String(), code
}

func TestVersionPrintsWhatTheLinkerInjected(t *testing.T) {
	out, _, code := runGuard(t, t.TempDir(), nil, "version")
	assert.Equal(t, 0, code)
	assert.Equal(t, "guard 1.2.3 (commit abc1234, built 2026-11-29)\n", out)
}

func TestEveryCommandHasHelp(t *testing.T) {
	root := newRootCmd(processEnv(), buildInfo{})
	for _, c := range root.Commands() {
		name := strings.Fields(c.Use)[0]
		t.Run(name, func(t *testing.T) {
			out, _, code := runGuard(t, t.TempDir(), nil, name, "--help")
			assert.Equal(t, 0, code)
			assert.Contains(t, out, "Usage:")
		})
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		out, _, code := runGuard(t, t.TempDir(), nil, "completion", sh)
		assert.Equal(t, 0, code, sh)
		assert.NotEmpty(t, out, sh)
	}
}

func TestUnknownFlagIsAUsageError(t *testing.T) {
	_, stderr, code := runGuard(t, t.TempDir(), nil, "check", "--no-such-flag", "x")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "unknown flag: --no-such-flag")
}

func TestCheckEndToEnd(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
	lock := filepath.Join(root, "src", "LOCK.txt")
	require.NoError(t, os.WriteFile(lock, []byte("owner: alice\ncreated: 2099-01-01T00:00:00\npurpose: refactor\n"), 0o644))

	_, stderr, code := runGuard(t, root, []string{"GUARD_OWNER=bob"}, "check", "src/a.go")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "guard: refused edit: 1 path(s) blocked")
	assert.Contains(t, stderr, "held by alice")
	assert.Contains(t, stderr, "purpose: refactor")

	_, _, code = runGuard(t, root, []string{"GUARD_OWNER=alice"}, "check", "src/a.go")
	assert.Equal(t, 0, code)

	out, _, code := runGuard(t, root, []string{"GUARD_OWNER=bob"}, "check", "--json", "README.md")
	assert.Equal(t, 0, code)
	assert.JSONEq(t, `{"op":"edit","allowed":true,"ok":true,"blocking":[],"warnings":[]}`, out)
}
