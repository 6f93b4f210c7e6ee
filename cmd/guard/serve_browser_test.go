package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
	"github.com/guardlocks/guard/lockcore"
)

const chromium = "/usr/bin/chromium"

// startServe runs the built guard serve on a free loopback port over root and returns
// the URL it printed (its token in the fragment) and the token.
func startServe(t *testing.T, root string) (string, string) {
	t.Helper()
	base, token := serveWith(t, root, []string{"PATH=" + testenv.Path(), "HOME=" + t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "GUARD_OWNER=alice", "GUARD_HOST=hosta"})
	return base + "/#token=" + token, token
}

// newBrowser starts Debian's chromium headless and returns its context (no timeout:
// the first action starts the browser) or skips the test without it.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is not installed (.ci/setup-chromium installs it: apt-get install -y chromium): the page is not tested in a browser", chromium)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(1280, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelA)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	return bctx
}

// requireNoCookies asserts that the browser holds no cookie at all (Storage.getCookies:
// every cookie of the browser, HttpOnly ones included), and that the page sees none.
func requireNoCookies(t *testing.T, ctx context.Context) {
	t.Helper()
	all, err := chromedp.CallBrowser(ctx, storage.GetCookies, storage.GetCookiesParams{})
	require.NoError(t, err)
	require.Empty(t, all.Cookies, "no cookie on 127.0.0.1 or anywhere: another local port would receive it")
	here, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{"http://127.0.0.1/", "http://localhost/"}})
	require.NoError(t, err)
	require.Empty(t, here.Cookies)
	cookie, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.cookie`))
	require.NoError(t, err)
	require.Equal(t, "", cookie)
}

func writeLockFile(t *testing.T, dir, owner string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	s := lockcore.Spec{Dir: dir, Kind: lockcore.Exclusive, Owner: owner, Host: "hostb", Expires: "2h", Purpose: "by " + owner}
	require.NoError(t, os.WriteFile(s.Path(), s.Body(time.Now(), 1), 0o644))
	return s.Path()
}

func waitFile(t *testing.T, p string, exists bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		_, err := os.Stat(p)
		if (err == nil) == exists {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: exists should be %v after 10 s", p, exists)
}

// TestServePageInARealBrowser drives Debian's chromium against the built guard serve:
// the page lists the locks on disk, shows one made on disk within 2 s without a reload,
// and claims and releases through its buttons, which change the files on disk.
func TestServePageInARealBrowser(t *testing.T) {
	bctx := newBrowser(t)
	root := t.TempDir()
	bobs := writeLockFile(t, filepath.Join(root, "a"), "bob")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "c"), 0o755))
	url, token := startServe(t, root)

	// The first Run starts the browser and must not carry a timeout (it would end the
	// browser); the steps after it do.
	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(url)))
	ctx, cancelT := context.WithTimeout(bctx, 60*time.Second)
	defer cancelT()

	row := func(p string) chromedp.CSS { return chromedp.CSS(fmt.Sprintf(`#locks tr[data-path=%q]`, p)) }
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(row(bobs))))
	location, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.False(t, strings.Contains(location, "token="), "the token stayed in the address bar: %s", location)
	// The token lives in the tab, never in a cookie.
	requireNoCookies(t, ctx)
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[string](`sessionStorage.getItem("guard-serve-token")`))
	require.NoError(t, err)
	require.Equal(t, token, kept)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#live.on`))), "the event stream (fetch, Bearer) is live")
	// A lock made on disk shows within 2 s, without a reload.
	made := writeLockFile(t, filepath.Join(root, "b"), "carol")
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Second)
	err = chromedp.Do(wctx, chromedp.WaitVisible(row(made)))
	wcancel()
	require.NoError(t, err, "the lock made on disk did not show within 2 s")

	// Claim through the form.
	dir := filepath.Join(root, "c")
	claimed := filepath.Join(dir, "LOCK.txt")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#c-dir`), dir),
		chromedp.SetValue(chromedp.CSS(`#c-purpose`), "from the browser"),
		chromedp.Click(chromedp.CSS(`#claim-btn`)),
	))
	waitFile(t, claimed, true)
	content, err := os.ReadFile(claimed)
	require.NoError(t, err)
	require.Contains(t, string(content), "owner: alice")
	require.Contains(t, string(content), "purpose: from the browser")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(row(claimed))))

	// Release through its button; the page asks first, and a person clicks Release.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(row(claimed)+` button.release`), chromedp.WaitVisible(chromedp.CSS(`#confirm[open]`)),
		chromedp.Click(chromedp.CSS(`#confirm-ok`))))
	waitFile(t, claimed, false)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitNotPresent(row(claimed))))
	require.FileExists(t, bobs)

	// A reload keeps the person signed in, and the page live: a lock made on disk
	// after the reload shows within 2 s.
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload()))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(row(bobs))))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#live.on`))))
	after := writeLockFile(t, filepath.Join(root, "d"), "dave")
	wctx, wcancel = context.WithTimeout(ctx, 2*time.Second)
	err = chromedp.Do(wctx, chromedp.WaitVisible(row(after)))
	wcancel()
	require.NoError(t, err, "after a reload, the lock made on disk did not show within 2 s")
	msg, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(`#message`)))
	require.NoError(t, err)
	require.NotContains(t, msg, "Not signed in")
	requireNoCookies(t, ctx)

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	require.NoError(t, err)
	png := filepath.Join(t.TempDir(), "guard-serve.png")
	require.NoError(t, os.WriteFile(png, shot, 0o644))
	t.Logf("screenshot: %s (%d bytes)", png, len(shot))
}

