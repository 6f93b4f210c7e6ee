package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/github"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"
)

// pinned is the moment the tests' clock shows: an hour before the real now, so that
// reset times computed from it lie in the real past and go-github does not refuse a
// retry on its own.
var pinned = time.Now().Add(-time.Hour).Truncate(time.Second)

type auditRun struct {
	code   int
	stdout string
	stderr string
	sleeps []time.Duration
}

func testEnv(dir string, vars map[string]string) (*guard.Env, *bytes.Buffer, *bytes.Buffer) {
	e := envtest.New(envtest.At(pinned), envtest.Dir(dir), envtest.Vars(vars))
	return e.Env, e.Out, e.Err
}

func runAudit(t *testing.T, dir string, vars map[string]string, opts Options) auditRun {
	t.Helper()
	env, out, errb := testEnv(dir, vars)
	var r auditRun
	opts.Env = env
	opts.Sleep = func(_ context.Context, d time.Duration) error { r.sleeps = append(r.sleeps, d); return nil }
	err := Run(context.Background(), opts)
	if err != nil {
		var oe *guard.OutcomeError
		if !assert.ErrorAs(t, err, &oe) || oe.Err != nil {
			errb.WriteString("guard: " + err.Error() + "\n")
		}
	}
	r.code, r.stdout, r.stderr = exitcode.Of(err), out.String(), errb.String()
	return r
}

// gitClone makes a git working tree at dir whose origin is url, with the given
// markers (files in its root).
func gitClone(t *testing.T, dir, url string, markers ...string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	guardtest.Git(t, dir, "init", "-q")
	guardtest.Git(t, dir, "remote", "add", "origin", url)
	for _, m := range markers {
		require.NoError(t, os.WriteFile(filepath.Join(dir, m), []byte("conditions\n"), 0o644))
	}
	return dir
}

func decodeReport(t *testing.T, s string) Report {
	t.Helper()
	var rep Report
	require.NoError(t, json.Unmarshal([]byte(s), &rep), "stdout: %s", s)
	return rep
}

type row struct{ name, vis, path, markers, verdict string }

func rows(rep Report) []row {
	var out []row
	for _, e := range rep.Repositories {
		out = append(out, row{e.FullName, e.Visibility, derefOr(e.LocalPath), strings.Join(e.Markers, ","), e.Verdict})
	}
	return out
}

