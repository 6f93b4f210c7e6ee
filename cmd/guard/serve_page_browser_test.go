package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

// ist is the browser's zone in the page test: +05:30 (no daylight saving), so a local
// clock time differs from UTC's and from the machine's in its minutes too.
var ist = time.FixedZone("IST", 5*3600+30*60)

// rowInfo is what a person sees of one lock in the list.
type rowInfo struct {
	Path       string   `json:"path"`
	Lock       string   `json:"lock"`
	Owner      string   `json:"owner"`
	Since      string   `json:"since"`
	SinceTitle string   `json:"sinceTitle"`
	Until      string   `json:"until"`
	Buttons    []string `json:"buttons"`
}

const rowsJS = `[...document.querySelectorAll("#locks tbody tr")].map((tr) => ({
	path: tr.dataset.path, lock: tr.querySelector("td.path").innerText, owner: tr.querySelector("td.owner").innerText,
	since: tr.querySelector("td.since").innerText, sinceTitle: (tr.querySelector("td.since time") || {}).title || "",
	until: tr.querySelector("td.until").innerText, buttons: [...tr.querySelectorAll("button")].map((b) => b.className)}))`

// pageShots keeps the screenshots of one test: in its temp dir, and also in
// $GUARD_TEST_SCREENSHOTS when that names a directory (to look at them after the run;
// the test's outcome does not depend on it).
type pageShots struct {
	t    *testing.T
	dir  string
	keep string
}

func newPageShots(t *testing.T) *pageShots {
	s := &pageShots{t: t, dir: t.TempDir(), keep: os.Getenv("GUARD_TEST_SCREENSHOTS")}
	t.Logf("screenshots in %s", s.dir)
	return s
}

func (s *pageShots) take(ctx context.Context, name string) {
	s.t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(s.t, err)
	require.Greater(s.t, len(png), 1000, name)
	require.NoError(s.t, os.WriteFile(filepath.Join(s.dir, name+".png"), png, 0o644))
	if s.keep != "" {
		require.NoError(s.t, os.WriteFile(filepath.Join(s.keep, name+".png"), png, 0o644))
	}
}

