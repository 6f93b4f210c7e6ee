package main

// Helpers of the contract tests (contract_*_test.go): they drive the built binary
// (guardBin) the way a user does and check each promise of CONTRACT.md.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

// ctLive and ctDead are created lines far in the future and far in the past, so
// that expiry never depends on the wall clock of the test run.
const (
	ctLive = "created: 2099-01-01T00:00:00\n"
	ctDead = "created: 2000-01-01T00:00:00\n"
)

// ctRun runs the guard binary in dir with a pinned environment and optional stdin.
func ctRun(t *testing.T, dir string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(guardBin, args...)
	cmd.Dir = dir
	cmd.Env = ctEnv(t, env)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errb.String(), 0
}

// ctEnv is the pinned environment of ctRun, plus env.
func ctEnv(t *testing.T, env []string) []string {
	return append([]string{"PATH=" + testenv.Path(), "HOME=" + t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_NOSYSTEM=1", "NO_COLOR=1", "TZ=UTC", "GUARD_HOST=box1"}, env...)
}

// ctWrite writes content to dir/rel, creating the folders on the way.
func ctWrite(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// ctMkdir creates dir/rel and returns its path.
func ctMkdir(t *testing.T, dir, rel string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(p, 0o755))
	return p
}

// ctRead returns the content of a file.
func ctRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// ctRepo creates a git repository on branch main with one commit of the given files.
func ctRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	guardtest.Git(t, dir, "init", "-q", "-b", "main")
	for rel, content := range files {
		ctWrite(t, dir, rel, content)
	}
	guardtest.Git(t, dir, "add", "-A")
	guardtest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "initial")
	return dir
}

// ctLocks decodes a `guard scan --json` answer.
func ctLocks(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var locks []map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &locks), stdout)
	return locks
}

// ctObject decodes one JSON object.
func ctObject(t *testing.T, stdout string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &m), stdout)
	return m
}

// ctKeys lists the keys of a JSON object, sorted.
func ctKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ctScanOne scans dir (with --all) and returns the single lock object it reports.
func ctScanOne(t *testing.T, dir string) map[string]any {
	t.Helper()
	out, errOut, code := ctRun(t, dir, nil, "", "scan", "--all", "--json", dir)
	require.Equal(t, 0, code, errOut)
	locks := ctLocks(t, out)
	require.Len(t, locks, 1, out)
	return locks[0]
}

// ctLockObjectKeys are the keys CONTRACT.md promises in every lock object.
var ctLockObjectKeys = []string{"path", "name", "kind", "scope", "host", "owner", "created", "created_source",
	"expires_at", "expired", "mode", "operations", "release_condition", "purpose"}