func TestServeRefusesANonLoopbackAddressAndASecondInstance(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	env := []string{"HOME=" + home}
	_, stderr, code := runGuard(t, root, env, "serve", "--addr", "0.0.0.0:0", root)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `--addr "0.0.0.0:0" is not a loopback address`)
	_, _, code = runGuard(t, root, env, "serve", "--addr", "192.0.2.1:8095", root)
	require.Equal(t, 2, code)

	cmd := exec.Command(guardBin, "serve", "--addr", "127.0.0.1:0", root)
	cmd.Env = []string{"PATH=" + testenv.Path(), "HOME=" + home}
	errp, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	sc := bufio.NewScanner(errp)
	require.True(t, sc.Scan(), "no URL line")
	first := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(sc.Text())
	require.NotEmpty(t, first, sc.Text())
	go func() {
		for sc.Scan() {
		}
	}()

	_, stderr, code = runGuard(t, root, env, "serve", "--addr", "127.0.0.1:0", root)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "another guard serve already runs")
	require.Contains(t, stderr, first)
	require.NotContains(t, stderr, "token", "the second instance must not learn the token")
	// The lock file in the state directory names the address, never the token.
	b, err := os.ReadFile(filepath.Join(home, ".local", "state", "guard", "serve.lock"))
	require.NoError(t, err)
	require.Contains(t, string(b), first)
	require.NotContains(t, string(b), "token")
}

// TestServeOpenSignsTheBrowserInWithoutACommandLineSecret: guard serve --open starts the
// browser (here a stand-in xdg-open that records its command line) on a file only its
// user can read; chromium, sent there, arrives signed in, with no cookie, and the file
// is gone once its one-time code is used.
func TestServeOpenSignsTheBrowserInWithoutACommandLineSecret(t *testing.T) {
	bctx := newBrowser(t)
	root := t.TempDir()
	bobs := writeLockFile(t, filepath.Join(root, "a"), "bob")
	bin := t.TempDir()
	argv := filepath.Join(t.TempDir(), "argv")
	script := "#!/bin/sh\nprintf '%s' \"$*\" > " + argv + ".tmp && mv " + argv + ".tmp " + argv + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(script), 0o755))
	_, token := serveWith(t, root, []string{"PATH=" + bin + ":" + testenv.Path(), "HOME=" + t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "GUARD_OWNER=alice", "GUARD_HOST=hosta"}, "--open")
	var opened string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && opened == "" {
		b, _ := os.ReadFile(argv)
		opened = string(b)
		time.Sleep(20 * time.Millisecond)
	}
	require.Regexp(t, `^file:///\S+/open-\d+\.html$`, opened)
	require.NotContains(t, opened, token)
	require.NotContains(t, opened, "code")

	require.NoError(t, chromedp.Do(bctx, chromedp.Navigate(opened)))
	ctx, cancelT := context.WithTimeout(bctx, 60*time.Second)
	defer cancelT()
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#locks tr[data-path=%q]`, bobs)))))
	location, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(location, "http://127.0.0.1:"), location)
	require.NotContains(t, location, "code=")
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[string](`sessionStorage.getItem("guard-serve-token")`))
	require.NoError(t, err)
	require.Equal(t, token, kept)
	requireNoCookies(t, ctx)
	waitFile(t, strings.TrimPrefix(opened, "file://"), false)
}
