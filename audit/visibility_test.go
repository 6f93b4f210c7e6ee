package audit

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/lockcore"
)

type visRun struct {
	warning string
	code    int
	msg     string
}

func pushCheck(t *testing.T, dir, url string, vars map[string]string, now time.Time, timeout time.Duration) visRun {
	t.Helper()
	env, _, _ := testEnv(dir, vars)
	env.Clock = lockcore.FixedClock(now)
	w, err := PushVisibility(context.Background(), VisibilityOptions{Env: env, Dir: dir, RemoteURL: url, Timeout: timeout})
	r := visRun{warning: w, code: exitcode.Of(err)}
	if err != nil {
		var oe *guard.OutcomeError
		require.True(t, errors.As(err, &oe), "PushVisibility returns *guard.OutcomeError, got %T", err)
		r.msg = err.Error()
	}
	return r
}

func visWorld(t *testing.T, markers ...string) (*fakeGitHub, string, string) {
	t.Helper()
	gh := newFakeGitHub(t, "/api/v3/")
	gh.users["acme"] = "Organization"
	gh.repos["acme"] = []fakeRepo{{"open", "public"}, {"closed", "private"}, {"corp", "internal"}}
	dir := t.TempDir()
	guardtest.Git(t, dir, "init", "-q")
	for _, m := range markers {
		require.NoError(t, os.WriteFile(filepath.Join(dir, m), []byte("not before the paper is out\n"), 0o644))
	}
	host := strings.Split(strings.TrimPrefix(gh.srv.URL, "http://"), ":")[0]
	return gh, dir, host
}

func TestPushVisibility(t *testing.T) {
	tests := []struct {
		name     string
		markers  []string
		repo     string
		token    string
		strict   bool
		wantCode int
		wantMsg  string
		wantWarn string
	}{
		{"a PRIVATE.txt project pushed to a public repository is refused", []string{"PRIVATE.txt"}, "acme/open", "", false, 1,
			"pre-push refused: acme/open is PUBLIC on HOST, but DIR/PRIVATE.txt says this project must not be published.\n  PRIVATE.txt says:\n    not before the paper is out\n", ""},
		{"both markers still refuse: PRIVATE.txt wins", []string{"PRIVATE.txt", "PUBLIC.txt"}, "acme/open", "", false, 1, "pre-push refused: acme/open is PUBLIC", ""},
		{"a private repository passes", []string{"PRIVATE.txt"}, "acme/closed", "tok", false, 0, "", ""},
		{"a repository GitHub does not show (404) is not public and passes", []string{"PRIVATE.txt"}, "acme/closed", "", false, 0, "", ""},
		{"an internal repository passes: it is not public", []string{"PRIVATE.txt"}, "acme/corp", "tok", false, 0, "", ""},
		{"without PRIVATE.txt nothing is asked", nil, "acme/open", "", false, 0, "", ""},
		{"a rejected token leaves the visibility unknown: a warning", []string{"PRIVATE.txt"}, "acme/open", "bad", false, 0, "",
			"guard: warning: could not learn whether HOST/acme/open is public (GitHub answered 401 Unauthorized); DIR/PRIVATE.txt forbids pushing"},
		{"with strict an unknown visibility is refused", []string{"PRIVATE.txt"}, "acme/open", "bad", true, 1,
			"pre-push refused: DIR has PRIVATE.txt (DIR/PRIVATE.txt) and the visibility of HOST/acme/open could not be learnt (GitHub answered 401 Unauthorized)", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gh, dir, host := visWorld(t, tc.markers...)
			gh.token = "tok"
			if tc.strict {
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".guard.toml"), []byte("[github]\nstrict = true\n"), 0o644))
			}
			vars := map[string]string{"GITHUB_API_URL": gh.srv.URL + "/api/v3", "GH_TOKEN": tc.token}
			r := pushCheck(t, dir, "git@"+host+":acme/"+strings.TrimPrefix(tc.repo, "acme/")+".git", vars, pinned, time.Second)
			expand := func(s string) string { return strings.NewReplacer("HOST", host, "DIR", dir).Replace(s) }
			assert.Equal(t, tc.wantCode, r.code, r.msg)
			if tc.wantMsg != "" {
				assert.Contains(t, r.msg, expand(tc.wantMsg))
			}
			if tc.wantWarn == "" {
				assert.Empty(t, r.warning)
			} else {
				assert.Contains(t, r.warning, expand(tc.wantWarn))
			}
			if tc.markers == nil {
				assert.Empty(t, gh.requestLog(), "no PRIVATE.txt, no request")
			}
		})
	}
}

