package lockcore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

// mkTree creates files under root: a key ending in "/" is a directory, anything else
// a file with that body.
func mkTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
}

// relPaths lists the locks' paths relative to root, with forward slashes.
func relPaths(t *testing.T, root string, locks []*lockcore.Lock) []string {
	t.Helper()
	out := []string{}
	for _, l := range locks {
		rel, err := filepath.Rel(root, l.Path)
		require.NoError(t, err)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

func scanOne(root string, depth int, skip ...string) *lockcore.ScanResult {
	return lockcore.Scan([]lockcore.ScanRoot{{Path: root, MaxDepth: depth}}, lockcore.ScanOptions{SkipDirs: skip, Loc: cest})
}

// skipIfPermissionsDoNotBind skips a sub-test that relies on chmod 000 stopping reads:
// root (and CAP_DAC_OVERRIDE) reads anything.
func skipIfPermissionsDoNotBind(t *testing.T, probe string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("chmod 000 does not make a directory unreadable on Windows")
	}
	if f, err := os.Open(probe); err == nil {
		f.Close()
		t.Skipf("running with privileges that ignore file modes (uid %d): chmod 000 does not stop reads, so the unreadable case cannot be built here", os.Geteuid())
	}
}

func TestScanWalksDepthsZeroToMax(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{
		"LOCK.txt":                "",
		"a/LOCK.a.txt":            "",
		"a/b/LOCK.b.txt":          "",
		"a/b/c/LOCK.c.txt":        "",
		"a/b/c/d/e/LOCK.deep.txt": "",
	})
	cases := []struct {
		depth int
		want  []string
	}{
		{0, []string{"LOCK.txt"}},
		{1, []string{"LOCK.txt", "a/LOCK.a.txt"}},
		{2, []string{"LOCK.txt", "a/LOCK.a.txt", "a/b/LOCK.b.txt"}},
		{4, []string{"LOCK.txt", "a/LOCK.a.txt", "a/b/LOCK.b.txt", "a/b/c/LOCK.c.txt"}},
		{5, []string{"LOCK.txt", "a/LOCK.a.txt", "a/b/LOCK.b.txt", "a/b/c/LOCK.c.txt", "a/b/c/d/e/LOCK.deep.txt"}},
	}
	for _, c := range cases {
		t.Run("max depth "+string(rune('0'+c.depth)), func(t *testing.T) {
			res := scanOne(root, c.depth)
			assert.Equal(t, c.want, relPaths(t, root, res.Locks))
			assert.Empty(t, res.Errors)
		})
	}
	assert.Equal(t, 3, scanOne(root, 2).Dirs, "max depth 2 reads root, a and a/b")
}

func TestScanFindsEveryLockNameAndNothingElse(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{
		"lock.txt": "", "x/LOCK.TXT": "", "y/Lock.Api.Txt": "", "z/TEST.txt": "", "z/TESTS.txt": "",
		"n/test.txt": "", "n/LOCK.permissions.txt": "{}", "n/LOCK-CACHE.md": "", "n/LOCK.txt.bak": "",
		"n/LOCK_TEMPLATE.txt": "", "n/LOCK..txt": "", "n/PRIVATE.txt": "",
		"t/LOCK.team.h1.txt": "", "t/LOCK.user.x.txt": "", "t/LOCK.condition.txt": "", "t/LOCK.until.txt": "",
	})
	res := scanOne(root, 4)
	assert.Equal(t, []string{
		"lock.txt", "t/LOCK.condition.txt", "t/LOCK.team.h1.txt", "t/LOCK.until.txt", "t/LOCK.user.x.txt",
		"x/LOCK.TXT", "y/Lock.Api.Txt", "z/TEST.txt", "z/TESTS.txt",
	}, relPaths(t, root, res.Locks))
}

func TestScanSkipsConfiguredDirectoriesIgnoringCase(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{
		"Node_Modules/LOCK.txt": "", "a/.git/LOCK.txt": "", "a/src/LOCK.txt": "", "build/LOCK.txt": "",
	})
	res := scanOne(root, 4, "node_modules", ".git")
	assert.Equal(t, []string{"a/src/LOCK.txt", "build/LOCK.txt"}, relPaths(t, root, res.Locks))
}

