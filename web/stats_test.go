package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
)

func TestStatsCarryTheReferencesFields(t *testing.T) {
	f := newFixture(t)
	active := f.writeLock(filepath.Join(f.root, "proj"), "bob")
	gone := filepath.Join(f.root, "old", "LOCK.txt")
	back := filepath.Join(f.root, "proj", "LOCK.txt") // released once, present again
	f.s.o.Tally = func(context.Context) (Tally, error) {
		return Tally{Total: 42, Gone: []string{gone, back}}, nil
	}
	at := time.Now().Add(-90 * time.Second).Truncate(time.Second)
	f.s.Scanned(guard.WatchScan{At: at, Type: "full", LocksFound: 1, Active: 1, New: 1, DurationMS: 12})
	require.Equal(t, active, back)

	code, _, body := f.do("GET", "/api/stats", "", "bearer")
	require.Equal(t, 200, code, body)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	for _, k := range []string{"active", "expired", "deleted", "last_scan_at", "last_scan_type", "total_events", "last_scan_age_seconds", "scan_stale"} {
		assert.Contains(t, got, k, "the reference's field %s", k)
	}
	assert.Equal(t, 1.0, got["active"])
	assert.Equal(t, 0.0, got["expired"])
	assert.Equal(t, 1.0, got["deleted"], "gone by the history and from disk; the one back on disk is not deleted")
	assert.Equal(t, 42.0, got["total_events"])
	assert.Equal(t, at.Format(time.RFC3339), got["last_scan_at"])
	assert.Equal(t, "full", got["last_scan_type"])
	assert.InDelta(t, 90, got["last_scan_age_seconds"], 30)
	assert.Equal(t, false, got["scan_stale"])
	assert.Equal(t, 1.0, got["roots"])
	assert.Equal(t, 12.0, got["last_scan"].(map[string]any)["duration_ms"])

	f.s.Scanned(guard.WatchScan{At: time.Now().Add(-6 * time.Minute), Type: "full"})
	_, _, body = f.do("GET", "/api/stats", "", "bearer")
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	assert.Equal(t, true, got["scan_stale"], "no full scan for more than 5 minutes")
}

func TestScanAsksTheServingWatcher(t *testing.T) {
	f := newFixture(t)
	asked := 0
	f.s.o.Rescan = func(ctx context.Context) (guard.WatchScan, error) {
		asked++
		r := guard.WatchScan{At: time.Now(), Type: "request", LocksFound: 3, Active: 2, New: 1, Modified: 1, Expired: 1, Deleted: 2}
		f.s.Scanned(r)
		return r, nil
	}
	code, _, body := f.do("POST", "/api/scan", "{}", "bearer")
	require.Equal(t, 200, code, body)
	assert.Equal(t, 1, asked)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	for k, v := range map[string]any{"locks_found": 3.0, "active": 2.0, "new": 1.0, "modified": 1.0, "expired": 1.0, "deleted": 2.0,
		"type": "request", "watcher": true, "message": "Scan complete"} {
		assert.Equal(t, v, got[k], k)
	}
	_, _, body = f.do("GET", "/api/stats", "", "bearer")
	assert.Contains(t, body, `"last_scan_type":"request"`)

	f.s.o.Rescan = func(ctx context.Context) (guard.WatchScan, error) {
		return guard.WatchScan{}, errors.New("the watcher stopped")
	}
	code, _, body = f.do("POST", "/api/scan", "{}", "bearer")
	assert.Equal(t, 503, code)
	assert.JSONEq(t, `{"error":"scan failed: the watcher stopped"}`, body)
}

