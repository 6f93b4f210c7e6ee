package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"
)

const token = "t0k3n"

type fixture struct {
	t      *testing.T
	srv    *httptest.Server
	s      *Server
	root   string
	host   string // 127.0.0.1:port
	events []guard.Event
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "proj"), 0o755))
	f := &fixture{t: t, root: root}
	vars := map[string]string{"HOME": t.TempDir(), "GUARD_OWNER": "alice", "GUARD_HOST": "hosta"}
	env := envtest.New(envtest.Streams(io.Discard, io.Discard), envtest.Clock(lockcore.ClockFunc(time.Now)),
		envtest.Identity("alice", "hosta"), envtest.Dir(root), envtest.Vars(vars),
		envtest.With(func(e *guard.Env) { e.Recorder = func(ev guard.Event) { f.events = append(f.events, ev) } })).Env
	f.s = New(Options{Env: env, Roots: []lockcore.ScanRoot{{Path: root, MaxDepth: 4}}, Token: token,
		ExitCode: exitcode.Of,
		History: func(_ context.Context, q Query) ([]guard.Event, error) {
			out := []guard.Event{}
			for i := len(f.events) - 1; i >= 0; i-- {
				if q.Path == "" || f.events[i].Path == q.Path {
					out = append(out, f.events[i])
				}
			}
			return out, nil
		}})
	f.srv = httptest.NewServer(f.s.Handler())
	t.Cleanup(f.srv.Close)
	u, _ := url.Parse(f.srv.URL)
	f.host = u.Host
	f.s.SetPort(u.Port())
	return f
}

// do sends a request with the Bearer token (auth "bearer"), the cookie guard serve
// set before the token left cookies ("old-cookie"), or nothing (""); hdr adds headers.
func (f *fixture) do(method, path, body, auth string, hdr ...string) (int, http.Header, string) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	require.NoError(f.t, err)
	switch auth {
	case "bearer":
		req.Header.Set("Authorization", "Bearer "+token)
	case "old-cookie":
		req.AddCookie(&http.Cookie{Name: "guard_token", Value: token})
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	require.NoError(f.t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

func (f *fixture) writeLock(dir, owner string) string {
	f.t.Helper()
	s := lockcore.Spec{Dir: dir, Kind: lockcore.Exclusive, Owner: owner, Host: "hostb", Expires: "1h", Purpose: "refactor"}
	require.NoError(f.t, os.WriteFile(s.Path(), s.Body(time.Now(), 1), 0o644))
	return s.Path()
}

func TestTokenIsRequiredForEveryAPICall(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"/api/locks", "/api/rooms", "/api/history", "/api/stats", "/api/events", "/api/locks/x", "/api/nope", "/api"} {
		code, _, body := f.do("GET", p, "", "")
		assert.Equal(t, 401, code, p)
		assert.Contains(t, body, "token required", p)
		assert.Contains(t, body, "Authorization: Bearer", p)
	}
	code, _, body := f.do("GET", "/api/locks", "", "", "Authorization", "Bearer wrong")
	assert.Equal(t, 401, code)
	assert.Contains(t, body, "wrong token")
	// A token in an API URL is not accepted.
	code, _, _ = f.do("GET", "/api/locks?token="+token, "", "")
	assert.Equal(t, 401, code)
	code, _, _ = f.do("GET", "/api/locks", "", "bearer")
	assert.Equal(t, 200, code)
}

func TestThePagesFilesLoadWithoutTheTokenAndCarryNoData(t *testing.T) {
	f := newFixture(t)
	p := f.writeLock(filepath.Join(f.root, "proj"), "bob")
	code, h, body := f.do("GET", "/", "", "")
	assert.Equal(t, 200, code)
	assert.Contains(t, body, `<script src="/app.js" defer></script>`)
	assert.NotContains(t, body, "<script>", "no inline script")
	assert.NotContains(t, body, p, "the page's files carry no data")
	assert.NotContains(t, body, "bob")
	assert.Contains(t, h.Get("Content-Type"), "text/html")
	code, h, _ = f.do("GET", "/app.js", "", "")
	assert.Equal(t, 200, code)
	assert.Contains(t, h.Get("Content-Type"), "javascript")
	code, _, _ = f.do("POST", "/", "", "")
	assert.Equal(t, 405, code)
}

// The token is never a cookie: browsers send a host's cookies to every port, so a
// cookie on 127.0.0.1 would reach any other local server.
func TestTheTokenIsNeverACookie(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"/", "/?token=" + token, "/?code=x", "/app.js", "/api/locks"} {
		for _, auth := range []string{"", "bearer"} {
			_, h, _ := f.do("GET", p, "", auth)
			assert.Empty(t, h.Values("Set-Cookie"), "%s (%q) sets no cookie", p, auth)
		}
	}
	// A request that carries only the cookie of an older guard serve is refused,
	// reads and writes alike.
	same := "http://" + f.host
	code, _, body := f.do("GET", "/api/locks", "", "old-cookie")
	assert.Equal(t, 401, code, body)
	code, _, _ = f.do("DELETE", "/api/locks/x", "", "old-cookie", "Origin", same)
	assert.Equal(t, 401, code)
	code, _, _ = f.do("POST", "/api/prune", `{"dry_run": true}`, "old-cookie", "Origin", same)
	assert.Equal(t, 401, code)
}