func TestAuditReportsEveryVerdictAcrossPages(t *testing.T) {
	gh := newFakeGitHub(t, "/")
	gh.token, gh.self = "tok", "me"
	gh.users["acme"] = "Organization"
	gh.repos["acme"] = []fakeRepo{
		{"leak", "public"}, {"secret", "private"}, {"both", "private"}, {"ready", "internal"},
		{"open", "public"}, {"blessed", "public"}, {"faraway", "public"},
	}
	host := strings.TrimPrefix(gh.srv.URL, "http://")
	hostOnly := strings.Split(host, ":")[0]
	root := t.TempDir()
	gitClone(t, filepath.Join(root, "leak"), "https://"+hostOnly+"/Acme/Leak.git", "PRIVATE.txt")
	gitClone(t, filepath.Join(root, "deep", "er", "secret"), "git@"+hostOnly+":acme/secret", "PRIVATE.txt")
	gitClone(t, filepath.Join(root, "both"), "ssh://git@"+hostOnly+":2222/acme/both.git/", "PRIVATE.txt", "PUBLIC.txt")
	gitClone(t, filepath.Join(root, "ready"), "http://"+host+"/acme/ready", "PUBLIC.txt")
	gitClone(t, filepath.Join(root, "open"), "https://"+hostOnly+"/acme/open.git")
	gitClone(t, filepath.Join(root, "blessed"), "https://"+hostOnly+"/ACME/BLESSED", "PUBLIC.txt")
	gitClone(t, filepath.Join(root, "unrelated"), "https://example.org/acme/leak.git", "PRIVATE.txt")
	gitClone(t, filepath.Join(root, "node_modules", "leak"), "https://"+hostOnly+"/acme/leak.git")

	r := runAudit(t, root, map[string]string{"GH_TOKEN": "tok"}, Options{
		Owners: []string{"acme"}, APIURL: gh.apiURL(), JSON: true, RateLimitWait: time.Minute})

	assert.Equal(t, 1, r.code, "a public PRIVATE.txt repository is a violation; stderr: %s", r.stderr)
	rep := decodeReport(t, r.stdout)
	assert.False(t, rep.Incomplete)
	assert.Equal(t, []row{
		{"acme/blessed", "public", filepath.Join(root, "blessed"), "PUBLIC.txt", VerdictOK},
		{"acme/both", "private", filepath.Join(root, "both"), "PRIVATE.txt,PUBLIC.txt", VerdictConflict},
		{"acme/faraway", "public", "", "", VerdictNotCloned},
		{"acme/leak", "public", filepath.Join(root, "leak"), "PRIVATE.txt", VerdictViolation},
		{"acme/open", "public", filepath.Join(root, "open"), "", VerdictPublicUnapproved},
		{"acme/ready", "internal", filepath.Join(root, "ready"), "PUBLIC.txt", VerdictApprovedNotPublic},
		{"acme/secret", "private", filepath.Join(root, "deep", "er", "secret"), "PRIVATE.txt", VerdictOK},
	}, rows(rep))
	assert.Contains(t, r.stderr, "guard: violation: acme/leak is public but "+filepath.Join(root, "leak")+" is under PRIVATE.txt")
	assert.Contains(t, r.stderr, "guard: conflict: "+filepath.Join(root, "both")+" has both PRIVATE.txt and PUBLIC.txt")
	assert.NotContains(t, r.stderr, "PUBLIC.txt is there too", "only a clone with both markers says so")

	var pages []string
	for _, q := range gh.requestLog() {
		if strings.HasPrefix(q, "/orgs/acme/repos") {
			pages = append(pages, q)
		}
	}
	assert.Len(t, pages, 4, "seven repositories at two a page are four pages: %v", pages)
	assert.Contains(t, r.stdout, `"local_path": null`, "a repository without a clone has a null local_path")
}

func TestAuditOwnerKinds(t *testing.T) {
	tests := []struct {
		name     string
		owner    string
		token    string
		wantPath string
		wantRepo []string
	}{
		{"the authenticated user's own repositories are listed with their private ones", "me", "tok", "/user/repos", []string{"me/mine", "me/hidden"}},
		{"the authenticated user is recognised whatever the case of the name", "ME", "tok", "/user/repos", []string{"me/mine", "me/hidden"}},
		{"another user's repositories are the public ones", "bob", "tok", "/users/bob/repos", []string{"bob/pub"}},
		{"without a token the user's own name is just a user", "me", "", "/users/me/repos", []string{"me/mine"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gh := newFakeGitHub(t, "/")
			gh.token, gh.self = "tok", "me"
			gh.users["me"], gh.users["bob"] = "User", "User"
			gh.repos["me"] = []fakeRepo{{"mine", "public"}, {"hidden", "private"}}
			gh.repos["bob"] = []fakeRepo{{"pub", "public"}, {"priv", "private"}}
			r := runAudit(t, t.TempDir(), map[string]string{"GITHUB_TOKEN": tc.token}, Options{
				Owners: []string{tc.owner}, APIURL: gh.apiURL(), JSON: true})
			require.Equal(t, 0, r.code, r.stderr)
			var names []string
			for _, e := range decodeReport(t, r.stdout).Repositories {
				names = append(names, e.FullName)
			}
			assert.ElementsMatch(t, tc.wantRepo, names)
			found := false
			for _, q := range gh.requestLog() {
				found = found || strings.HasPrefix(q, tc.wantPath+"?")
			}
			assert.True(t, found, "requests %v should include %s", gh.requestLog(), tc.wantPath)
		})
	}
}

func TestAuditWithAnInstallationTokenThatCannotReadItsUser(t *testing.T) {
	gh := newFakeGitHub(t, "/")
	gh.token, gh.self = "tok", "me"
	gh.users["acme"] = "Organization"
	gh.repos["acme"] = []fakeRepo{{"a", "private"}}
	gh.script["user"] = []func(http.ResponseWriter){func(w http.ResponseWriter) {
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
	}}
	r := runAudit(t, t.TempDir(), map[string]string{"GITHUB_TOKEN": "tok"}, Options{Owners: []string{"acme"}, APIURL: gh.apiURL(), JSON: true})
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, []row{{"acme/a", "private", "", "", VerdictNotCloned}}, rows(decodeReport(t, r.stdout)))
}

