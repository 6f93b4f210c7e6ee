package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"
)

// writeOwnLock writes alice's lock (the fixture's identity) in dir, created at created.
func (f *fixture) writeOwnLock(dir string, created time.Time, expires string) string {
	f.t.Helper()
	require.NoError(f.t, os.MkdirAll(dir, 0o755))
	s := lockcore.Spec{Dir: dir, Kind: lockcore.Exclusive, Owner: "alice", Host: "hosta", Expires: expires, Purpose: "mine"}
	require.NoError(f.t, os.WriteFile(s.Path(), s.Body(created, 7), 0o644))
	return s.Path()
}

func TestRenewOwnLockMovesCreatedToNow(t *testing.T) {
	f := newFixture(t)
	p := f.writeOwnLock(filepath.Join(f.root, "proj"), time.Now().Add(-50*time.Minute), "1h")
	before, err := lockcore.ReadLock(p, time.UTC)
	require.NoError(t, err)

	code, _, body := f.do("POST", "/api/locks/"+LockID(p)+"/renew", `{}`, "bearer")
	require.Equal(t, 200, code, body)
	var got lockcore.JSON
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	assert.Equal(t, p, got.Path)
	assert.Equal(t, "alice", got.Owner)
	require.NotNil(t, got.ExpiresAt)
	exp, err := time.Parse(time.RFC3339, *got.ExpiresAt)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(time.Hour), exp, 5*time.Second, "created moved to now, the lifetime kept")
	after, err := lockcore.ReadLock(p, time.UTC)
	require.NoError(t, err)
	assert.True(t, after.Created.After(before.Created.Add(49*time.Minute)), "created %s, was %s", after.Created, before.Created)
	f1, _ := before.Fence()
	f2, _ := after.Fence()
	assert.Equal(t, f1, f2, "the fence stays")
	last := f.events[len(f.events)-1]
	assert.Equal(t, "renewed", last.Event)
	assert.Equal(t, "web", last.Actor)

	// With expires, the lifetime changes too.
	code, _, body = f.do("POST", "/api/locks/"+LockID(p)+"/renew", `{"expires": "3h"}`, "bearer")
	require.Equal(t, 200, code, body)
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	exp, err = time.Parse(time.RFC3339, *got.ExpiresAt)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(3*time.Hour), exp, 5*time.Second)

	// The lock list marks it as the page's person's own, and bob's not.
	require.NoError(t, os.MkdirAll(filepath.Join(f.root, "other"), 0o755))
	bobs := f.writeLock(filepath.Join(f.root, "other"), "bob")
	_, _, body = f.do("GET", "/api/locks", "", "bearer")
	var locks []lockOut
	require.NoError(t, json.Unmarshal([]byte(body), &locks))
	mine := map[string]bool{}
	rel := map[string]string{}
	for _, l := range locks {
		mine[l.Path], rel[l.Path] = l.Mine, l.RelativePath
	}
	assert.Equal(t, map[string]bool{p: true, bobs: false}, mine)
	assert.Equal(t, map[string]string{p: "proj/LOCK.txt", bobs: "other/LOCK.txt"}, rel)
}

func TestRenewAnothersOrExpiredLockIsRefused(t *testing.T) {
	f := newFixture(t)
	bobs := f.writeLock(filepath.Join(f.root, "proj"), "bob")
	was, err := os.ReadFile(bobs)
	require.NoError(t, err)
	code, _, body := f.do("POST", "/api/locks/"+LockID(bobs)+"/renew", `{}`, "bearer")
	assert.Equal(t, 409, code, body)
	var e apiError
	require.NoError(t, json.Unmarshal([]byte(body), &e))
	assert.Equal(t, 1, e.Exit, "guard renew's exit 1")
	assert.Equal(t, `renew refused: `+bobs+` is held by "bob", not "alice": lock belongs to someone else`, e.Error)
	now, err := os.ReadFile(bobs)
	require.NoError(t, err)
	assert.Equal(t, string(was), string(now), "bob's lock is untouched")

	// An expired lock of one's own is refused too: claim it again instead.
	old := f.writeOwnLock(filepath.Join(f.root, "old"), time.Now().Add(-2*time.Hour), "1h")
	code, _, body = f.do("POST", "/api/locks/"+LockID(old)+"/renew", `{}`, "bearer")
	assert.Equal(t, 409, code, body)
	assert.Contains(t, body, "expired")
	assert.Contains(t, body, "claim it again with guard lock")

	code, _, body = f.do("POST", "/api/locks/0000000000000000/renew", `{}`, "bearer")
	assert.Equal(t, 404, code, body)
	assert.Contains(t, body, "no lock with id 0000000000000000")
}

