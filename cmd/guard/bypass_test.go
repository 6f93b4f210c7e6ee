package main

import (
	"encoding/json"
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

// bypassLines reads a bypass log's entries.
func bypassLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		out = append(out, e)
	}
	return out
}

func TestAuditYieldsToGUARD_BYPASSOnlyWithARecord(t *testing.T) {
	srv := fakeGitHubAPI(t)
	host := strings.Split(strings.TrimPrefix(srv.URL, "http://"), ":")[0]
	root := t.TempDir()
	clone := filepath.Join(root, "open")
	require.NoError(t, os.MkdirAll(clone, 0o755))
	guardtest.Git(t, clone, "init", "-q")
	guardtest.Git(t, clone, "remote", "add", "origin", "git@"+host+":acme/open.git")
	require.NoError(t, os.WriteFile(filepath.Join(clone, "PRIVATE.txt"), nil, 0o644))
	args := []string{"audit", "github", "--owner", "acme", "--api-url", srv.URL + "/api/v3/", root}

	state := "XDG_STATE_HOME=" + t.TempDir()
	stdout, stderr, code := runGuard(t, root, []string{state, "GUARD_BYPASS=made public on purpose, PRIVATE.txt goes next"}, args...)

	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "violation", "the verdict is still reported")
	assert.Contains(t, stderr, "guard: violation: acme/open is public")
	log := filepath.Join(clone, ".git", "guard", "bypass.log")
	assert.Contains(t, stderr, `GUARD_BYPASS set ("made public on purpose, PRIVATE.txt goes next"): not failing for 1 verdict(s); recorded in `+log)
	entries := bypassLines(t, log)
	require.Len(t, entries, 1)
	assert.Equal(t, "audit", entries[0]["hook"])
	assert.Equal(t, "made public on purpose, PRIVATE.txt goes next", entries[0]["reason"])
	assert.Equal(t, true, entries[0]["refused"])
	assert.Contains(t, entries[0]["blocking"].([]any)[0].(map[string]any)["reason"], "acme/open is public")
	out, stderr, code := runGuard(t, root, []string{state}, "history", "--json", "--event", "bypassed")
	require.Equal(t, 0, code, stderr)
	var evs []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &evs), out)
	require.Len(t, evs, 1, out)
	assert.Equal(t, clone, evs[0]["path"])
	assert.Contains(t, evs[0]["detail"], "audit: GUARD_BYPASS")

	// No place for the record: the bypass does not happen (fail closed).
	require.NoError(t, os.RemoveAll(filepath.Join(clone, ".git", "guard")))
	require.NoError(t, os.WriteFile(filepath.Join(clone, ".git", "guard"), []byte("not a folder"), 0o644))
	_, stderr, code = runGuard(t, root, []string{"GUARD_BYPASS=again"}, args...)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "GUARD_BYPASS is set but the bypass cannot be recorded")
}

func TestPrePushRecordsLockAndVisibilityRefusalsAsOneBypass(t *testing.T) {
	srv := fakeGitHubAPI(t)
	host := strings.Split(strings.TrimPrefix(srv.URL, "http://"), ":")[0]
	repo := t.TempDir()
	guardtest.Git(t, repo, "init", "-q", "-b", "main")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "locked"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "locked", "a.txt"), []byte("a\n"), 0o644))
	guardtest.Git(t, repo, "add", "locked/a.txt")
	guardtest.Git(t, repo, "commit", "-q", "-m", "a")
	sha := guardtest.Git(t, repo, "rev-parse", "HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "locked", "LOCK.txt"), []byte("owner: bob\nexpires_after: 24h\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "PRIVATE.txt"), []byte("until the paper is out\n"), 0o644))
	url := "https://" + host + "/acme/open.git"

	cmd := exec.Command(guardBin, "hook", "pre-push", "origin", url)
	cmd.Dir = repo
	cmd.Env = []string{"PATH=" + testenv.Path(), "HOME=" + repo, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GITHUB_API_URL=" + srv.URL + "/api/v3", "GUARD_OWNER=alice", "GUARD_BYPASS=legal said yes"}
	cmd.Stdin = strings.NewReader("refs/heads/main " + sha + " refs/heads/main " + strings.Repeat("0", 40) + "\n")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	assert.Contains(t, string(out), "held by bob")
	assert.Contains(t, string(out), "pre-push refused: acme/open is PUBLIC on "+host)
	entries := bypassLines(t, filepath.Join(repo, ".git", "guard", "bypass.log"))
	require.Len(t, entries, 1, "one push, one bypass, one record")
	assert.Equal(t, "pre-push", entries[0]["hook"])
	assert.Equal(t, url, entries[0]["url"])
	var reasons []string
	for _, b := range entries[0]["blocking"].([]any) {
		reasons = append(reasons, b.(map[string]any)["reason"].(string))
	}
	require.Len(t, reasons, 2, "%v", reasons)
	assert.Contains(t, reasons[1], "acme/open is PUBLIC")
}
