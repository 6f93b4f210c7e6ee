package hooks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// elsewhere makes a folder outside the repository holding its files as a second work
// tree, with locked/tracked changed: no lock file is in it.
func (w *world) elsewhere(dir string) string {
	w.t.Helper()
	other := filepath.Join(w.t.TempDir(), "other")
	write(w.t, other, "free/keep", "free\n")
	write(w.t, other, "locked/tracked", "changed elsewhere\n")
	return other
}

// A lock is in the repository's working tree; git told to work in another folder for
// one command (--work-tree, GIT_WORK_TREE, GIT_DIR from another folder) changes the
// same repository paths, so the hooks judge them in the repository's working trees too.
func TestHooksJudgeTheRepositorysWorkingTreesWhateverWorkTreeGitIsGiven(t *testing.T) {
	t.Run("git --work-tree=DIR commit into the locked folder is refused", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		head := w.git(dir, "rev-parse", "HEAD")
		other := w.elsewhere(dir)
		r := w.gitCode(dir, nil, "--work-tree="+other, "commit", "-q", "-a", "-m", "around the lock")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Contains(t, r.stderr, "held by bob")
		assert.Contains(t, r.stderr, "git works in "+other+" for this command, which is not one of the repository's working trees ("+dir+")")
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
	})

	t.Run("git --git-dir and --work-tree from a third folder is refused", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		other := w.elsewhere(dir)
		third := t.TempDir()
		r := w.gitCode(third, nil, "--git-dir="+filepath.Join(dir, ".git"), "--work-tree="+other, "commit", "-q", "-a", "-m", "x")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
	})

	t.Run("GIT_DIR naming the repository from another folder is refused", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		other := w.elsewhere(dir)
		r := w.gitCode(other, []string{"GIT_DIR=" + filepath.Join(dir, ".git")}, "commit", "-q", "-a", "-m", "x")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
	})

	t.Run("a free change through another work tree passes", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		other := filepath.Join(t.TempDir(), "other")
		write(t, other, "free/keep", "free v2\n")
		write(t, other, "locked/tracked", "v1\n")
		r := w.gitCode(dir, nil, "--work-tree="+other, "commit", "-q", "-a", "-m", "free")
		assert.Equal(t, 0, r.code, r.stderr)
	})

	t.Run("pushing from another work tree judges the pushed paths in the repository's", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.install(dir)
		before := w.remoteRef(bare, "refs/heads/main")
		w.lockedWork(dir)
		other := t.TempDir()
		r := w.gitCode(dir, nil, "--work-tree="+other, "push", "origin", "main")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Equal(t, before, w.remoteRef(bare, "refs/heads/main"))
	})

	t.Run("the index git names in GIT_INDEX_FILE is the one judged", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		alt := filepath.Join(dir, ".git", "alt-index")
		env := []string{"GIT_INDEX_FILE=" + alt}
		require.Equal(t, 0, w.gitCode(dir, env, "read-tree", "HEAD").code)
		write(t, dir, "locked/tracked", "v3\n")
		require.Equal(t, 0, w.gitCode(dir, env, "add", "locked/tracked").code)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "locked", "tracked"), []byte("v1\n"), 0o644))
		r := w.gitCode(dir, env, "commit", "-q", "-m", "from another index")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		// The default index has nothing staged: without GIT_INDEX_FILE it is free.
		assert.Equal(t, "", w.git(dir, "diff", "--cached", "--name-only"))
	})
}
