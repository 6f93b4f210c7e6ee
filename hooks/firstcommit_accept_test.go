package hooks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A repository's first commit is checked from git's list of the index (ls-files),
// every other from git diff --cached: each case is a real commit through the
// installed hook, and the cases around a branch whose ref file is missing (packed)
// must keep the diff, or a deletion would go unseen.
func TestFirstCommitAndPackedBranches(t *testing.T) {
	unborn := func(w *world) string {
		dir := filepath.Join(w.t.TempDir(), "repo")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		w.git(dir, "init", "-q", "-b", "main")
		w.git(dir, "config", "user.name", "Alice")
		w.git(dir, "config", "user.email", "alice@example.com")
		return dir
	}

	t.Run("the first commit is refused for its paths in a locked folder only", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := unborn(w)
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "locked/a", "x\n")
		write(t, dir, "locked/deep/b", "x\n")
		write(t, dir, "free/c", "x\n")
		w.git(dir, "add", "locked/a", "locked/deep/b", "free/c")
		r := w.gitCode(dir, nil, "commit", "-m", "first")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "a"))
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "deep", "b"))
		assert.NotContains(t, r.stderr, "blocked: "+filepath.Join(dir, "free", "c"))
		assert.Contains(t, r.stderr, "refused commit: 2 path(s) blocked")
		assert.Equal(t, 1, w.gitCode(dir, nil, "rev-parse", "-q", "--verify", "HEAD").code, "no commit was made")

		w.git(dir, "rm", "-q", "--cached", "locked/a", "locked/deep/b")
		r = w.gitCode(dir, nil, "commit", "-q", "-m", "first")
		assert.Equal(t, 0, r.code, r.stderr)
	})

	t.Run("a first commit of named paths (a temporary index) is checked", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := unborn(w)
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "locked/a", "x\n")
		write(t, dir, "free/c", "x\n")
		w.git(dir, "add", "locked/a", "free/c")
		r := w.gitCode(dir, nil, "commit", "-m", "first", "--", "locked/a")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "a"))
	})

	t.Run("a first commit made from a subfolder is checked for the whole index", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := unborn(w)
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "locked/a", "x\n")
		write(t, dir, "free/c", "x\n")
		w.git(dir, "add", "locked/a", "free/c")
		r := w.gitCode(filepath.Join(dir, "free"), nil, "commit", "-m", "first")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "a"))
	})

	t.Run("the first commit of a staged marker is refused", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := unborn(w)
		w.install(dir)
		write(t, dir, "PRIVATE.txt", "never public\n")
		w.git(dir, "add", "-f", "PRIVATE.txt")
		r := w.gitCode(dir, nil, "commit", "-m", "first")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, filepath.Join(dir, "PRIVATE.txt"))
	})

	t.Run("after git pack-refs a deletion in a locked folder is still refused", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.git(dir, "pack-refs", "--all")
		_, err := os.Stat(filepath.Join(dir, ".git", "refs", "heads", "main"))
		require.ErrorIs(t, err, os.ErrNotExist, "the branch's ref is packed")
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		w.git(dir, "rm", "-q", "locked/tracked")
		r := w.gitCode(dir, nil, "commit", "-m", "delete")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
	})

	t.Run("on a detached HEAD a deletion in a locked folder is refused", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.git(dir, "checkout", "-q", "--detach")
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		w.git(dir, "rm", "-q", "locked/tracked")
		r := w.gitCode(dir, nil, "commit", "-m", "delete")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
	})

	t.Run("in a linked worktree whose branch is packed a deletion is refused", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		wt := filepath.Join(w.t.TempDir(), "wt")
		w.git(dir, "worktree", "add", "-q", "-b", "side", wt)
		w.git(dir, "pack-refs", "--all")
		lock(t, wt, "locked/LOCK.txt", "")
		w.git(wt, "rm", "-q", "locked/tracked")
		r := w.gitCode(wt, nil, "commit", "-m", "delete")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(wt, "locked", "tracked"))
	})
}