func TestAuditListsOwnersTheServerDoesNotDescribe(t *testing.T) {
	for _, tc := range []struct {
		name, kind, path string
	}{
		{"an organisation is listed through /orgs/", "Organization", "/orgs/acme/repos"},
		{"a user is listed through /users/", "User", "/users/acme/repos"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh := newFakeGitHub(t, "/")
			gh.hideUsers = true
			gh.users["acme"] = tc.kind
			gh.repos["acme"] = []fakeRepo{{"a", "public"}, {"b", "public"}, {"c", "public"}}
			r := runAudit(t, t.TempDir(), nil, Options{Owners: []string{"acme"}, APIURL: gh.srv.URL, JSON: true})
			require.Equal(t, 0, r.code, r.stderr)
			assert.Len(t, decodeReport(t, r.stdout).Repositories, 3)
			var listed []string
			for _, q := range gh.requestLog() {
				if strings.Contains(q, "/repos?") && strings.Contains(q, "page=2") {
					listed = append(listed, q)
				}
			}
			require.Len(t, listed, 1, "%v", gh.requestLog())
			assert.True(t, strings.HasPrefix(listed[0], tc.path), listed[0])
		})
	}
}

func TestAuditMatchesByNameWhenTheServerGivesNoURLs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/users/acme":
			writeJSON(w, http.StatusOK, map[string]any{"login": "acme", "type": "Organization"})
		case "/orgs/acme/repos":
			writeJSON(w, http.StatusOK, []map[string]any{{"full_name": "acme/web", "private": false}})
		default:
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	gitClone(t, filepath.Join(dir, "web"), "git@github.com:acme/web.git", "PRIVATE.txt")
	r := runAudit(t, dir, nil, Options{Owners: []string{"acme"}, APIURL: srv.URL, JSON: true})
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, []row{{"acme/web", "public", filepath.Join(dir, "web"), "PRIVATE.txt", VerdictViolation}}, rows(decodeReport(t, r.stdout)))
}

func TestAuditSpeaksToEnterpriseUnderAPIV3(t *testing.T) {
	for _, base := range []string{"", "/", "/api/v3", "/api/v3/"} {
		t.Run("the API URL "+strconv.Quote("http://host"+base)+" reaches /api/v3/", func(t *testing.T) {
			gh := newFakeGitHub(t, "/api/v3/")
			gh.users["corp"] = "Organization"
			gh.repos["corp"] = []fakeRepo{{"a", "public"}, {"b", "public"}, {"c", "public"}}
			dir := t.TempDir()
			host := strings.Split(strings.TrimPrefix(gh.srv.URL, "http://"), ":")[0]
			gitClone(t, filepath.Join(dir, "c"), "git@"+host+":corp/c.git", "PRIVATE.txt")
			r := runAudit(t, dir, map[string]string{"GITHUB_API_URL": gh.srv.URL + base}, Options{
				Owners: []string{"corp"}, JSON: true})
			assert.Equal(t, 1, r.code, r.stderr)
			assert.Equal(t, []row{
				{"corp/a", "public", "", "", VerdictNotCloned},
				{"corp/b", "public", "", "", VerdictNotCloned},
				{"corp/c", "public", filepath.Join(dir, "c"), "PRIVATE.txt", VerdictViolation},
			}, rows(decodeReport(t, r.stdout)))
			for _, q := range gh.requestLog() {
				assert.True(t, strings.HasPrefix(q, "/api/v3/"), "request %s outside /api/v3/", q)
			}
		})
	}
}

func TestAuditDoesNotMistakeTheWebUIForTheAPI(t *testing.T) {
	gh := newFakeGitHub(t, "/api/v3/")
	gh.users["acme"] = "Organization"
	gh.repos["acme"] = []fakeRepo{{"a", "public"}}
	api := gh.srv.Config.Handler
	gh.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/v3/") {
			api.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>Sign in to GitHub Enterprise</html>"))
	})
	r := runAudit(t, t.TempDir(), nil, Options{Owners: []string{"ghost", "acme"}, APIURL: gh.srv.URL, JSON: true})
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "owner ghost: no GitHub user or organisation named ghost (404 Not Found)")
	assert.Equal(t, []row{{"acme/a", "public", "", "", VerdictNotCloned}}, rows(decodeReport(t, r.stdout)),
		"after the web page answered, the API under /api/v3/ is still used")
}

