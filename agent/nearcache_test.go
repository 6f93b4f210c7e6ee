package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const aliceLock = "owner: alice\ncreated: 2026-11-29T09:30:00\nhost: laptop\nexpires_after: 2h\nmode: hard\npurpose: refactoring\n"

// nearTree is a repository with no lock: repo/a/b/c, repo/free. decideBash keeps the
// near-lock cache under root/home.
func nearTree(t *testing.T) (repo, cacheDir string) {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	repo = filepath.Join(root, "repo")
	for _, d := range []string{".git", "a/b/c", "free"} {
		require.NoError(t, os.MkdirAll(filepath.Join(repo, d), 0o755))
	}
	return repo, filepath.Join(root, "home", ".local", "state", "guard", "near")
}

// ageCache makes the cache look written long after the folders' last change, so that
// its stamps are trusted (as they are a few seconds after a search).
func ageCache(t *testing.T, cacheDir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(cacheDir, "*"))
	require.NoError(t, err)
	require.Len(t, files, 1, "the search kept no cache")
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(files[0], later, later))
	return files[0]
}

const unreadable = `rm -rf "$TARGET"`

// The cache of folder listings never hides a lock: a lock that appears in a cached
// folder, or in a new folder below one, changes that folder's ctime and is found; a
// cache that cannot be read is ignored; a cache just written is not trusted yet.
func TestNearLockCacheNeverHidesALock(t *testing.T) {
	repo, cacheDir := nearTree(t)
	assert.Equal(t, None, decideBash(t, repo, unreadable, false).Decision)
	cache := ageCache(t, cacheDir)

	data, err := os.ReadFile(cache)
	require.NoError(t, err)
	lock := filepath.Join(repo, "a", "b", "c", "LOCK.txt")
	require.NoError(t, os.WriteFile(lock, []byte(aliceLock), 0o644))

	// The cache is what the search reads: one rewritten to say the root has no
	// folders (the root's stamp unchanged) hides a/b/c. Only a write to guard's
	// state directory can do that; every change made in the tree changes a stamp.
	forged := openNearCacheAt(t, cache, repo)
	forged.fresh["."] = nearEntry{stamp: forged.loaded["."].stamp}
	for rel := range forged.loaded {
		if rel != "." {
			forged.fromCache = append(forged.fromCache, rel)
		}
	}
	forged.save()
	ageCache(t, cacheDir)
	assert.Equal(t, None, decideBash(t, repo, unreadable, false).Decision)

	// The true cache, from before the lock was made: c's stamp changed with it.
	require.NoError(t, os.WriteFile(cache, data, 0o600))
	ageCache(t, cacheDir)
	v := decideBash(t, repo, unreadable, false)
	assert.Equal(t, Ask, v.Decision)
	assert.Contains(t, v.Reason, lock)

	// Removing it is seen too, once the cache is old enough again.
	ageCache(t, cacheDir)
	require.NoError(t, os.Remove(lock))
	assert.Equal(t, None, decideBash(t, repo, unreadable, false).Decision)

	// A lock in new folders below a cached one.
	ageCache(t, cacheDir)
	deeper := filepath.Join(repo, "free", "new", "deeper")
	require.NoError(t, os.MkdirAll(deeper, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(deeper, "LOCK.txt"), []byte(aliceLock), 0o644))
	v = decideBash(t, repo, unreadable, false)
	assert.Equal(t, Ask, v.Decision)
	assert.Contains(t, v.Reason, filepath.Join(deeper, "LOCK.txt"))

	// A lock whose content changes (another owner) in a folder that does not change.
	require.NoError(t, os.WriteFile(filepath.Join(deeper, "LOCK.txt"), []byte("owner: sess-1\ncreated: 2026-11-29T09:30:00\nexpires_after: 2h\n"), 0o644))
	ageCache(t, cacheDir)
	assert.Equal(t, None, decideBash(t, repo, unreadable, false).Decision)
	require.NoError(t, os.WriteFile(filepath.Join(deeper, "LOCK.txt"), []byte(aliceLock), 0o644))
	assert.Equal(t, Ask, decideBash(t, repo, unreadable, false).Decision)

	// Garbage or a cache of another folder is no cache.
	for _, bad := range [][]byte{[]byte("garbage"), append([]byte(nearCacheMagic+"\x00/elsewhere\x00"), data[len(nearCacheMagic)+len(repo)+2:]...)} {
		require.NoError(t, os.WriteFile(cache, bad, 0o600))
		ageCache(t, cacheDir)
		assert.Equal(t, Ask, decideBash(t, repo, unreadable, false).Decision)
	}
}

