package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/internal/testing/guardtest"
)

func TestParseFetchDestinations(t *testing.T) {
	out := "remote.origin.fetch\n+refs/heads/*:refs/remotes/origin/*\x00" +
		"remote.origin.fetch\n^refs/heads/secret\x00" +
		"remote.origin/mirror.fetch\n+refs/heads/*:refs/remotes/origin/mirror/*\x00" +
		"remote.a.b.fetch\nrefs/heads/main:refs/remotes/a.b/main\x00" +
		"remote.x.fetch\nrefs/heads/main\x00"
	assert.Equal(t, map[string][]string{
		"origin":        {"refs/remotes/origin/*"},
		"origin/mirror": {"refs/remotes/origin/mirror/*"},
		"a.b":           {"refs/remotes/a.b/main"},
	}, parseFetchDestinations([]byte(out)))
}

func TestRefsBelongToTheRemoteThatMapsThemMostClosely(t *testing.T) {
	specs := map[string][]string{"origin": {"refs/remotes/origin/*"}, "origin/mirror": {"refs/remotes/origin/mirror/*"}, "twin": {"refs/remotes/origin/*"}}
	assert.Equal(t, len("refs/remotes/origin/"), matchLen(specs["origin"], "refs/remotes/origin/main"))
	assert.Equal(t, -1, matchLen(specs["origin"], "refs/remotes/originx"))
	name, closer := ownedElsewhere(specs, "origin", "refs/remotes/origin/mirror/main")
	assert.Equal(t, "origin/mirror", name)
	assert.True(t, closer)
	name, closer = ownedElsewhere(map[string][]string{"origin": specs["origin"], "twin": specs["twin"]}, "origin", "refs/remotes/origin/main")
	assert.Equal(t, "twin", name, "two remotes mapping a ref equally: it counts for neither")
	assert.False(t, closer)
	name, _ = ownedElsewhere(specs, "origin/mirror", "refs/remotes/origin/mirror/main")
	assert.Equal(t, "", name, "origin maps it less closely than origin/mirror does")
}

func TestReflogEntriesVouchOnlyForGitsTransport(t *testing.T) {
	const sha = "1111111111111111111111111111111111111111"
	entry := func(msg string) reflogEntry { return reflogEntry{found: true, new: sha, message: msg} }
	for _, msg := range []string{"fetch: fast-forward", "fetch origin: fast-forward", "fetch -q --prune origin: storing head", "fetch --depth 1 origin: fast-forward", "pull -s recursive origin main: fast-forward", "pull: fast-forward", "pull --rebase origin main: fast-forward", "update by push", "clone: from /srv/r.git"} {
		assert.Equal(t, "", entry(msg).distrust("origin", sha), msg)
	}
	for msg, why := range map[string]string{
		"": "not by a fetch or push",
		"fetch . HEAD:refs/remotes/origin/x: storing ref":           "a fetch from another repository",
		"fetch /elsewhere main: storing head":                       "a fetch from another repository",
		"branch: Created from HEAD":                                 "not by a fetch or push",
		"remote: renamed refs/remotes/a/x to refs/remotes/origin/x": "not by a fetch or push",
	} {
		assert.Contains(t, entry(msg).distrust("origin", sha), why, msg)
	}
	assert.Contains(t, reflogEntry{}.distrust("origin", sha), "no reflog")
	assert.Contains(t, entry("update by push").distrust("origin", strings.Repeat("2", 40)), "changed since")

	e := parseReflogTail([]byte("0000000000000000000000000000000000000000 " + sha + " A <a@b> 1 +0000\tclone: from x\n" +
		sha + " 2222222222222222222222222222222222222222 A <a@b> 2 +0000\tfetch origin: fast-forward\n"))
	assert.Equal(t, reflogEntry{found: true, new: "2222222222222222222222222222222222222222", message: "fetch origin: fast-forward"}, e)
	assert.Equal(t, reflogEntry{}, parseReflogTail([]byte("garbage")))
}

func FuzzReflogAndRefspecParsers(f *testing.F) {
	f.Add([]byte("0000000000000000000000000000000000000000 1111111111111111111111111111111111111111 A <a@b> 1 +0000\tfetch origin: x\n"), "origin")
	f.Add([]byte("remote.origin.fetch\n+refs/heads/*:refs/remotes/origin/*\x00"), "o")
	f.Fuzz(func(t *testing.T, data []byte, remote string) {
		e := parseReflogTail(data)
		if e.found && !isHex(e.new) {
			t.Fatalf("parseReflogTail(%q) = %+v: a new value that is not an object name", data, e)
		}
		_ = e.distrust(remote, e.new)
		specs := parseFetchDestinations(data)
		for name, dsts := range specs {
			for _, d := range dsts {
				if d == "" || name == "" {
					t.Fatalf("parseFetchDestinations(%q): empty name or destination", data)
				}
				if matchLen(dsts, d) < 0 && !strings.Contains(d, "*") {
					t.Fatalf("destination %q does not match itself", d)
				}
			}
		}
	})
}

// DroppedByUpdate is the rule the server side shares: what moving a ref from old to
// new drops, with other tips that keep commits.
func TestDroppedByUpdate(t *testing.T) {
	dir := t.TempDir()
	env := guardtest.GitEnv(guardtest.Home(t))
	git := func(args ...string) string { t.Helper(); return guardtest.Git(t, dir, args...) }
	commit := func(path, msg string) string {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, path), []byte(msg), 0o644))
		git("add", path)
		git("commit", "-q", "-m", msg)
		return git("rev-parse", "HEAD")
	}
	git("init", "-q", "-b", "main")
	base := commit("free/a", "base")
	locked := commit("locked/b", "into locked")
	top := commit("free/c", "on top")
	git("checkout", "-q", "-b", "rewrite", base)
	rewritten := commit("free/d", "rewritten")
	g := gitrun.Git{Dir: dir, Env: env}
	ctx := context.Background()

	d, err := DroppedByUpdate(ctx, g, top, rewritten)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{top, locked}, d.Commits)
	assert.Equal(t, []string{"free/c", "locked/b"}, d.Paths)

	d, err = DroppedByUpdate(ctx, g, base, top)
	require.NoError(t, err)
	assert.Empty(t, d.Commits, "a fast-forward drops nothing")
	assert.Empty(t, d.Paths)

	d, err = DroppedByUpdate(ctx, g, top, rewritten, locked)
	require.NoError(t, err)
	assert.Equal(t, []string{top}, d.Commits, "a commit another tip keeps is not dropped")
	assert.Equal(t, []string{"free/c"}, d.Paths)

	// Dates skewed: a base newer than the commits on top of it (rev-list's walk, which
	// stops by dates, would list it as dropped).
	skew := []string{"GIT_COMMITTER_DATE=2001-01-01T00:00:00Z", "GIT_AUTHOR_DATE=2001-01-01T00:00:00Z"}
	git("checkout", "-q", top)
	for i := 0; i < 12; i++ {
		out, code := guardtest.GitCode(t, dir, skew, "commit", "-q", "--allow-empty", "-m", "old date")
		require.Equal(t, 0, code, "%s", out)
	}
	ahead := git("rev-parse", "HEAD")
	d, err = DroppedByUpdate(ctx, g, top, ahead)
	require.NoError(t, err)
	assert.Empty(t, d.Commits, "a fast-forward past commits with older dates drops nothing")

	d, err = DroppedByUpdate(ctx, g, top, strings.Repeat("0", 40))
	require.NoError(t, err)
	assert.Empty(t, d.Commits, "a deletion is not judged by this rule")
}
