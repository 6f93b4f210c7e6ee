package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// serveWith runs the built guard serve over root with the environment env and returns
// its URL's base and token.
func serveWith(t *testing.T, root string, env []string, flags ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(guardBin, append(append([]string{"serve", "--addr", "127.0.0.1:0"}, flags...), root)...)
	cmd.Dir, cmd.Env = root, env
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	urls := make(chan string, 1)
	var mu sync.Mutex
	var said []string
	t.Cleanup(func() {
		if t.Failed() {
			mu.Lock()
			t.Logf("guard serve's stderr:\n%s", strings.Join(said, "\n"))
			mu.Unlock()
		}
	})
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`http://127\.0\.0\.1:\d+/#token=[0-9a-f]+`)
		for sc.Scan() {
			mu.Lock()
			said = append(said, sc.Text())
			mu.Unlock()
			if u := re.FindString(sc.Text()); u != "" {
				urls <- u
			}
		}
	}()
	select {
	case u := <-urls:
		p, err := url.Parse(u)
		require.NoError(t, err)
		return "http://" + p.Host, strings.TrimPrefix(p.Fragment, "token=")
	case <-time.After(20 * time.Second):
		t.Fatal("guard serve printed no URL within 20 s")
	}
	return "", ""
}

type sseEvent struct {
	Event  string  `json:"event"`
	Path   string  `json:"path"`
	Actor  string  `json:"actor"`
	Owner  string  `json:"owner"`
	Detail string  `json:"detail"`
	Fence  *int64  `json:"fence"`
	Time   *string `json:"time"`
}

// TestServeStreamsWhatTheCLIAndTheHooksRecord: /api/events carries, live, the claims
// and refusals of guard commands run in other processes (they reach serve through the
// history's journal), each claim once although the watcher also sees its file appear;
// POST /api/scan makes the serving watcher scan and answers with its result.
func TestServeStreamsWhatTheCLIAndTheHooksRecord(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	home := t.TempDir()
	base := []string{"PATH=" + testenv.Path(), "HOME=" + home, "GIT_CONFIG_GLOBAL=/dev/null", "GUARD_HOST=hosta"}
	srv, token := serveWith(t, root, append(base, "GUARD_OWNER=alice"))

	req, _ := http.NewRequest("GET", srv+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	events := make(chan sseEvent, 50)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var ev sseEvent
				if json.Unmarshal([]byte(d), &ev) == nil {
					events <- ev
				}
			}
		}
	}()
	next := func(what string) sseEvent {
		t.Helper()
		select {
		case ev := <-events:
			return ev
		case <-time.After(5 * time.Second):
			t.Fatalf("no event within 5 s (%s)", what)
		}
		return sseEvent{}
	}

	run := func(owner string, args ...string) {
		t.Helper()
		cmd := exec.Command(guardBin, args...)
		cmd.Dir, cmd.Env = proj, append(base, "GUARD_OWNER="+owner)
		out, _ := cmd.CombinedOutput()
		t.Logf("guard %s: %s", strings.Join(args, " "), out)
	}
	run("bob", "lock", "--purpose", "cli work")
	ev := next("bob's claim")
	assert.Equal(t, "acquired", ev.Event)
	assert.Equal(t, filepath.Join(proj, "LOCK.txt"), ev.Path)
	assert.Equal(t, "bob", ev.Owner)

	run("carol", "check", filepath.Join(proj, "main.go"))
	ev = next("carol's refusal")
	assert.Equal(t, "refused", ev.Event, "a refusal of guard check, made in another process, reaches the page")
	assert.Equal(t, "carol", ev.Actor)
	assert.Contains(t, ev.Detail, "check")

	select {
	case ev := <-events:
		t.Fatalf("one event per claim and one per refusal, got also %+v", ev)
	case <-time.After(1500 * time.Millisecond):
	}

	// POST /api/scan: the serving watcher scans and says what it found.
	post, _ := http.NewRequest("POST", srv+"/api/scan", strings.NewReader("{}"))
	post.Header.Set("Authorization", "Bearer "+token)
	res2, err := http.DefaultClient.Do(post)
	require.NoError(t, err)
	body, _ := io.ReadAll(res2.Body)
	res2.Body.Close()
	require.Equal(t, 200, res2.StatusCode, string(body))
	var scan map[string]any
	require.NoError(t, json.Unmarshal(body, &scan))
	assert.Equal(t, true, scan["watcher"])
	assert.Equal(t, "request", scan["type"])
	assert.Equal(t, 1.0, scan["locks_found"])
	assert.Equal(t, "Scan complete", scan["message"])

	get, _ := http.NewRequest("GET", srv+"/api/stats", nil)
	get.Header.Set("Authorization", "Bearer "+token)
	res3, err := http.DefaultClient.Do(get)
	require.NoError(t, err)
	body, _ = io.ReadAll(res3.Body)
	res3.Body.Close()
	var stats map[string]any
	require.NoError(t, json.Unmarshal(body, &stats))
	assert.Equal(t, "request", stats["last_scan_type"])
	assert.Equal(t, false, stats["scan_stale"])
	assert.Equal(t, 1.0, stats["active"])
	assert.GreaterOrEqual(t, stats["total_events"], 1.0, "the refusal came through the history: "+string(body))
}