func TestPublishDropsTheTwinOfALockEvent(t *testing.T) {
	f := newFixture(t)
	c := make(chan []byte, 16)
	f.s.subs[c] = struct{}{}
	fence := int64(7)
	watcher := guard.Event{Time: time.Now(), Event: "acquired", Path: "/p/LOCK.txt", Fence: &fence, Actor: "watch"}
	cli := watcher
	cli.Actor = "alice"
	f.s.Publish(watcher)
	f.s.Publish(cli) // guard lock's own record of the same claim
	refused := guard.Event{Time: time.Now(), Event: "refused", Path: "/p/a.go", Detail: "check: edit refused"}
	f.s.Publish(refused)
	f.s.Publish(refused) // two refusals are two events
	other := fence + 1
	again := watcher
	again.Fence = &other
	f.s.Publish(again) // a new claim of the same file
	assert.Len(t, c, 4)
}

func TestOpenHandsTheBrowserAOneTimeCodeNeverTheToken(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh for the stand-in xdg-open")
	}
	bin := t.TempDir()
	argv := filepath.Join(t.TempDir(), "argv")
	// A stand-in xdg-open that records its whole command line, as ps would show it.
	script := "#!/bin/sh\ntr '\\0' ' ' < /proc/$$/cmdline > " + argv + ".tmp && mv " + argv + ".tmp " + argv + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755))
	vars := map[string]string{"HOME": t.TempDir(), "PATH": bin + ":/usr/bin:/bin"}
	f := newFixture(t)
	env := *f.s.o.Env
	env.Getenv = func(k string) string { return vars[k] }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ServeOptions{Options: Options{Env: &env, ExitCode: f.s.o.ExitCode, Roots: f.s.o.Roots, Token: token}, Addr: "127.0.0.1:0", Open: true,
			Ready: func(u string) { urls <- u }})
	}()
	printed := <-urls
	assert.Contains(t, printed, "/#token="+token, "the terminal gets the token, in the fragment")
	var cmdline string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(argv); err == nil {
			cmdline = string(b)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NotEmpty(t, cmdline, "xdg-open was run")
	assert.NotContains(t, cmdline, token, "the browser's command line never holds the token")
	assert.NotContains(t, cmdline, "token=")
	assert.NotContains(t, cmdline, "code=", "nor the one-time code")
	m := regexp.MustCompile(`xdg-open file://(/\S+/open-\d+\.html) $`).FindStringSubmatch(cmdline)
	require.NotNil(t, m, cmdline)
	page := m[1]
	st, err := os.Stat(page)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "only its user reads the page that holds the code")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	base := strings.TrimSuffix(printed[:strings.Index(printed, "/#")], "/")
	cm := regexp.MustCompile(`url=` + regexp.QuoteMeta(base) + `/#code=([0-9a-f]{32})"`).FindStringSubmatch(string(html))
	require.NotNil(t, cm, "the page sends the browser on with the code in the fragment: %s", html)

	// The page trades the code once for the token; then the file is gone.
	post := func() (int, string) {
		req, _ := http.NewRequest("POST", base+"/api/session", strings.NewReader(`{"code": "`+cm[1]+`"}`))
		req.Header.Set("Origin", base)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		assert.Empty(t, res.Header.Values("Set-Cookie"))
		return res.StatusCode, string(b)
	}
	code, body := post()
	require.Equal(t, 200, code, body)
	assert.JSONEq(t, `{"token": "`+token+`"}`, body)
	code, _ = post()
	assert.Equal(t, 401, code, "a code is good once")
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(page); os.IsNotExist(err) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	assert.NoFileExists(t, page, "the page with the code is removed once the code is used")
	cancel()
	require.NoError(t, <-done)
}

func TestOneTimeCodesExpire(t *testing.T) {
	var c oneTimeCodes
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	a, err := c.issue(now)
	require.NoError(t, err)
	b, _ := c.issue(now)
	assert.NotEqual(t, a, b)
	assert.True(t, c.redeem(b, now.Add(CodeLife-time.Second)), "good for 60 s")
	assert.False(t, c.redeem(b, now), "once")
	assert.False(t, c.redeem(a, now.Add(CodeLife)), "60 s later it is no longer good")
	assert.False(t, c.redeem(a, now), "and it is forgotten")
	assert.False(t, c.redeem("", now))
	assert.Empty(t, c.codes)
}
