package hooks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Issue 4, item 1, cases the main pre-commit tests leave out: the new side of a
// rename, a type change, a copy, and a commit made with GIT_DIR / GIT_WORK_TREE from
// outside the working tree. Each is a real git commit through the installed hook.
func TestPreCommitAcceptance(t *testing.T) {
	t.Run("renaming a file into a locked folder is refused for its new side", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		head := w.git(dir, "rev-parse", "HEAD")
		w.git(dir, "mv", "free/keep", "locked/moved")
		r := w.gitCode(dir, nil, "commit", "-m", "move in")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "moved"))
		assert.NotContains(t, r.stderr, "blocked: "+filepath.Join(dir, "free", "keep"))
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
	})

	t.Run("a type change from file to symlink in a locked folder is refused", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		p := filepath.Join(dir, "locked", "tracked")
		assert.NoError(t, os.Remove(p))
		assert.NoError(t, os.Symlink("../free/keep", p))
		w.git(dir, "add", "locked/tracked")
		assert.Equal(t, "T\tlocked/tracked", w.git(dir, "diff", "--cached", "--name-status"))
		r := w.gitCode(dir, nil, "commit", "-m", "type change")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+p)
	})

	t.Run("a copy into a locked folder is refused even when git pairs copies", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.git(dir, "config", "diff.renames", "copies")
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		data, err := os.ReadFile(filepath.Join(dir, "free", "keep"))
		assert.NoError(t, err)
		write(t, dir, "locked/copy", string(data))
		w.git(dir, "add", "locked/copy")
		r := w.gitCode(dir, nil, "commit", "-m", "copy in")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "copy"))
	})

	t.Run("a commit made with GIT_DIR and GIT_WORK_TREE from another folder is checked", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "locked/new", "x\n")
		write(t, dir, "free/new", "x\n")
		elsewhere := t.TempDir()
		vars := []string{"GIT_DIR=" + filepath.Join(dir, ".git"), "GIT_WORK_TREE=" + dir}
		head := w.git(dir, "rev-parse", "HEAD")

		r := w.run(elsewhere, "", vars, "git", "add", "locked/new", "free/new")
		assert.Equal(t, 0, r.code, r.stderr)
		r = w.run(elsewhere, "", vars, "git", "commit", "-m", "from elsewhere")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "new"))
		assert.NotContains(t, r.stderr, "blocked: "+filepath.Join(dir, "free", "new"))
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))

		r = w.run(elsewhere, "", vars, "git", "rm", "-q", "--cached", "locked/new")
		assert.Equal(t, 0, r.code, r.stderr)
		r = w.run(elsewhere, "", vars, "git", "commit", "-q", "-m", "free only")
		assert.Equal(t, 0, r.code, r.stderr)
	})
}