func TestAuditWaitsOutRateLimits(t *testing.T) {
	reset := strconv.FormatInt(pinned.Add(5*time.Second).Unix(), 10)
	primary := func(code int) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			w.Header().Set("X-RateLimit-Limit", "60")
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset", reset)
			writeJSON(w, code, map[string]string{"message": "API rate limit exceeded"})
		}
	}
	secondary := func(retry string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			if retry != "" {
				w.Header().Set("Retry-After", retry)
			}
			writeJSON(w, http.StatusForbidden, map[string]string{"message": "You have exceeded a secondary rate limit",
				"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"})
		}
	}
	tooMany := func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "7")
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"message": "Too many requests"})
	}
	retryOnly := func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "2")
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "slow down"})
	}
	bareSecondary := func(w http.ResponseWriter) {
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "You have exceeded a secondary rate limit. Please wait a few minutes."})
	}
	tests := []struct {
		name       string
		script     []func(http.ResponseWriter)
		budget     time.Duration
		wantCode   int
		wantSleeps []time.Duration
		wantErr    string
	}{
		{"a primary limit (403, remaining 0) is waited out until its reset", []func(http.ResponseWriter){primary(403)}, time.Minute, 0, []time.Duration{6 * time.Second}, ""},
		{"a primary limit answered with 429 is waited out too", []func(http.ResponseWriter){primary(429)}, time.Minute, 0, []time.Duration{6 * time.Second}, ""},
		{"a secondary limit is waited out for its Retry-After", []func(http.ResponseWriter){secondary("3")}, time.Minute, 0, []time.Duration{3 * time.Second}, ""},
		{"a secondary limit without Retry-After waits a minute", []func(http.ResponseWriter){secondary("")}, time.Minute, 0, []time.Duration{time.Minute}, ""},
		{"a 429 with Retry-After is waited out", []func(http.ResponseWriter){tooMany}, time.Minute, 0, []time.Duration{7 * time.Second}, ""},
		{"a 403 with only Retry-After is a secondary limit too", []func(http.ResponseWriter){retryOnly}, time.Minute, 0, []time.Duration{2 * time.Second}, ""},
		{"a 403 saying rate limit without headers waits a minute", []func(http.ResponseWriter){bareSecondary}, time.Minute, 0, []time.Duration{time.Minute}, ""},
		{"limits one after the other share the budget", []func(http.ResponseWriter){secondary("3"), primary(403), tooMany}, time.Minute, 0, []time.Duration{3 * time.Second, 6 * time.Second, 7 * time.Second}, ""},
		{"a wait beyond the budget makes the audit incomplete", []func(http.ResponseWriter){secondary("30"), secondary("31")}, time.Minute, 2, []time.Duration{30 * time.Second}, "owner acme: GitHub rate limit: asked to wait 31s more after 30s already waited"},
		{"with no budget a rate limit is reported at once", []func(http.ResponseWriter){primary(403)}, 0, 2, nil, "owner acme: GitHub rate limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gh := newFakeGitHub(t, "/")
			gh.users["acme"] = "Organization"
			gh.repos["acme"] = []fakeRepo{{"a", "private"}, {"b", "public"}, {"c", "public"}}
			gh.token, gh.self = "tok", "me"
			gh.script["orgs/acme/repos"] = tc.script
			r := runAudit(t, t.TempDir(), map[string]string{"GH_TOKEN": "tok"}, Options{
				Owners: []string{"acme"}, APIURL: gh.apiURL(), JSON: true, RateLimitWait: tc.budget})
			assert.Equal(t, tc.wantCode, r.code, r.stderr)
			assert.Equal(t, tc.wantSleeps, r.sleeps)
			for _, d := range tc.wantSleeps {
				assert.Contains(t, r.stderr, "guard: GitHub rate limit reached: waiting "+d.String()+" before retrying (at most "+tc.budget.String()+" in all)")
			}
			rep := decodeReport(t, r.stdout)
			if tc.wantErr == "" {
				assert.False(t, rep.Incomplete)
				assert.Len(t, rep.Repositories, 3)
			} else {
				assert.True(t, rep.Incomplete, "a partial audit is never clean")
				assert.Empty(t, rep.Repositories)
				assert.Contains(t, r.stderr, tc.wantErr)
			}
		})
	}
}