func TestScanRootsAndTheirDepths(t *testing.T) {
	base := t.TempDir()
	mkTree(t, base, map[string]string{
		"deep/a/b/c/LOCK.txt": "", "shallow/a/b/c/LOCK.txt": "", "shallow/a/LOCK.txt": "",
		"file-root": "", "deep/a/LOCK.mid.txt": "",
	})
	c, err := lockcore.ParseRootsConfig("r.json", []byte(`{"roots": [
		{"path": "deep"}, {"path": "shallow", "shallow": true}, {"path": "missing"}, {"path": "file-root"},
		{"path": "deep/a"}, {"path": "deep"}]}`), testExpander)
	require.NoError(t, err)
	res := lockcore.Scan(c.ScanRoots(base), lockcore.ScanOptions{Loc: cest})
	assert.Equal(t, []string{"deep/a/LOCK.mid.txt", "deep/a/b/c/LOCK.txt", "shallow/a/LOCK.txt"}, relPaths(t, base, res.Locks),
		"missing and file roots are skipped, each lock is listed once")
	assert.Empty(t, res.Errors, "a missing root is not an error")

	// A nested root that reaches deeper than its parent root adds its deeper locks.
	mkTree(t, base, map[string]string{"deep/a/b/c/d/e/LOCK.far.txt": ""})
	res = lockcore.Scan([]lockcore.ScanRoot{{Path: filepath.Join(base, "deep"), MaxDepth: 4}, {Path: filepath.Join(base, "deep/a/b"), MaxDepth: 3}}, lockcore.ScanOptions{Loc: cest})
	assert.Equal(t, []string{"deep/a/LOCK.mid.txt", "deep/a/b/c/LOCK.txt", "deep/a/b/c/d/e/LOCK.far.txt"}, relPaths(t, base, res.Locks))
}

func TestScanIsTheSameWhateverTheParallelism(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 40 {
		for j := range 5 {
			files[filepath.Join("d"+string(rune('a'+i%26))+string(rune('a'+i/26)), "s"+string(rune('0'+j)), "LOCK.txt")] = "owner: o"
		}
	}
	mkTree(t, root, files)
	one := lockcore.Scan([]lockcore.ScanRoot{{Path: root, MaxDepth: 4}}, lockcore.ScanOptions{Workers: 1, Loc: cest})
	many := lockcore.Scan([]lockcore.ScanRoot{{Path: root, MaxDepth: 4}}, lockcore.ScanOptions{Workers: 16, Loc: cest})
	require.Len(t, one.Locks, 200)
	assert.Equal(t, relPaths(t, root, one.Locks), relPaths(t, root, many.Locks))
	assert.Equal(t, one.Dirs, many.Dirs)
	for i := 1; i < len(many.Locks); i++ {
		assert.Less(t, many.Locks[i-1].Path, many.Locks[i].Path, "sorted by path")
	}
}

