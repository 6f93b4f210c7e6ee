package lockcore_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

func pruneTree(t *testing.T) (string, []*lockcore.Lock) {
	t.Helper()
	root := t.TempDir()
	old := "created: " + stamp(now.Add(-72*time.Hour)) + "\n"
	mkTree(t, root, map[string]string{
		"expired/LOCK.txt":             old,
		"team/LOCK.team.web.h1.txt":    old,
		"fresh/LOCK.txt":               "created: " + stamp(now.Add(-time.Hour)),
		"user/LOCK.user.txt":           old,
		"content-user/LOCK.txt":        old + "removable_by: user\n",
		"condition/LOCK.condition.txt": old + "release_condition: x\n",
		"until/LOCK.until.txt":         "not_before: " + stamp(now.Add(-72*time.Hour)),
		"legacy/TEST.txt":              old,
		"ambiguous/LOCK.x.user.txt":    old,
		"bulk/LOCK.txt":                old + "created_by: bulk\nowner: user\n",
	})
	return root, scanOne(root, 4).Locks
}

func TestPruneRemovesOnlyExpiredUnprotectedLocks(t *testing.T) {
	root, locks := pruneTree(t)
	want := []string{"bulk/LOCK.txt", "expired/LOCK.txt", "team/LOCK.team.web.h1.txt"}

	dry := lockcore.Prune(locks, now, true, cest)
	var dryPaths []string
	for _, a := range dry {
		assert.False(t, a.Removed)
		assert.NoError(t, a.Err)
		dryPaths = append(dryPaths, a.Path)
	}
	assert.Equal(t, want, relStrings(t, root, dryPaths))
	assert.Len(t, scanOne(root, 4).Locks, len(locks), "a dry run touches nothing")

	acts := lockcore.Prune(locks, now, false, cest)
	var removed []string
	for _, a := range acts {
		assert.True(t, a.Removed, a.Path)
		assert.NoError(t, a.Err)
		removed = append(removed, a.Path)
		assert.NoFileExists(t, a.Path)
	}
	assert.Equal(t, want, relStrings(t, root, removed))
	left := relPaths(t, root, scanOne(root, 4).Locks)
	assert.Equal(t, []string{"ambiguous/LOCK.x.user.txt", "condition/LOCK.condition.txt", "content-user/LOCK.txt",
		"fresh/LOCK.txt", "legacy/TEST.txt", "until/LOCK.until.txt", "user/LOCK.user.txt"}, left)
	assertNoPruneLeftovers(t, root)
}

func TestPruneNeverDeletesALockThatWasRenewedSinceTheScan(t *testing.T) {
	root, locks := pruneTree(t)
	p := filepath.Join(root, "expired", "LOCK.txt")
	fresh := "owner: newcomer\ncreated: " + stamp(now) + "\n"
	require.NoError(t, os.WriteFile(p, []byte(fresh), 0o644))

	acts := lockcore.Prune(locks, now, false, cest)
	var replaced *lockcore.PruneAction
	for i := range acts {
		if acts[i].Path == p {
			replaced = &acts[i]
		}
	}
	require.NotNil(t, replaced)
	assert.False(t, replaced.Removed)
	assert.ErrorIs(t, replaced.Err, lockcore.ErrReplaced)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, fresh, string(got))
	assertNoPruneLeftovers(t, root)
}

func TestPruneReportsALockSomeoneElseRemoved(t *testing.T) {
	root, locks := pruneTree(t)
	p := filepath.Join(root, "expired", "LOCK.txt")
	require.NoError(t, os.Remove(p))
	for _, a := range lockcore.Prune(locks, now, false, cest) {
		if a.Path == p {
			assert.ErrorIs(t, a.Err, lockcore.ErrGone)
			assert.False(t, a.Removed)
		}
	}
}

func TestConcurrentPrunersRemoveALockOnce(t *testing.T) {
	root, locks := pruneTree(t)
	const n = 16
	results := make([][]lockcore.PruneAction, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = lockcore.Prune(locks, now, false, cest)
		}()
	}
	wg.Wait()
	removed := map[string]int{}
	for _, acts := range results {
		for _, a := range acts {
			if a.Removed {
				removed[a.Path]++
			} else {
				assert.True(t, errors.Is(a.Err, lockcore.ErrGone), "%s: %v", a.Path, a.Err)
			}
		}
	}
	assert.Len(t, removed, 3)
	for p, c := range removed {
		assert.Equal(t, 1, c, p)
	}
	assertNoPruneLeftovers(t, root)
}

func TestPruneRacingAFreshWriterKeepsTheFreshLock(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "LOCK.txt")
	for i := range 100 {
		require.NoError(t, os.WriteFile(p, []byte("created: "+stamp(now.Add(-72*time.Hour))), 0o644))
		stale, err := lockcore.ReadLock(p, cest)
		require.NoError(t, err)
		fresh := "owner: w" + strconv.Itoa(i) + "\ncreated: " + stamp(now) + "\n"
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The way a lock is taken over: a whole new file renamed into place.
			tmp := filepath.Join(dir, ".tmp-"+strconv.Itoa(i))
			if err := os.WriteFile(tmp, []byte(fresh), 0o644); err == nil {
				os.Rename(tmp, p)
			}
		}()
		lockcore.Prune([]*lockcore.Lock{stale}, now, false, cest)
		wg.Wait()
		got, err := os.ReadFile(p)
		require.NoError(t, err, "round %d: the fresh lock was deleted", i)
		require.Equal(t, fresh, string(got), "round %d", i)
	}
	assertNoPruneLeftovers(t, dir)
}

func relStrings(t *testing.T, root string, paths []string) []string {
	t.Helper()
	var out []string
	for _, p := range paths {
		rel, err := filepath.Rel(root, p)
		require.NoError(t, err)
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

// assertNoPruneLeftovers checks that no moved-aside file remains anywhere under root.
func assertNoPruneLeftovers(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			assert.NotContains(t, d.Name(), ".guard-prune-", p)
		}
		return nil
	})
}

// listing is every entry under root (relative, slash-separated, sorted), directories
// marked with a trailing slash.
func listing(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	}))
	return out
}

func TestPruneOfATeamLockLeavesNoGuardFileBehind(t *testing.T) {
	root, locks := pruneTree(t)
	before := listing(t, root)
	require.Contains(t, before, "team/LOCK.team.web.h1.txt")

	for _, a := range lockcore.Prune(locks, now, false, cest) {
		require.NoError(t, a.Err, a.Path)
	}

	want := []string{}
	for _, e := range before {
		switch e {
		case "bulk/LOCK.txt", "expired/LOCK.txt", "team/LOCK.team.web.h1.txt":
		default:
			want = append(want, e)
		}
	}
	assert.Equal(t, want, listing(t, root), "prune removes the expired locks and creates nothing (no .guard, no mutex, no aside file)")
}

func TestPruneOfATeamLockKeepsAnExistingGuardFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "LOCK.team.h1.txt")
	require.NoError(t, os.WriteFile(p, []byte("created: "+stamp(now.Add(-72*time.Hour))+"\n"), 0o644))
	require.NoError(t, os.WriteFile(p+".guard", []byte{0}, 0o644))
	l, err := lockcore.ReadLock(p, cest)
	require.NoError(t, err)

	acts := lockcore.Prune([]*lockcore.Lock{l}, now, false, cest)
	require.Len(t, acts, 1)
	require.NoError(t, acts[0].Err)
	assert.True(t, acts[0].Removed)
	assert.Equal(t, []string{"LOCK.team.h1.txt.guard"}, listing(t, dir), "the guard a team edit made stays: waiters must lock the same inode")
}