// A stamp as recent as the cache file may predate a change made in the same clock
// tick: it is not trusted, the folder is listed again.
func TestNearLockCacheDoesNotTrustRacyStamps(t *testing.T) {
	repo, cacheDir := nearTree(t)
	assert.Equal(t, None, decideBash(t, repo, unreadable, false).Decision)
	files, _ := filepath.Glob(filepath.Join(cacheDir, "*"))
	require.Len(t, files, 1)
	lock := filepath.Join(repo, "a", "b", "c", "LOCK.txt")
	require.NoError(t, os.WriteFile(lock, []byte(aliceLock), 0o644))
	// Put c's ctime back where it was is impossible from user space; instead make the
	// cache claim c's current stamp, with no lock: only the racy rule keeps it out.
	c := openNearCacheAt(t, files[0], repo)
	st, ok := newStamper(repo).stamp("a/b/c")
	require.True(t, ok)
	for rel := range c.loaded {
		if rel != "a/b/c" {
			c.fromCache = append(c.fromCache, rel)
		}
	}
	c.fresh["a/b/c"] = nearEntry{stamp: st}
	c.save()
	v := decideBash(t, repo, unreadable, false)
	assert.Equal(t, Ask, v.Decision)
	assert.Contains(t, v.Reason, lock)
}

func openNearCacheAt(t *testing.T, path, root string) *nearCache {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	loaded, ok := parseNearCache(data, root)
	require.True(t, ok)
	return &nearCache{path: path, root: root, loaded: loaded, fresh: map[string]nearEntry{}}
}

func FuzzParseNearCache(f *testing.F) {
	f.Add([]byte(nearCacheMagic + "\x00/r\x00.\x001\x002\x003\x000\x001\x00a\x00"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, ok := parseNearCache(data, "/r")
		if !ok {
			return
		}
		for _, e := range m {
			for _, s := range e.subdirs {
				if s == "" || s == "." || s == ".." || filepath.Base(s) != s {
					t.Fatalf("subdir %q accepted", s)
				}
			}
		}
	})
}

