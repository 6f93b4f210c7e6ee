package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
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

// fakeGitHubAPI serves the few Enterprise REST endpoints the audit and the pre-push
// visibility check use: acme is an organisation with a public and a private
// repository.
func fakeGitHubAPI(t *testing.T) *httptest.Server {
	repo := func(host, name, vis string) map[string]any {
		return map[string]any{"full_name": "acme/" + name, "private": vis != "public", "visibility": vis,
			"clone_url": "http://" + host + "/acme/" + name + ".git"}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v3/users/acme":
			_ = json.NewEncoder(w).Encode(map[string]any{"login": "acme", "type": "Organization"})
		case "/api/v3/orgs/acme/repos":
			_ = json.NewEncoder(w).Encode([]any{repo(r.Host, "open", "public"), repo(r.Host, "closed", "private")})
		case "/api/v3/repos/acme/open":
			_ = json.NewEncoder(w).Encode(repo(r.Host, "open", "public"))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message": "Not Found"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAuditGitHubEndToEnd(t *testing.T) {
	srv := fakeGitHubAPI(t)
	host := strings.Split(strings.TrimPrefix(srv.URL, "http://"), ":")[0]
	root := t.TempDir()
	clone := filepath.Join(root, "open")
	require.NoError(t, os.MkdirAll(clone, 0o755))
	guardtest.Git(t, clone, "init", "-q")
	guardtest.Git(t, clone, "remote", "add", "origin", "git@"+host+":acme/open.git")
	require.NoError(t, os.WriteFile(filepath.Join(clone, "PRIVATE.txt"), nil, 0o644))

	stdout, stderr, code := runGuard(t, root, []string{"GH_TOKEN=t"}, "audit", "github", "--owner", "acme", "--api-url", srv.URL+"/api/v3/", "--json", root)
	assert.Equal(t, 1, code, stderr)
	var rep struct {
		Repositories []map[string]any `json:"repositories"`
		Incomplete   bool             `json:"incomplete"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	assert.False(t, rep.Incomplete)
	require.Len(t, rep.Repositories, 2)
	assert.Equal(t, map[string]any{"full_name": "acme/closed", "visibility": "private", "local_path": nil, "markers": []any{}, "verdict": "not-cloned"}, rep.Repositories[0])
	assert.Equal(t, map[string]any{"full_name": "acme/open", "visibility": "public", "local_path": clone, "markers": []any{"PRIVATE.txt"}, "verdict": "violation"}, rep.Repositories[1])
	assert.Contains(t, stderr, "guard: violation: acme/open is public")

	_, stderr, code = runGuard(t, root, nil, "audit", "github", "--api-url", srv.URL)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "no owner to audit")

	_, _, code = runGuard(t, root, nil, "audit")
	assert.Equal(t, 2, code, "audit needs a subcommand")
}

func TestPrePushRefusesPushingAPrivateProjectToAPublicRepository(t *testing.T) {
	srv := fakeGitHubAPI(t)
	host := strings.Split(strings.TrimPrefix(srv.URL, "http://"), ":")[0]
	repo := t.TempDir()
	guardtest.Git(t, repo, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644))
	guardtest.Git(t, repo, "add", "a.txt")
	guardtest.Git(t, repo, "commit", "-q", "-m", "a")
	sha := guardtest.Git(t, repo, "rev-parse", "HEAD")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "PRIVATE.txt"), []byte("until the paper is out\n"), 0o644))
	refLine := "refs/heads/main " + sha + " refs/heads/main " + strings.Repeat("0", 40) + "\n"
	env := []string{"GITHUB_API_URL=" + srv.URL + "/api/v3", "GUARD_OWNER=alice"}

	run := func(url string, extra ...string) (string, int) {
		cmd := exec.Command(guardBin, "hook", "pre-push", "origin", url)
		cmd.Dir = repo
		cmd.Env = append(append([]string{"PATH=" + testenv.Path(), "HOME=" + repo, "GIT_CONFIG_GLOBAL=/dev/null"}, env...), extra...)
		cmd.Stdin = strings.NewReader(refLine)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	out, code := run("https://" + host + "/acme/open.git")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "pre-push refused: acme/open is PUBLIC on "+host)
	assert.Contains(t, out, "until the paper is out")

	out, code = run("https://"+host+"/acme/open.git", "GUARD_BYPASS=release approved by legal")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "GUARD_BYPASS set")
	data, err := os.ReadFile(filepath.Join(repo, ".git", "guard", "bypass.log"))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"reason":"release approved by legal"`)

	out, code = run("https://" + host + "/acme/closed.git")
	assert.Equal(t, 0, code, "a repository GitHub does not show is not public: %s", out)
	assert.Empty(t, out)
}