func TestSecurityHeadersAndNoCORS(t *testing.T) {
	f := newFixture(t)
	for _, auth := range []string{"", "bearer"} {
		for _, m := range []string{"GET", "OPTIONS"} {
			_, h, _ := f.do(m, "/api/locks", "", auth, "Origin", "http://evil.test")
			csp := h.Get("Content-Security-Policy")
			assert.Contains(t, csp, "default-src 'self'")
			assert.Contains(t, csp, "script-src 'self'")
			assert.NotContains(t, csp, "unsafe-inline")
			assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
			assert.Equal(t, "DENY", h.Get("X-Frame-Options"))
			for k := range h {
				assert.False(t, strings.HasPrefix(strings.ToLower(k), "access-control-"), "CORS header %s", k)
			}
		}
	}
}

func TestHostGateAgainstDNSRebinding(t *testing.T) {
	f := newFixture(t)
	port := f.s.port
	for _, h := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port, "127.0.0.1", "localhost"} {
		code, _, _ := f.do("GET", "/api/stats", "", "bearer", "Host", h)
		assert.Equal(t, 200, code, h)
	}
	for _, h := range []string{"evil.test:" + port, "evil.test", "127.0.0.1.evil.test:" + port, "localhost:9", "10.0.0.1:" + port, "localhost.:" + port} {
		code, _, body := f.do("GET", "/api/stats", "", "bearer", "Host", h)
		assert.Equal(t, 403, code, h)
		assert.Contains(t, body, "forbidden host", h)
	}
	// Before the token is even looked at, and for OPTIONS too.
	code, _, _ := f.do("OPTIONS", "/api/stats", "", "", "Host", "evil.test")
	assert.Equal(t, 403, code)
	assert.False(t, f.s.hostAllowed(""))
}

func TestOriginGateOnWrites(t *testing.T) {
	f := newFixture(t)
	body := `{"dry_run": true}`
	same := "http://" + f.host
	cases := []struct {
		auth, origin string
		code         int
	}{
		{"bearer", "", 200}, // a script with the token needs no Origin
		{"bearer", same, 200},
		{"bearer", "http://evil.test", 403},
		{"bearer", "null", 403},
	}
	for _, c := range cases {
		var hdr []string
		if c.origin != "" {
			hdr = []string{"Origin", c.origin}
		}
		code, _, out := f.do("POST", "/api/prune", body, c.auth, hdr...)
		assert.Equal(t, c.code, code, "%s %q: %s", c.auth, c.origin, out)
	}
	// The one-time code's exchange needs no token but the page's own Origin.
	for _, origin := range []string{"", "http://evil.test", "null", "http://127.0.0.1:1"} {
		var hdr []string
		if origin != "" {
			hdr = []string{"Origin", origin}
		}
		code, _, out := f.do("POST", "/api/session", `{"code": "x"}`, "", hdr...)
		assert.Equal(t, 403, code, "%q: %s", origin, out)
	}
	code, _, out := f.do("POST", "/api/session", `{"code": "x"}`, "", "Origin", same)
	assert.Equal(t, 401, code, out)
	assert.Contains(t, out, "one-time code is wrong, used or expired")
}