func TestPushVisibilityIgnoresRemotesThatAreNotGitHub(t *testing.T) {
	gh, dir, _ := visWorld(t, "PRIVATE.txt")
	vars := map[string]string{"GITHUB_API_URL": gh.apiURL()}
	for _, url := range []string{"/srv/git/project.git", "file:///srv/git/project.git", "git@gitlab.example.com:acme/open.git"} {
		r := pushCheck(t, dir, url, vars, pinned, time.Second)
		assert.Equal(t, visRun{}, r, url)
	}
	assert.Empty(t, gh.requestLog())
}

func TestPushVisibilityAsksTheConfiguredAPIForGitHubComRemotes(t *testing.T) {
	gh, dir, _ := visWorld(t, "PRIVATE.txt")
	r := pushCheck(t, dir, "https://github.com/acme/open.git", map[string]string{"GITHUB_API_URL": gh.srv.URL + "/api/v3"}, pinned, time.Second)
	assert.Equal(t, 1, r.code, r.msg)
	assert.Contains(t, r.msg, "pre-push refused: acme/open is PUBLIC on github.com")
	assert.Equal(t, []string{"/api/v3/repos/acme/open"}, gh.requestLog())
}

func TestPushVisibilityNeverWaitsForARateLimit(t *testing.T) {
	gh, dir, host := visWorld(t, "PRIVATE.txt")
	gh.script["repos/acme/open"] = []func(http.ResponseWriter){func(w http.ResponseWriter) {
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "API rate limit exceeded"})
	}}
	start := time.Now()
	r := pushCheck(t, dir, "https://"+host+"/acme/open", map[string]string{"GITHUB_API_URL": gh.apiURL()}, pinned, time.Second)
	assert.Less(t, time.Since(start), time.Second)
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.warning, "could not learn whether "+host+"/acme/open is public (GitHub's rate limit is exhausted)")
	_, err := os.Stat(filepath.Join(dir, ".git", "guard", "visibility.json"))
	assert.True(t, os.IsNotExist(err), "an unknown answer is not cached")
}

func TestPushVisibilityIsBoundedInTime(t *testing.T) {
	_, dir, _ := visWorld(t, "PRIVATE.txt")
	release := make(chan struct{})
	slow := newFakeGitHub(t, "/api/v3/")
	slow.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	host := strings.Split(strings.TrimPrefix(slow.srv.URL, "http://"), ":")[0]
	vars := map[string]string{"GITHUB_API_URL": slow.srv.URL + "/api/v3/"}

	start := time.Now()
	r := pushCheck(t, dir, "https://"+host+"/acme/open", vars, pinned, 200*time.Millisecond)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.warning, "could not learn whether "+host+"/acme/open is public (no answer from "+slow.srv.URL+"/api/v3/ in time)")

	require.NoError(t, os.WriteFile(filepath.Join(dir, ".guard.toml"), []byte("[github]\nstrict = true\n"), 0o644))
	r = pushCheck(t, dir, "https://"+host+"/acme/open", vars, pinned, 200*time.Millisecond)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.msg, "[github] strict = true in .guard.toml refuses such a push")
}

func TestPushVisibilityCachesAnswersForAnHour(t *testing.T) {
	gh, dir, host := visWorld(t, "PRIVATE.txt")
	vars := map[string]string{"GITHUB_API_URL": gh.apiURL()}
	url := "https://" + host + "/ACME/Open.git"
	count := func() int {
		n := 0
		for _, q := range gh.requestLog() {
			if strings.Contains(q, "/repos/acme/") || strings.Contains(q, "/repos/ACME/") {
				n++
			}
		}
		return n
	}
	r := pushCheck(t, dir, url, vars, pinned, time.Second)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, 1, count())
	cache := filepath.Join(dir, ".git", "guard", "visibility.json")
	data, err := os.ReadFile(cache)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"`+host+`/acme/open": {`)
	assert.Contains(t, string(data), `"visibility": "public"`)

	r = pushCheck(t, dir, url, vars, pinned.Add(59*time.Minute), time.Second)
	assert.Equal(t, 1, r.code, "the cached answer still refuses")
	assert.Equal(t, 1, count(), "within the hour the cache answers")

	r = pushCheck(t, dir, url, vars, pinned.Add(61*time.Minute), time.Second)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, 2, count(), "after an hour GitHub is asked again")

	require.NoError(t, os.WriteFile(cache, []byte("{not json"), 0o644))
	r = pushCheck(t, dir, url, vars, pinned.Add(62*time.Minute), time.Second)
	assert.Equal(t, 1, r.code, "a damaged cache is a cold one")
	assert.Equal(t, 3, count())
}