func TestAuditFailuresNameTheOwner(t *testing.T) {
	tests := []struct {
		name    string
		token   string
		owners  []string
		script  map[string][]func(http.ResponseWriter)
		wantErr string
		wantN   int
	}{
		{"a rejected token is a 401 naming the owner", "wrong", []string{"acme"}, nil,
			"owner acme: GitHub rejected the token (401 Unauthorized): check GH_TOKEN / GITHUB_TOKEN", 0},
		{"an unknown owner is a 404 naming it, and the others are still listed", "tok", []string{"ghost", "acme", "ACME"}, nil,
			"owner ghost: no GitHub user or organisation named ghost (404 Not Found)", 1},
		{"a forbidden organisation is a 403 naming it", "tok", []string{"acme"},
			map[string][]func(http.ResponseWriter){"orgs/acme/repos": {func(w http.ResponseWriter) {
				writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource protected by organization SAML enforcement"})
			}}},
			"owner acme: GitHub refused access (403 Forbidden) to the repositories of acme", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gh := newFakeGitHub(t, "/")
			gh.token, gh.self = "tok", "me"
			gh.users["acme"] = "Organization"
			gh.repos["acme"] = []fakeRepo{{"a", "public"}}
			for k, v := range tc.script {
				gh.script[k] = v
			}
			r := runAudit(t, t.TempDir(), map[string]string{"GH_TOKEN": tc.token}, Options{
				Owners: tc.owners, APIURL: gh.apiURL(), JSON: true})
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, tc.wantErr)
			assert.Contains(t, r.stderr, "audit github: incomplete: 1 of "+strconv.Itoa(tc.wantN+1)+" owner(s) could not be listed",
				"owners named twice (in any case) are audited once")
			rep := decodeReport(t, r.stdout)
			assert.True(t, rep.Incomplete)
			assert.Len(t, rep.Repositories, tc.wantN)
		})
	}
}

func TestAuditStrictFailsOnUnapprovedPublicRepositories(t *testing.T) {
	for _, strict := range []bool{false, true} {
		t.Run("strict="+strconv.FormatBool(strict), func(t *testing.T) {
			gh := newFakeGitHub(t, "/")
			gh.users["acme"] = "Organization"
			gh.repos["acme"] = []fakeRepo{{"open", "public"}}
			dir := t.TempDir()
			host := strings.Split(strings.TrimPrefix(gh.srv.URL, "http://"), ":")[0]
			gitClone(t, filepath.Join(dir, "open"), "https://"+host+"/acme/open")
			r := runAudit(t, dir, nil, Options{Owners: []string{"acme"}, APIURL: gh.apiURL(), Strict: strict})
			want := 0
			if strict {
				want = 1
			}
			assert.Equal(t, want, r.code)
			assert.Contains(t, r.stderr, "guard: warning: acme/open is public and "+filepath.Join(dir, "open")+" has no PUBLIC.txt approving it")
			assert.Contains(t, r.stdout, "REPOSITORY")
			assert.Regexp(t, `acme/open\s+public\s+public-without-approval\s+-\s+`+regexpQuote(filepath.Join(dir, "open")), r.stdout)
		})
	}
}

func TestAuditViolationWithBothMarkersSaysPrivateWins(t *testing.T) {
	gh := newFakeGitHub(t, "/")
	gh.users["acme"] = "Organization"
	gh.repos["acme"] = []fakeRepo{{"web", "public"}}
	dir := t.TempDir()
	host := strings.Split(strings.TrimPrefix(gh.srv.URL, "http://"), ":")[0]
	gitClone(t, filepath.Join(dir, "web"), "https://"+host+"/acme/web", "PRIVATE.txt", "PUBLIC.txt")
	r := runAudit(t, dir, nil, Options{Owners: []string{"acme"}, APIURL: gh.apiURL(), JSON: true})
	assert.Equal(t, 1, r.code)
	assert.Equal(t, []row{{"acme/web", "public", filepath.Join(dir, "web"), "PRIVATE.txt,PUBLIC.txt", VerdictViolation}}, rows(decodeReport(t, r.stdout)))
	assert.Contains(t, r.stderr, "is under PRIVATE.txt (PUBLIC.txt is there too, but with both markers PRIVATE.txt wins)")
}