// requireFits asserts the page needs no sideways scrolling at the viewport's width.
func requireFits(t *testing.T, ctx context.Context, width int, what string) {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, window.innerWidth]`))
	require.NoError(t, err)
	require.Equal(t, width, got[1], "the viewport's width")
	require.LessOrEqual(t, got[0], got[1], "%s: the page is %d px wide in a %d px viewport (it scrolls sideways)", what, got[0], got[1])
}

// lines is text as its lines show, without the blank ones between paragraphs.
func lines(s string) string {
	return strings.TrimSpace(regexp.MustCompile(`\n\s*\n`).ReplaceAllString(s, "\n"))
}

func writeSpec(t *testing.T, s lockcore.Spec, created time.Time) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(s.Dir, 0o755))
	require.NoError(t, os.WriteFile(s.Path(), s.Body(created, 1), 0o644))
	return s.Path()
}

// TestServePageAtTwoWidths drives Debian's chromium, set to India's time zone and a
// British locale, against the built guard serve at 1280 and 400 px: the page says who
// it acts as, shows paths within the room and times in the browser's zone (the exact
// stamp on hover, no ISO stamp or raw key anywhere), offers Extend and Release on the
// person's own lock only and a distinct, explained Force release on others' (naming
// the holder), previews prune and the lockdown's undo in words from a settings area
// outside the top bar, and fits 400 px without sideways scrolling. Extend and the force
// releases are driven for real: the files on disk change. It saves screenshots of each
// view at both widths.
func TestServePageAtTwoWidths(t *testing.T) {
	bctx := newBrowser(t)
	shots := newPageShots(t)
	root := t.TempDir()
	now := time.Now()
	mineAt := now.Add(-50 * time.Minute).Truncate(time.Second)
	mine := writeSpec(t, lockcore.Spec{Dir: filepath.Join(root, "src", "api"), Kind: lockcore.Exclusive, Owner: "alice", Host: "hosta", Expires: "1h", Purpose: "my refactor"}, mineAt)
	bobAt := now.Add(-10 * time.Minute).Truncate(time.Second)
	bobs := writeSpec(t, lockcore.Spec{Dir: filepath.Join(root, "docs"), Kind: lockcore.Exclusive, Owner: "bob", Host: "hostb", Expires: "2h", Purpose: "rewriting the guide"}, bobAt)
	erins := writeSpec(t, lockcore.Spec{Dir: filepath.Join(root, "release"), Kind: lockcore.User, Owner: "erin", Host: "hoste", Purpose: "release freeze"}, now.Add(-3*time.Hour))
	old := writeSpec(t, lockcore.Spec{Dir: filepath.Join(root, "old"), Kind: lockcore.Exclusive, Owner: "carol", Host: "hostc", Expires: "1h"}, now.Add(-5*time.Hour))
	url, _ := startServe(t, root)

	// The zone and locale are set before the page loads (its formatters read them
	// once). The first call starts the browser and carries no timeout.
	_, err := chromedp.Call(bctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Kolkata"})
	require.NoError(t, err)
	_, err = chromedp.Call(bctx, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: "en_GB"})
	require.NoError(t, err)
	// Generous: on a loaded machine chromium renders slowly (a step that hangs still
	// fails well within it).
	ctx, cancelT := context.WithTimeout(bctx, 300*time.Second)
	defer cancelT()
	row := func(p string) string { return fmt.Sprintf(`#locks tr[data-path=%q]`, p) }
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(row(mine)))))
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#live.on`))))
	rows := func() map[string]rowInfo {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]rowInfo](rowsJS))
		require.NoError(t, err)
		out := map[string]rowInfo{}
		for _, r := range got {
			out[r.Path] = r
		}
		return out
	}
	bodyText := func() string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		require.NoError(t, err)
		return s
	}
	iso := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d`)
	requirePlain := func(what string) {
		t.Helper()
		text := bodyText()
		require.NotContains(t, text, root, "%s: an absolute path shows", what)
		require.False(t, iso.MatchString(text), "%s: an ISO stamp shows: %q", what, iso.FindString(text))
		for _, key := range []string{"expires_at", "release_condition", "created_source", "would_remove", "would_unlock", "{\""} {
			require.NotContains(t, text, key, "%s: a raw key shows", what)
		}
	}

	// Who the page acts as, in the top bar; lockdown and its undo are not there.
	who, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#whoami`)))
	require.NoError(t, err)
	require.Equal(t, "You act as alice on hosta", who)
	inHeader, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("header button")].map((b) => b.textContent)`))
	require.NoError(t, err)
	require.Equal(t, []string{"Rescan"}, inHeader, "only Rescan in the top bar: lockdown, its undo and prune live in the settings area")

	// Paths within the room, times in the browser's zone, buttons by whose lock it is.
	got := rows()
	require.Len(t, got, 3, "the expired lock is not listed as active")
	assert.Equal(t, "src/api/LOCK.txt", got[mine].Lock)
	assert.Equal(t, "docs/LOCK.txt", got[bobs].Lock)
	assert.Equal(t, "release/LOCK.user.txt", got[erins].Lock)
	assert.Contains(t, got[mine].Owner, "alice")
	assert.Contains(t, got[mine].Owner, "you")
	assert.NotContains(t, got[bobs].Owner, "you")
	assert.Contains(t, got[mine].Since, mineAt.In(ist).Format("15:04"))
	assert.Contains(t, got[mine].Since, "50m", "how long ago")
	assert.Contains(t, got[mine].SinceTitle, mineAt.In(ist).Format("15:04:05"), "the exact local stamp on hover")
	assert.Contains(t, got[mine].Until, mineAt.Add(time.Hour).In(ist).Format("15:04"))
	assert.Contains(t, got[mine].Until, "in ")
	assert.Contains(t, got[bobs].Since, bobAt.In(ist).Format("15:04"))
	assert.Contains(t, got[bobs].Until, bobAt.Add(2*time.Hour).In(ist).Format("15:04"))
	assert.Equal(t, "until a person removes it", got[erins].Until)
	assert.Equal(t, []string{"extend", "release"}, got[mine].Buttons, "Extend and Release on one's own lock")
	assert.Equal(t, []string{"force"}, got[bobs].Buttons, "another's lock: Force release only")
	assert.Equal(t, []string{"force"}, got[erins].Buttons, "a person's lock: Force release only")
	requirePlain("the lock list")
	shots.take(ctx, "1280-locks")

	// The detail: plain labels, local times.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(row(mine)+` a.lock-link`)), chromedp.WaitVisible(chromedp.CSS(`#detail-section`))))
	labels, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#detail dt")].map((d) => d.textContent)`))
	require.NoError(t, err)
	assert.Equal(t, []string{"Lock file", "Room", "Kind", "Covers", "Held by", "Host", "Since", "Until", "Mode", "Purpose", "Claim number (fence)"}, labels)
	detail, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#detail`)))
	require.NoError(t, err)
	assert.Contains(t, detail, "src/api/LOCK.txt")
	assert.Contains(t, detail, "alice (you)")
	assert.Contains(t, detail, "the whole folder")
	assert.Contains(t, detail, mineAt.In(ist).Format("15:04"))
	requirePlain("the detail")
	shots.take(ctx, "1280-detail")

	// Extend, for real: created moves to now on disk, and the page shows the new end.
	before, err := lockcore.ReadLock(mine, time.UTC)
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(row(mine)+` button.extend`))))
	var renewed *lockcore.Lock
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if l, err := lockcore.ReadLock(mine, time.UTC); err == nil && l.Created.After(before.Created.Add(40*time.Minute)) {
			renewed = l
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NotNil(t, renewed, "Extend did not renew %s", mine)
	f1, _ := before.Fence()
	f2, _ := renewed.Fence()
	require.Equal(t, f1, f2, "renew keeps the fence")
	newEnd := renewed.Created.Add(time.Hour).In(ist).Format("15:04")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`(document.querySelector(%q) || {innerText: ""}).innerText.includes(%q)`, row(mine)+" td.until", newEnd), chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err, "the page did not show the new end %s", newEnd)
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#message`)))
	require.NoError(t, err)
	assert.Contains(t, msg, "Extended src/api/LOCK.txt: now until "+newEnd)

	// Force release of bob's lock: a distinct dialog that names him and says what it
	// does to him; Cancel leaves the lock, its own button removes it.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(row(bobs)+` button.force`)), chromedp.WaitVisible(chromedp.CSS(`#confirm[open]`))))
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#confirm-title`)))
	require.NoError(t, err)
	assert.Equal(t, "Force release bob on hostb's lock on docs/LOCK.txt?", title)
	body, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#confirm-body`)))
	require.NoError(t, err)
	assert.Contains(t, body, "without asking bob and without telling them")
	assert.Contains(t, body, "guard run")
	ok, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#confirm-ok`)))
	require.NoError(t, err)
	assert.Equal(t, "Force release bob's lock", ok)
	shots.take(ctx, "1280-force")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#confirm-cancel`)), chromedp.WaitNotPresent(chromedp.CSS(`#confirm[open]`))))
	require.FileExists(t, bobs, "Cancel releases nothing")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(row(bobs)+` button.force`)), chromedp.WaitVisible(chromedp.CSS(`#confirm[open]`)),
		chromedp.Click(chromedp.CSS(`#confirm-ok`))))
	waitFile(t, bobs, false)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS(row(bobs)))))

	// The settings area: prune's preview in words, then the lockdown's undo's.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#settings summary`)), chromedp.WaitVisible(chromedp.CSS(`#prune-preview`)),
		chromedp.Click(chromedp.CSS(`#prune-preview`)), chromedp.WaitVisible(chromedp.CSS(`#action-section`))))
	preview, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#action-result`)))
	require.NoError(t, err)
	assert.Equal(t, "Would remove 1 expired lock:\nold/LOCK.txt", lines(preview))
	label, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#action-commit`)))
	require.NoError(t, err)
	assert.Equal(t, "Remove 1 lock", label)
	requirePlain("the prune preview")
	shots.take(ctx, "1280-settings")
	require.FileExists(t, old, "a preview removes nothing")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#action-commit`))))
	waitFile(t, old, false)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#action-result").innerText.includes("Removed 1 expired lock:")`, chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err, "the page says what prune did")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#undo-preview`))))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#action-title").textContent === "Undo the lockdown"`, chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err)
	preview, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#action-result`)))
	require.NoError(t, err)
	assert.Equal(t, "Nothing to undo: no lock of a lockdown is left.", lines(preview))
	requirePlain("the undo preview")

	// 400 px: cards instead of a table, nothing wider than the screen.
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(400, 900), chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(row(mine)))))
	requireFits(t, ctx, 400, "the lock list")
	head, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("#locks thead")).display`))
	require.NoError(t, err)
	assert.Equal(t, "none", head, "no table header at 400 px: each lock is a card")
	got = rows()
	require.Len(t, got, 2)
	assert.Contains(t, got[mine].Until, newEnd)
	assert.Equal(t, []string{"extend", "release"}, got[mine].Buttons)
	assert.Equal(t, []string{"force"}, got[erins].Buttons)
	requirePlain("the lock list at 400 px")
	shots.take(ctx, "400-locks")

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(row(erins)+` a.lock-link`)), chromedp.WaitVisible(chromedp.CSS(`#detail-section`))))
	requireFits(t, ctx, 400, "the detail")
	requirePlain("the detail at 400 px")
	shots.take(ctx, "400-detail")

	// A person's lock: the force dialog says so and names her; confirming removes it.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(row(erins)+` button.force`)), chromedp.WaitVisible(chromedp.CSS(`#confirm[open]`))))
	body, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#confirm-body`)))
	require.NoError(t, err)
	assert.Contains(t, body, "This is a person's lock (a user lock): erin on hoste set it")
	requireFits(t, ctx, 400, "the force dialog")
	shots.take(ctx, "400-force")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#confirm-ok`))))
	waitFile(t, erins, false)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitNotPresent(chromedp.CSS(row(erins)))))

	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#settings summary`)), chromedp.WaitVisible(chromedp.CSS(`#lockdown-preview`)),
		chromedp.Click(chromedp.CSS(`#lockdown-preview`)), chromedp.WaitVisible(chromedp.CSS(`#action-section`))))
	preview, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#action-result`)))
	require.NoError(t, err)
	assert.Contains(t, preview, "Would put a hard lock (LOCK.txt, for 24 hours) at the top of 1 room:")
	requireFits(t, ctx, 400, "the settings area")
	requirePlain("the lockdown preview at 400 px")
	shots.take(ctx, "400-settings")
	require.NoFileExists(t, filepath.Join(root, "LOCK.txt"), "a preview locks nothing")
	require.FileExists(t, mine)
}