func TestLocksRoomsAndDetail(t *testing.T) {
	f := newFixture(t)
	p := f.writeLock(filepath.Join(f.root, "proj"), "bob")
	old := lockcore.Spec{Dir: f.root, Kind: lockcore.Exclusive, Owner: "carol", Host: "h", Expires: "1m"}
	require.NoError(t, os.WriteFile(old.Path(), old.Body(time.Now().Add(-time.Hour), 1), 0o644))

	code, _, body := f.do("GET", "/api/locks", "", "bearer")
	require.Equal(t, 200, code)
	var locks []map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &locks))
	require.Len(t, locks, 1)
	assert.Equal(t, p, locks[0]["path"])
	assert.Equal(t, "bob", locks[0]["owner"])
	assert.Equal(t, "refactor", locks[0]["purpose"])
	assert.Equal(t, LockID(p), locks[0]["id"])
	assert.Equal(t, LockID(f.root), locks[0]["room"])

	_, _, body = f.do("GET", "/api/locks?status=all", "", "bearer")
	require.NoError(t, json.Unmarshal([]byte(body), &locks))
	assert.Len(t, locks, 2)
	code, _, body = f.do("GET", "/api/locks?status=deleted", "", "bearer")
	assert.Equal(t, 400, code)
	assert.Contains(t, body, "status must be active or all")

	_, _, body = f.do("GET", "/api/rooms", "", "bearer")
	var rooms []roomOut
	require.NoError(t, json.Unmarshal([]byte(body), &rooms))
	assert.Equal(t, []roomOut{{Key: LockID(f.root), Path: f.root, Label: filepath.Base(f.root), Active: 1, Total: 2,
		Owner: "alice", Host: "hosta"}}, rooms)

	f.events = append(f.events, guard.Event{Time: time.Now(), Event: "acquired", Path: p, Owner: "bob"})
	code, _, body = f.do("GET", "/api/locks/"+LockID(p), "", "bearer")
	require.Equal(t, 200, code)
	var detail struct {
		Path   string        `json:"path"`
		Events []guard.Event `json:"events"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &detail))
	assert.Equal(t, p, detail.Path)
	require.Len(t, detail.Events, 1)
	assert.Equal(t, "acquired", detail.Events[0].Event)

	code, _, body = f.do("GET", "/api/locks/0000000000000000", "", "bearer")
	assert.Equal(t, 404, code)
	assert.Contains(t, body, "no lock with id")
	code, _, _ = f.do("GET", "/api/nothing", "", "bearer")
	assert.Equal(t, 404, code)
}

func TestHistoryAndStats(t *testing.T) {
	f := newFixture(t)
	f.events = append(f.events, guard.Event{Time: time.Now(), Event: "acquired", Path: filepath.Join(f.root, "LOCK.txt")})
	code, _, body := f.do("GET", "/api/history?limit=10&event=acquired&since=1h", "", "bearer")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"event":"acquired"`)
	for q, want := range map[string]string{
		"?event=exploded": "unknown event", "?limit=-1": "limit must be", "?limit=x": "limit must be",
		"?since=soon": "not a duration", "?path=/etc": "outside the roots", "?path=" + url.QueryEscape(f.root+"/../x"): "outside the roots",
	} {
		code, _, body := f.do("GET", "/api/history"+q, "", "bearer")
		assert.Equal(t, 400, code, q)
		assert.Contains(t, body, want, q)
	}
	code, _, body = f.do("GET", "/api/stats", "", "bearer")
	require.Equal(t, 200, code)
	assert.JSONEq(t, `{"active":0,"expired":0,"deleted":0,"last_scan_at":null,"last_scan_type":null,"total_events":0,
		"last_scan_age_seconds":null,"scan_stale":true,"roots":1,"last_scan":null,"history":null}`, body)
	code, _, body = f.do("POST", "/api/scan", "{}", "bearer")
	require.Equal(t, 200, code)
	var scan map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &scan))
	assert.Equal(t, false, scan["watcher"], "no watcher to ask")
	assert.Equal(t, 0.0, scan["locks_found"])
}