func TestAuditOwnersComeFromTheConfig(t *testing.T) {
	gh := newFakeGitHub(t, "/")
	gh.users["acme"] = "Organization"
	gh.repos["acme"] = []fakeRepo{{"a", "public"}, {"b", "private"}}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".guard.toml"), []byte("[github]\nowners = [\"acme\"]\napi_url = \""+gh.apiURL()+"\"\n"), 0o644))
	r := runAudit(t, dir, nil, Options{JSON: true})
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, []row{{"acme/a", "public", "", "", VerdictNotCloned}}, rows(decodeReport(t, r.stdout)),
		"without a token only public repositories are listed")

	r = runAudit(t, t.TempDir(), nil, Options{JSON: true})
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no owner to audit: pass --owner NAME or set [github] owners in .guard.toml")
	assert.Empty(t, r.stdout)
}

func TestAuditReadsTheRootsFile(t *testing.T) {
	gh := newFakeGitHub(t, "/")
	gh.users["acme"] = "Organization"
	gh.repos["acme"] = []fakeRepo{{"a", "public"}, {"b", "public"}}
	host := strings.Split(strings.TrimPrefix(gh.srv.URL, "http://"), ":")[0]
	top := t.TempDir()
	gitClone(t, filepath.Join(top, "work", "x", "a"), "https://"+host+"/acme/a", "PUBLIC.txt")
	gitClone(t, filepath.Join(top, "shallow", "x", "y", "b"), "https://"+host+"/acme/b", "PRIVATE.txt")
	roots := `{"roots": [{"path": "$TOP/work"}, {"path": "~/shallow", "shallow": true}], "shallow_depth": 2}`
	require.NoError(t, os.WriteFile(filepath.Join(top, "lock_roots.json"), []byte(roots), 0o644))
	r := runAudit(t, top, map[string]string{"TOP": top, "HOME": top}, Options{
		Owners: []string{"acme"}, APIURL: gh.apiURL(), RootsFile: "lock_roots.json", JSON: true})
	require.Equal(t, 0, r.code, "b lies deeper than the shallow root's depth, so it is not found: %s", r.stderr)
	assert.Equal(t, []row{
		{"acme/a", "public", filepath.Join(top, "work", "x", "a"), "PUBLIC.txt", VerdictOK},
		{"acme/b", "public", "", "", VerdictNotCloned},
	}, rows(decodeReport(t, r.stdout)))
}

func TestAuditRootArgumentsKeepTheRootsFilesSkipDirs(t *testing.T) {
	gh := newFakeGitHub(t, "/")
	gh.users["acme"] = "Organization"
	gh.repos["acme"] = []fakeRepo{{"a", "public"}}
	host := strings.Split(strings.TrimPrefix(gh.srv.URL, "http://"), ":")[0]
	top := t.TempDir()
	gitClone(t, filepath.Join(top, "src", "attic", "a"), "https://"+host+"/acme/a", "PRIVATE.txt")
	require.NoError(t, os.WriteFile(filepath.Join(top, "roots.json"), []byte(`{"roots": [], "skip_dirs": ["Attic"]}`), 0o644))
	for _, tc := range []struct {
		name      string
		rootsFile string
		want      string
	}{
		{"without the roots file the clone is found", "", VerdictViolation},
		{"with it the skipped folder is not searched", "roots.json", VerdictNotCloned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runAudit(t, top, nil, Options{Owners: []string{"acme"}, APIURL: gh.apiURL(), Roots: []string{"src"}, RootsFile: tc.rootsFile, JSON: true})
			rep := decodeReport(t, r.stdout)
			require.Len(t, rep.Repositories, 1, r.stderr)
			assert.Equal(t, tc.want, rep.Repositories[0].Verdict)
		})
	}
}

