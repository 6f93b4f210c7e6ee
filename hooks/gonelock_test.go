package hooks_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// committedLock commits bob's lock on locked/ (made without hooks, as bob would).
func (w *world) committedLock(dir string) {
	w.t.Helper()
	lock(w.t, dir, "locked/LOCK.txt", "")
	w.git(dir, "add", "locked/LOCK.txt")
	w.commitNoVerify(dir, "bob locks locked/")
}

func TestACommittedLockBindsTheCommitThatDeletesIt(t *testing.T) {
	t.Run("deleting another's committed lock with an edit of its area is refused, naming the lock", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		w.committedLock(dir)
		w.git(dir, "rm", "-q", "locked/LOCK.txt")
		write(t, dir, "locked/tracked", "v2\n")
		w.git(dir, "add", "locked/tracked")
		head := w.git(dir, "rev-parse", "HEAD")

		r := w.gitCode(dir, nil, "commit", "-m", "take bob's area")

		assert.Equal(t, 1, r.code, r.stderr)
		lockPath := filepath.Join(dir, "locked", "LOCK.txt")
		assert.Contains(t, r.stderr, "lock "+lockPath+" held by bob; the lock is committed in HEAD and this change deletes it, which does not release it")
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Contains(t, r.stderr, "what now: ask bob to release it")
		assert.Contains(t, r.stderr, `GUARD_BYPASS="<reason>" git commit`)
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))

		r = w.gitCode(dir, []string{"GUARD_OWNER=bob"}, "commit", "-q", "-m", "bob releases and edits")
		assert.Equal(t, 0, r.code, "the owner deletes their own lock: %s", r.stderr)
	})

	t.Run("merging a branch on which the owner released the lock goes through", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		w.committedLock(dir)
		w.git(dir, "checkout", "-q", "-b", "release")
		w.git(dir, "rm", "-q", "locked/LOCK.txt")
		write(t, dir, "locked/tracked", "bob's last edit\n")
		w.git(dir, "add", "locked/tracked")
		w.commitNoVerify(dir, "bob's work is done: the lock goes")
		w.git(dir, "checkout", "-q", "main")
		write(t, dir, "free/main", "main\n")
		w.git(dir, "add", "free/main")
		w.commitNoVerify(dir, "main moves on")

		r := w.gitCode(dir, nil, "merge", "-q", "--no-ff", "-m", "merge release", "release")

		require.Equal(t, 0, r.code, "the merged branch deleted the lock, not the merge: %s", r.stderr)
		assert.Equal(t, "merge release", w.git(dir, "log", "-1", "--format=%s"))
	})
}

func TestTheCommitEndingAConflictedMergeCountsOnlyLocksEveryParentHolds(t *testing.T) {
	w := newWorld(t)
	dir := w.repo()
	w.install(dir)
	w.committedLock(dir)
	w.git(dir, "checkout", "-q", "-b", "release")
	w.git(dir, "rm", "-q", "locked/LOCK.txt")
	write(t, dir, "locked/tracked", "bob's last edit\n")
	write(t, dir, "free/keep", "release\n")
	w.git(dir, "add", "-A")
	w.commitNoVerify(dir, "bob's work is done: the lock goes")
	w.git(dir, "checkout", "-q", "main")
	write(t, dir, "free/keep", "main\n")
	w.git(dir, "add", "free/keep")
	w.commitNoVerify(dir, "main changes free/keep too")
	r := w.gitCode(dir, nil, "merge", "-q", "release")
	require.Equal(t, 1, r.code, "a conflict in free/keep: %s", r.stdout+r.stderr)
	write(t, dir, "free/keep", "both\n")
	w.git(dir, "add", "free/keep")

	r = w.gitCode(dir, nil, "commit", "-q", "--no-edit")

	require.Equal(t, 0, r.code, "the merged branch deleted the lock: %s", r.stderr)
	assert.Equal(t, "", r.stderr)
}