// agent-install lists the project into the near-lock cache, so that the hook's first
// search is a warm one; the cache it writes still hides no lock: a folder that holds
// a lock is marked so and asked about, and the stamps only count once old enough.
func TestAgentInstallPrimesTheNearLockCache(t *testing.T) {
	repo, cacheDir := nearTree(t)
	lock := filepath.Join(repo, "a", "b", "LOCK.txt")
	require.NoError(t, os.WriteFile(lock, []byte(aliceLock), 0o644))
	env, _, _ := installEnv(t, repo, filepath.Join(filepath.Dir(repo), "home"))
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude}))

	files, err := filepath.Glob(filepath.Join(cacheDir, "*"))
	require.NoError(t, err)
	require.Len(t, files, 1, "agent-install kept no listing of the project")
	c := openNearCacheAt(t, files[0], repo)
	var rels []string
	for rel := range c.loaded {
		rels = append(rels, rel)
	}
	assert.ElementsMatch(t, []string{".", ".claude", "a", "a/b", "a/b/c", "free"}, rels, "every folder but .git, the settings folder just made included")
	assert.True(t, c.loaded["a/b"].hasLock)
	assert.False(t, c.loaded["a"].hasLock)

	ageCache(t, cacheDir)
	v := decideBash(t, repo, unreadable, false)
	assert.Equal(t, Ask, v.Decision)
	assert.Contains(t, v.Reason, lock)
	require.NoError(t, os.Remove(lock))
	assert.Equal(t, None, decideBash(t, repo, unreadable, false).Decision)

	// A user-wide install lists the repository it is run from, and nothing outside one.
	home := t.TempDir()
	env, _, _ = installEnv(t, repo, home)
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude, User: true}))
	files, err = filepath.Glob(filepath.Join(home, ".local", "state", "guard", "near", "*"))
	require.NoError(t, err)
	assert.Len(t, files, 1, "the repository the user-wide install ran in")
	home = t.TempDir()
	env, _, _ = installEnv(t, t.TempDir(), home)
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude, User: true}))
	_, err = os.Stat(filepath.Join(home, ".local", "state", "guard", "near"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no project outside a repository")
	// Nor a home folder kept in git.
	home = t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(home, ".git"), 0o755))
	env, _, _ = installEnv(t, home, home)
	require.NoError(t, RunInstall(InstallOptions{Env: env, Agent: Claude, User: true}))
	_, err = os.Stat(filepath.Join(home, ".local", "state", "guard", "near"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no project in a dotfiles home")
}

// parseNearCacheSplit is the first parser (a strings.Split of the whole file), kept
// as the reference the faster one must agree with.
func parseNearCacheSplit(data []byte, root string) (map[string]nearEntry, bool) {
	fields := strings.Split(string(data), "\x00")
	if len(fields) < 3 || fields[0] != nearCacheMagic || fields[1] != root || fields[len(fields)-1] != "" {
		return nil, false
	}
	fields = fields[2 : len(fields)-1]
	out := make(map[string]nearEntry, len(fields)/6)
	for len(fields) > 0 {
		if len(fields) < 6 {
			return nil, false
		}
		var nums [5]uint64
		for i := range nums {
			n, err := strconv.ParseUint(fields[1+i], 10, 64)
			if err != nil {
				return nil, false
			}
			nums[i] = n
		}
		rel, nsub := fields[0], nums[4]
		if nsub > uint64(len(fields)-6) || nums[3] > 1 {
			return nil, false
		}
		e := nearEntry{stamp: dirStamp{dev: nums[0], ino: nums[1], ctime: int64(nums[2])}, hasLock: nums[3] == 1}
		for _, s := range fields[6 : 6+nsub] {
			if s == "" || s == "." || s == ".." || strings.Contains(s, "/") {
				return nil, false
			}
			e.subdirs = append(e.subdirs, s)
		}
		out[rel] = e
		fields = fields[6+nsub:]
	}
	return out, true
}

// FuzzParseNearCacheAgreesWithTheReference: the in-place parser accepts exactly what
// the first one did, with the same entries.
func FuzzParseNearCacheAgreesWithTheReference(f *testing.F) {
	f.Add([]byte(nearCacheMagic + "\x00/r\x00.\x001\x002\x003\x000\x001\x00a\x00"))
	f.Add([]byte(nearCacheMagic + "\x00/r\x00.\x001\x002\x003\x001\x002\x00a\x00b\x00a\x004\x005\x006\x000\x000\x00"))
	f.Add([]byte(nearCacheMagic + "\x00/r\x00"))
	f.Add([]byte(nearCacheMagic + "\x00/r\x00.\x001\x002\x003\x000\x009\x00a\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := parseNearCache(data, "/r")
		want, wok := parseNearCacheSplit(data, "/r")
		if ok != wok {
			t.Fatalf("accepted %v, the reference %v", ok, wok)
		}
		if !ok {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%d entries, the reference %d", len(got), len(want))
		}
		for rel, e := range want {
			g := got[rel]
			if g.stamp != e.stamp || g.hasLock != e.hasLock || !slices.Equal(g.subdirs, e.subdirs) {
				t.Fatalf("%q: %+v, the reference %+v", rel, g, e)
			}
		}
	})
}