func TestFindClonesFollowsASymlinkedRoot(t *testing.T) {
	top := t.TempDir()
	gitClone(t, filepath.Join(top, "real", "a"), "https://github.com/acme/a.git")
	gitClone(t, filepath.Join(top, "real", "node_modules", "b"), "https://github.com/acme/b.git")
	require.NoError(t, os.Symlink(filepath.Join(top, "real"), filepath.Join(top, "code")))
	var warnings []string
	clones := FindClones(context.Background(), []CloneRoot{{Path: filepath.Join(top, "code"), MaxDepth: 4}}, nil, testGetenv, func(s string) { warnings = append(warnings, s) })
	assert.Equal(t, []Clone{{Path: filepath.Join(top, "code", "a"), Keys: []github.RepoKey{"github.com/acme/a"}}}, clones)
	assert.Empty(t, warnings)

	clones = FindClones(context.Background(), []CloneRoot{{Path: filepath.Join(top, "missing"), MaxDepth: 4}}, nil, testGetenv, func(s string) { warnings = append(warnings, s) })
	assert.Empty(t, clones)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0], "cannot read root "+filepath.Join(top, "missing"))
}

func TestFindClonesFindsClonesInsideAWorkingTree(t *testing.T) {
	// A home folder kept in git (dotfiles) with the clones below it: the root's own
	// working tree must not hide them.
	top := t.TempDir()
	gitClone(t, top, "https://github.com/acme/dotfiles.git")
	gitClone(t, filepath.Join(top, "code", "a"), "https://github.com/acme/a.git")
	clones := FindClones(context.Background(), []CloneRoot{{Path: top, MaxDepth: 4}}, nil, testGetenv, func(string) {})
	assert.Equal(t, []Clone{
		{Path: top, Keys: []github.RepoKey{"github.com/acme/dotfiles"}},
		{Path: filepath.Join(top, "code", "a"), Keys: []github.RepoKey{"github.com/acme/a"}},
	}, clones)
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteRune('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func TestVerdict(t *testing.T) {
	tests := []struct {
		name       string
		visibility string
		markers    []string
		want       string
	}{
		{"a public repository under PRIVATE.txt is a violation", "public", []string{"PRIVATE.txt"}, VerdictViolation},
		{"a public repository with both markers is a violation: PRIVATE.txt wins", "public", []string{"PRIVATE.txt", "PUBLIC.txt"}, VerdictViolation},
		{"a private repository with both markers is a conflict", "private", []string{"PRIVATE.txt", "PUBLIC.txt"}, VerdictConflict},
		{"an internal repository with both markers is a conflict", "internal", []string{"PRIVATE.txt", "PUBLIC.txt"}, VerdictConflict},
		{"a private repository under PRIVATE.txt is ok", "private", []string{"PRIVATE.txt"}, VerdictOK},
		{"an internal repository under PRIVATE.txt is ok: internal is not public", "internal", []string{"PRIVATE.txt"}, VerdictOK},
		{"an approved private repository is approved but not yet public", "private", []string{"PUBLIC.txt"}, VerdictApprovedNotPublic},
		{"an approved internal repository is approved but not yet public", "internal", []string{"PUBLIC.txt"}, VerdictApprovedNotPublic},
		{"an approved public repository is ok", "public", []string{"PUBLIC.txt"}, VerdictOK},
		{"a public repository without markers lacks approval", "public", nil, VerdictPublicUnapproved},
		{"a private repository without markers is ok", "private", nil, VerdictOK},
		{"an internal repository without markers is ok", "internal", nil, VerdictOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Verdict(tc.visibility, tc.markers))
		})
	}
}