func TestClaimAndReleaseAsTheCLIDoes(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.root, "proj")
	code, _, body := f.do("POST", "/api/locks", `{"dir":"`+dir+`","purpose":"web work","expires":"2h"}`, "bearer")
	require.Equal(t, 200, code, body)
	var claimed struct {
		Path   string `json:"path"`
		Action string `json:"action"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &claimed))
	assert.Equal(t, filepath.Join(dir, "LOCK.txt"), claimed.Path)
	assert.Equal(t, "created", claimed.Action)
	content, err := os.ReadFile(claimed.Path)
	require.NoError(t, err)
	assert.Contains(t, string(content), "owner: alice")
	assert.Contains(t, string(content), "purpose: web work")
	require.NotEmpty(t, f.events)
	assert.Equal(t, "acquired", f.events[len(f.events)-1].Event)
	assert.Equal(t, "web", f.events[len(f.events)-1].Actor)

	// RESPECT, as guard lock: bob's lock above refuses (409, the CLI's exit 1).
	sub := filepath.Join(f.root, "other", "deep")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	bobs := f.writeLock(filepath.Join(f.root, "other"), "bob")
	code, _, body = f.do("POST", "/api/locks", `{"dir":"`+sub+`"}`, "bearer")
	assert.Equal(t, 409, code, body)
	assert.Contains(t, body, `"exit":1`)
	_, err = os.Stat(filepath.Join(sub, "LOCK.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	// Someone else's lock needs force, as guard unlock does.
	code, _, body = f.do("DELETE", "/api/locks/"+LockID(bobs), "", "bearer")
	assert.Equal(t, 409, code, body)
	assert.FileExists(t, bobs)
	code, _, body = f.do("DELETE", "/api/locks/"+LockID(bobs)+"?force=true", "", "bearer")
	assert.Equal(t, 200, code, body)
	assert.NoFileExists(t, bobs)

	code, _, body = f.do("DELETE", "/api/locks/"+LockID(claimed.Path), "", "bearer")
	require.Equal(t, 200, code, body)
	assert.NoFileExists(t, claimed.Path)
	assert.Equal(t, "released", f.events[len(f.events)-1].Event)
	assert.Equal(t, "web", f.events[len(f.events)-1].Actor)
	code, _, _ = f.do("DELETE", "/api/locks/"+LockID(claimed.Path), "", "bearer")
	assert.Equal(t, 404, code)
}

func TestUserLocksAreThePersonsHere(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(f.root, "proj")
	code, _, body := f.do("POST", "/api/locks", `{"dir":"`+dir+`","user":true,"purpose":"mine"}`, "bearer")
	require.Equal(t, 200, code, body)
	p := filepath.Join(dir, "LOCK.user.txt")
	assert.FileExists(t, p)
	code, _, body = f.do("DELETE", "/api/locks/"+LockID(p), "", "bearer")
	require.Equal(t, 200, code, body)
	assert.NoFileExists(t, p)
}

func TestPathsOutsideTheRootsAndBadBodies(t *testing.T) {
	f := newFixture(t)
	outside := t.TempDir()
	link := filepath.Join(f.root, "out")
	require.NoError(t, os.Symlink(outside, link))
	for _, dir := range []string{outside, "/", "relative/dir", "", f.root + "/../" + filepath.Base(outside), link} {
		code, _, body := f.do("POST", "/api/locks", `{"dir":"`+dir+`"}`, "bearer")
		assert.Equal(t, 400, code, dir)
		assert.Contains(t, body, "outside the roots", dir)
	}
	entries, _ := os.ReadDir(outside)
	assert.Empty(t, entries)
	for _, b := range []string{`{"dir":`, `[]`, `{"dir":"x","bogus":1}`, `{"dir":1}`} {
		code, _, _ := f.do("POST", "/api/locks", b, "bearer")
		assert.Equal(t, 400, code, b)
	}
	// "commit": "false" is an error, never a commit (the reference ran a lockdown).
	code, _, body := f.do("POST", "/api/lockdown", `{"commit":"false"}`, "bearer")
	assert.Equal(t, 400, code, body)
	assert.NoFileExists(t, filepath.Join(f.root, "LOCK.txt"))
	code, _, _ = f.do("POST", "/api/prune", strings.Repeat(" ", 70<<10)+"{}", "bearer")
	assert.Equal(t, 400, code)
}

func TestPrunePreviewThenRemove(t *testing.T) {
	f := newFixture(t)
	old := lockcore.Spec{Dir: f.root, Kind: lockcore.Exclusive, Owner: "carol", Host: "h", Expires: "1m"}
	require.NoError(t, os.WriteFile(old.Path(), old.Body(time.Now().Add(-time.Hour), 1), 0o644))
	for _, b := range []string{`{"dry_run": true}`, `{}`} {
		code, _, body := f.do("POST", "/api/prune", b, "bearer")
		require.Equal(t, 200, code, body)
		assert.Contains(t, body, `"would_remove":["`+old.Path()+`"]`)
		assert.FileExists(t, old.Path())
	}
	code, _, body := f.do("POST", "/api/prune", `{"dry_run": false}`, "bearer")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"removed":["`+old.Path()+`"]`)
	assert.NoFileExists(t, old.Path())
}