func TestScanFollowsSymlinksButNotLoops(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	root := t.TempDir()
	mkTree(t, root, map[string]string{"a/LOCK.txt": "", "b/LOCK.b.txt": "", "target.txt": "owner: linked"})
	require.NoError(t, os.Symlink("..", filepath.Join(root, "a", "up")))                   // loop to the root
	require.NoError(t, os.Symlink(".", filepath.Join(root, "a", "self")))                  // loop to itself
	require.NoError(t, os.Symlink("../b", filepath.Join(root, "a", "tob")))                // a real alias
	require.NoError(t, os.Symlink("missing", filepath.Join(root, "a", "LOCK.dangle.txt"))) // dangling
	require.NoError(t, os.Symlink("../target.txt", filepath.Join(root, "a", "LOCK.link.txt")))
	require.NoError(t, os.Symlink("loop2", filepath.Join(root, "loop1")))
	require.NoError(t, os.Symlink("loop1", filepath.Join(root, "loop2")))

	done := make(chan *lockcore.ScanResult, 1)
	go func() { done <- scanOne(root, 64) }()
	select {
	case res := <-done:
		assert.Equal(t, []string{"a/LOCK.link.txt", "a/LOCK.txt", "a/tob/LOCK.b.txt", "b/LOCK.b.txt"}, relPaths(t, root, res.Locks))
		assert.Empty(t, res.Errors)
		for _, l := range res.Locks {
			if l.File == "LOCK.link.txt" {
				assert.Equal(t, "linked", l.Owner, "a symlinked lock file is read through the link")
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("scan did not finish: a symlink loop was followed")
	}
}

func TestScanSurvivesBadEntries(t *testing.T) {
	root := t.TempDir()
	big := make([]byte, 4<<20)
	for i := range big {
		big[i] = byte(i*7 + i/3)
	}
	copy(big, "owner: binary\n")
	mkTree(t, root, map[string]string{
		"LOCK.txt/LOCK.inner.txt": "owner: inner", // a directory named like a lock
		"bom/LOCK.txt":            "\xef\xbb\xbfowner: bom\r\ncreated: 2026-06-15T10:00\r\n",
		"utf/LOCK.txt":            "owner: \xff\xfe bad\nhost: h\n",
		"bin/LOCK.txt":            string(big),
		"nul/LOCK.txt":            "\x00\x00owner: z\x00\n",
	})
	fifo := filepath.Join(root, "fifo", "LOCK.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(fifo), 0o755))
	mkfifo(t, fifo)

	done := make(chan *lockcore.ScanResult, 1)
	go func() { done <- scanOne(root, 4) }()
	var res *lockcore.ScanResult
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("scan hung on a FIFO or a huge file")
	}
	assert.Equal(t, []string{"LOCK.txt/LOCK.inner.txt", "bin/LOCK.txt", "bom/LOCK.txt", "fifo/LOCK.txt", "nul/LOCK.txt", "utf/LOCK.txt"}, relPaths(t, root, res.Locks),
		"a directory named like a lock is not a lock; a FIFO is listed unread")
	by := map[string]*lockcore.Lock{}
	for _, l := range res.Locks {
		by[filepath.Base(l.Dir)] = l
	}
	assert.Equal(t, "bom", by["bom"].Owner)
	assert.Equal(t, "header", by["bom"].CreatedSource)
	assert.Equal(t, "\uFFFD bad", by["utf"].Owner)
	assert.Equal(t, "h", by["utf"].Host)
	assert.Equal(t, "binary", by["bin"].Owner)
	assert.LessOrEqual(t, len(strings.Join(by["bin"].Fields.Lines, "\n")), lockcore.MaxLockFileSize, "only a bounded prefix is read")
	assert.ErrorIs(t, by["fifo"].ReadErr, lockcore.ErrNotRegular)
	assert.ErrorIs(t, by["nul"].ReadErr, lockcore.ErrInvalidLock, "NUL bytes and no readable field: not a lock body")
	for _, l := range res.Locks {
		if d := filepath.Base(l.Dir); d != "fifo" && d != "nul" {
			assert.NoError(t, l.ReadErr, l.Path)
		}
	}
}

func TestScanReportsUnreadableDirectoriesAndGoesOn(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{"open/LOCK.txt": "", "closed/LOCK.txt": "", "closed/sub/LOCK.txt": "", "z/LOCK.txt": ""})
	closed := filepath.Join(root, "closed")
	require.NoError(t, os.Chmod(closed, 0o000))
	t.Cleanup(func() { os.Chmod(closed, 0o755) })
	want := []string{filepath.Join(root, "open/LOCK.txt"), filepath.Join(root, "z/LOCK.txt")}

	if runtime.GOOS != "windows" && os.Geteuid() == 0 {
		// chmod 000 does not stop root: scan as an unprivileged user instead.
		locks, unreadable := scanAsNobody(t, root)
		assert.Equal(t, want, locks)
		assert.Equal(t, []string{closed + ": permission denied"}, unreadable)
		return
	}
	skipIfPermissionsDoNotBind(t, closed)
	res := scanOne(root, 4)
	assert.Equal(t, []string{"open/LOCK.txt", "z/LOCK.txt"}, relPaths(t, root, res.Locks))
	require.Len(t, res.Errors, 1)
	assert.Equal(t, closed, res.Errors[0].Path)
	assert.ErrorIs(t, res.Errors[0], os.ErrPermission)
	assert.Contains(t, res.Errors[0].Error(), closed)
}

func TestScanKeepsAnUnreadableLockFile(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{"LOCK.txt": "owner: secret"})
	p := filepath.Join(root, "LOCK.txt")
	require.NoError(t, os.Chmod(p, 0o000))
	skipIfPermissionsDoNotBind(t, p)

	res := scanOne(root, 4)
	require.Len(t, res.Locks, 1)
	assert.Error(t, res.Locks[0].ReadErr, "an unreadable lock is still a lock (fail closed)")
	assert.Equal(t, "mtime", res.Locks[0].CreatedSource)
}

func TestScanResultActiveDropsExpiredLocks(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{
		"old/LOCK.txt":       "created: " + stamp(now.Add(-48*time.Hour)),
		"new/LOCK.txt":       "created: " + stamp(now.Add(-time.Hour)),
		"user/LOCK.user.txt": "created: " + stamp(now.Add(-480*time.Hour)),
	})
	res := scanOne(root, 4)
	assert.Equal(t, []string{"new/LOCK.txt", "old/LOCK.txt", "user/LOCK.user.txt"}, relPaths(t, root, res.Locks))
	assert.Equal(t, []string{"new/LOCK.txt", "user/LOCK.user.txt"}, relPaths(t, root, res.Active(now)))
}