func TestRenewBadInputNamesTheField(t *testing.T) {
	f := newFixture(t)
	p := f.writeOwnLock(filepath.Join(f.root, "proj"), time.Now(), "1h")
	was, err := os.ReadFile(p)
	require.NoError(t, err)
	for b, want := range map[string]string{
		`{"expires": "soon"}`:  `expires \"soon\" is not \u003cnumber\u003e\u003cs|m|h|d\u003e`,
		`{"expires": 2}`:       `request body: json: cannot unmarshal number into Go struct field renewIn.expires of type string`,
		`{"owner": "bob"}`:     `request body: json: unknown field \"owner\"`,
		`{"force": true}`:      `request body: json: unknown field \"force\"`,
		``:                     `request body: EOF`,
		`{"expires": "1h"} {}`: ``,
	} {
		code, _, body := f.do("POST", "/api/locks/"+LockID(p)+"/renew", b, "bearer")
		if want == "" {
			continue // a second value after the object is not read (as every endpoint)
		}
		assert.Equal(t, 400, code, b)
		assert.Contains(t, body, want, b)
	}
	now, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, string(was), string(now), "no bad request renewed the lock")
	// The write gate applies as to every write.
	code, _, _ := f.do("POST", "/api/locks/"+LockID(p)+"/renew", `{}`, "bearer", "Origin", "http://evil.test")
	assert.Equal(t, 403, code)
	code, _, _ = f.do("POST", "/api/locks/"+LockID(p)+"/renew", `{}`, "")
	assert.Equal(t, 401, code)
	code, _, _ = f.do("GET", "/api/locks/"+LockID(p)+"/renew", "", "bearer")
	assert.Equal(t, 404, code, "renew is a POST")
}

// Who the page acts as is what guard lock would use in each room: the room's
// .guard.toml when no GUARD_OWNER is set, else user@host; a lock is "mine" by that
// identity in its own folder.
func TestRoomsSayWhoThePageActsAs(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(b, ".guard.toml"), []byte("owner = \"bot-b\"\nhost = \"hb\"\n"), 0o644))
	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, ".guard.toml"), []byte("owner = \n"), 0o644))
	env := envtest.New(envtest.Dir(a), envtest.Identity("carol", "hostc"), envtest.Vars(map[string]string{"HOME": t.TempDir()}),
		envtest.Streams(io.Discard, io.Discard)).Env // the server writes from its handlers' goroutines
	s := New(Options{Env: env, Roots: []lockcore.ScanRoot{{Path: a, MaxDepth: 4}, {Path: b, MaxDepth: 4}, {Path: bad, MaxDepth: 4}}, Token: token})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	s.SetPort(u.Port())
	get := func(path string, v any) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, 200, res.StatusCode)
		require.NoError(t, json.NewDecoder(res.Body).Decode(v))
	}
	var rooms []roomOut
	get("/api/rooms", &rooms)
	require.Len(t, rooms, 3)
	assert.Equal(t, [2]string{"carol@hostc", "hostc"}, [2]string{rooms[0].Owner, rooms[0].Host})
	assert.Empty(t, rooms[0].IdentityError)
	assert.Equal(t, [2]string{"bot-b", "hb"}, [2]string{rooms[1].Owner, rooms[1].Host})
	assert.Contains(t, rooms[2].IdentityError, filepath.Join(bad, ".guard.toml"), "the unreadable file is named")

	// bot-b's lock is its own in room b only; in a bad room nothing is.
	inA := lockcore.Spec{Dir: a, Kind: lockcore.Exclusive, Owner: "bot-b", Host: "hb", Expires: "1h"}
	inB := lockcore.Spec{Dir: b, Kind: lockcore.Exclusive, Owner: "bot-b", Host: "hb", Expires: "1h"}
	inBad := lockcore.Spec{Dir: bad, Kind: lockcore.Exclusive, Owner: "carol@hostc", Host: "hostc", Expires: "1h"}
	for _, sp := range []lockcore.Spec{inA, inB, inBad} {
		require.NoError(t, os.WriteFile(sp.Path(), sp.Body(envtest.Now, 1), 0o644))
	}
	var locks []lockOut
	get("/api/locks", &locks)
	mine := map[string]bool{}
	for _, l := range locks {
		mine[l.Path] = l.Mine
		assert.Equal(t, "LOCK.txt", l.RelativePath)
	}
	assert.Equal(t, map[string]bool{inA.Path(): false, inB.Path(): true, inBad.Path(): false}, mine)
}