func TestLockdownPreviewCommitUndo(t *testing.T) {
	f := newFixture(t)
	lock := filepath.Join(f.root, "LOCK.txt")
	code, _, body := f.do("POST", "/api/lockdown", `{"commit": false}`, "bearer")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `"would_lock":["`+lock+`"]`)
	assert.NoFileExists(t, lock)
	code, _, body = f.do("POST", "/api/lockdown", `{"commit": true, "reason": "incident"}`, "bearer")
	require.Equal(t, 200, code, body)
	content, err := os.ReadFile(lock)
	require.NoError(t, err)
	assert.Contains(t, string(content), "created_by: bulk")
	code, _, body = f.do("POST", "/api/lockdown/undo", `{"commit": false}`, "bearer")
	require.Equal(t, 200, code, body)
	assert.FileExists(t, lock)
	code, _, body = f.do("POST", "/api/lockdown/undo", `{"commit": true}`, "bearer")
	require.Equal(t, 200, code, body)
	assert.NoFileExists(t, lock)
}

func TestEventsStream(t *testing.T) {
	f := newFixture(t)
	req, _ := http.NewRequest("GET", f.srv.URL+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	buf := make([]byte, 4096)
	n, _ := res.Body.Read(buf) // the opening comment: subscribed
	require.Contains(t, string(buf[:n]), ": guard serve events")
	f.s.Publish(guard.Event{Time: time.Now(), Event: "acquired", Path: "/x/LOCK.txt"})
	var got bytes.Buffer
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(got.String(), "\n\n") && time.Now().Before(deadline) {
		n, err := res.Body.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			break
		}
	}
	assert.Contains(t, got.String(), "event: lock\ndata: {")
	assert.Contains(t, got.String(), `"path":"/x/LOCK.txt"`)
}

func TestLoopbackHost(t *testing.T) {
	for h, want := range map[string]bool{"127.0.0.1": true, "127.1.2.3": true, "::1": true, "[::1]": true, "localhost": true,
		"0.0.0.0": false, "10.0.0.1": false, "example.com": false, "": false, "::": false, "localhost.evil": false} {
		assert.Equal(t, want, LoopbackHost(h), h)
	}
}