func TestScanReportsARootThatCannotBeResolved(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	base := t.TempDir()
	mkTree(t, base, map[string]string{"ok/LOCK.txt": ""})
	loop := filepath.Join(base, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	res := lockcore.Scan([]lockcore.ScanRoot{{Path: loop, MaxDepth: 4}, {Path: filepath.Join(base, "ok"), MaxDepth: 4}}, lockcore.ScanOptions{})
	assert.Equal(t, []string{"ok/LOCK.txt"}, relPaths(t, base, res.Locks))
	require.Len(t, res.Errors, 1)
	assert.Equal(t, loop+": too many levels of symbolic links", res.Errors[0].Error())
}

func TestScanFindsNamesThatOnlyUnicodeCaseFoldingMakesLocks(t *testing.T) {
	root := t.TempDir()
	// The Kelvin sign folds to k and the long s to s, in the name rule as in Python's.
	mkTree(t, root, map[string]string{"LOC\u212a.txt": "", "a/LOCK.\u017fcope.txt": ""})
	var want []string
	for _, n := range []string{"LOC\u212a.txt", "LOCK.\u017fcope.txt"} {
		if lockcore.IsLockName(n) {
			want = append(want, n)
		}
	}
	var got []string
	for _, l := range scanOne(root, 4).Locks {
		got = append(got, l.File)
	}
	assert.ElementsMatch(t, want, got, "the scanner finds exactly what Classify accepts")
}

func TestScanWalksANestedRootThatTheOuterRootSkips(t *testing.T) {
	base := t.TempDir()
	mkTree(t, base, map[string]string{"build/out/LOCK.txt": "", "LOCK.txt": ""})
	roots := []lockcore.ScanRoot{{Path: base, MaxDepth: 4}, {Path: filepath.Join(base, "build"), MaxDepth: 2}, {Path: base, MaxDepth: 1}}
	res := lockcore.Scan(roots, lockcore.ScanOptions{SkipDirs: []string{"build"}})
	assert.Equal(t, []string{"LOCK.txt", "build/out/LOCK.txt"}, relPaths(t, base, res.Locks),
		"skip_dirs stop the outer walk, not a root of their own")
	res = lockcore.Scan(roots, lockcore.ScanOptions{})
	assert.Equal(t, []string{"LOCK.txt", "build/out/LOCK.txt"}, relPaths(t, base, res.Locks), "each lock once")
}

func TestScanKeepsALockInADirectoryThatCanBeListedButNotSearched(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() != 0 {
		t.Skip("needs root to run the scan as an unprivileged user")
	}
	root := t.TempDir()
	mkTree(t, root, map[string]string{"listable/LOCK.txt": "owner: secret"})
	listable := filepath.Join(root, "listable")
	// Others may read the names in it but not stat them.
	require.NoError(t, os.Chmod(listable, 0o754))

	locks, unreadable := scanAsNobody(t, root)
	assert.Equal(t, []string{filepath.Join(listable, "LOCK.txt")}, locks, "a lock whose file cannot be stat'ed still stops (fail closed)")
	assert.Empty(t, unreadable)
}

func TestScanAlsoReportsTheFilesItWasAskedFor(t *testing.T) {
	root := t.TempDir()
	mkTree(t, root, map[string]string{
		"PRIVATE.txt":            "",
		"a/LOCK.txt":             "owner: x\n",
		"a/b/.guard.toml":        "",
		"a/b/c/d/PRIVATE.txt":    "", // below the depth
		"a/LOCK.permissions.txt": "{}",
		"other.txt":              "",
	})
	require.NoError(t, os.Symlink(filepath.Join(root, "PRIVATE.txt"), filepath.Join(root, "a", "b", "PUBLIC.txt")))
	also := func(name string) bool {
		switch name {
		case "PRIVATE.txt", "PUBLIC.txt", ".guard.toml", "LOCK.permissions.txt":
			return true
		}
		return false
	}
	res := lockcore.Scan([]lockcore.ScanRoot{{Path: root, MaxDepth: 2}, {Path: filepath.Join(root, "a"), MaxDepth: 1}},
		lockcore.ScanOptions{Also: also})
	var rel []string
	for _, p := range res.Also {
		r, err := filepath.Rel(root, p)
		require.NoError(t, err)
		rel = append(rel, filepath.ToSlash(r))
	}
	assert.Equal(t, []string{"PRIVATE.txt", "a/LOCK.permissions.txt", "a/b/.guard.toml", "a/b/PUBLIC.txt"}, rel)
	assert.Equal(t, []string{"a/LOCK.txt"}, relPaths(t, root, res.Locks))
}

func TestScanProgressCountsEveryDirectoriesRead(t *testing.T) {
	root := t.TempDir()
	for i := range 2*lockcore.ProgressEvery + 5 {
		require.NoError(t, os.Mkdir(filepath.Join(root, fmt.Sprintf("d%03d", i)), 0o755))
	}
	var mu sync.Mutex
	var got []int64
	res := lockcore.Scan([]lockcore.ScanRoot{{Path: root, MaxDepth: 4}}, lockcore.ScanOptions{Progress: func(n int64) {
		mu.Lock()
		got = append(got, n)
		mu.Unlock()
	}})
	slices.Sort(got)
	assert.Equal(t, []int64{lockcore.ProgressEvery, 2 * lockcore.ProgressEvery}, got)
	assert.Equal(t, 2*lockcore.ProgressEvery+6, res.Dirs)
}