func TestAuditShowsPagesOutOfTheTotalWhenStderrIsATerminal(t *testing.T) {
	for _, tc := range []struct {
		name      string
		stderrTTY bool
		stdoutTTY bool
		json      bool
		repos     int
		want      string
	}{
		{"stderr at a terminal gets every page out of the total", true, false, false, 60,
			"\rlisting repositories of acme: page 1/3 (25 repositories)\x1b[K" +
				"\rlisting repositories of acme: page 2/3 (50 repositories)\x1b[K" +
				"\rlisting repositories of acme: page 3/3 (60 repositories)\x1b[K\r\x1b[K"},
		{"JSON on stdout still gets it on stderr: never in the JSON", true, false, true, 60,
			"\rlisting repositories of acme: page 1/3 (25 repositories)\x1b[K" +
				"\rlisting repositories of acme: page 2/3 (50 repositories)\x1b[K" +
				"\rlisting repositories of acme: page 3/3 (60 repositories)\x1b[K\r\x1b[K"},
		{"one page says nothing", true, false, false, 10, ""},
		{"stderr not a terminal gets nothing, even with stdout at one", false, true, false, 60, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh := newFakeGitHub(t, "/api/v3/")
			gh.pageSize = 25
			gh.users["acme"] = "Organization"
			for i := range tc.repos {
				gh.repos["acme"] = append(gh.repos["acme"], fakeRepo{"r" + strconv.Itoa(i), "public"})
			}
			env, out, errb := testEnv(t.TempDir(), nil)
			env.StderrTTY, env.StdoutTTY = tc.stderrTTY, tc.stdoutTTY
			err := Run(context.Background(), Options{Env: env, Owners: []string{"acme"}, APIURL: gh.apiURL(), JSON: tc.json})
			require.NoError(t, err, errb.String())
			// The fixed clock never passes the walk's delay: only the listing shows.
			assert.Equal(t, tc.want, strings.Split(errb.String(), "guard: warning")[0])
			assert.NotContains(t, out.String(), "listing")
			assert.NotContains(t, out.String(), "\x1b")
			if !tc.json {
				assert.Equal(t, tc.repos, strings.Count(out.String(), "not-cloned"), "every page is listed")
			}
		})
	}
}

func TestAuditShowsTheWalkForClonesAfterADelay(t *testing.T) {
	top := t.TempDir()
	for _, n := range []string{"a", "b"} {
		guardtest.InitRepo(t, filepath.Join(top, n))
	}
	gh := newFakeGitHub(t, "/api/v3/")
	gh.users["acme"] = "Organization"
	gh.repos["acme"] = []fakeRepo{{"a", "public"}}
	for _, tty := range []bool{true, false} {
		env, _, errb := testEnv(top, nil)
		env.StderrTTY = tty
		// Every reading of the clock is a second later: the walk outlasts the delay.
		now := pinned
		env.Clock = lockcore.ClockFunc(func() time.Time { now = now.Add(time.Second); return now })
		err := Run(context.Background(), Options{Env: env, Owners: []string{"acme"}, APIURL: gh.apiURL(), Roots: []string{top}})
		require.NoError(t, err, errb.String())
		if !tty {
			assert.NotContains(t, errb.String(), "looking for clones")
			assert.NotContains(t, errb.String(), "\r")
			continue
		}
		assert.Contains(t, errb.String(), "\rlooking for clones of 1 repositories: 1 folders walked, 0 clones checked\x1b[K")
		assert.Contains(t, errb.String(), "\rlooking for clones of 1 repositories: 3 folders walked, 1 clones checked\x1b[K")
		assert.True(t, strings.HasSuffix(strings.Split(errb.String(), "guard: ")[0], "\r\x1b[K"), "the line is erased before anything else: %q", errb.String())
	}
}

func FuzzVisibilityCache(f *testing.F) {
	f.Add([]byte(`{"entries": {"github.com/a/b": {"visibility": "public", "checked_at": "2026-01-01T00:00:00Z"}}}`))
	f.Add([]byte(`{"entries": null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "visibility.json")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		now := time.Date(2026, 1, 1, 0, 30, 0, 0, time.UTC)
		vis, ok := readVisibilityCache(p, "github.com/a/b", now)
		if ok && vis == "" {
			t.Fatalf("a cache hit without a visibility")
		}
		writeVisibilityCache(t.Context(), p, "github.com/a/b", github.VisibilityPrivate, now)
		vis, ok = readVisibilityCache(p, "github.com/a/b", now)
		if !ok || vis != github.VisibilityPrivate {
			t.Fatalf("written answer not read back: %q %v", vis, ok)
		}
	})
}

// testGetenv is an empty environment: git runs without the user's configuration.
func testGetenv(string) string { return "" }
