package hooks_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commitFile writes path in dir and commits it without the hooks (made before a lock,
// or elsewhere).
func (w *world) commitFile(dir, path, content, msg string) {
	w.t.Helper()
	write(w.t, dir, path, content)
	w.git(dir, "add", path)
	w.commitNoVerify(dir, msg)
}

// cloneAs clones bare into a new folder for a second person and returns it.
func (w *world) cloneAs(bare, name string) string {
	w.t.Helper()
	other := filepath.Join(w.t.TempDir(), "other")
	w.git(filepath.Dir(other), "clone", "-q", "-b", "main", bare, other)
	w.git(other, "config", "user.name", name)
	w.git(other, "config", "user.email", strings.ToLower(name)+"@example.com")
	return other
}

// lockedWork commits a change to locked/tracked without the hooks (made before the
// lock, or elsewhere) and then puts bob's lock on locked/.
func (w *world) lockedWork(dir string) {
	w.t.Helper()
	w.commitFile(dir, "locked/tracked", "v2\n", "touch locked")
	lock(w.t, dir, "locked/LOCK.txt", "")
}

func TestPrePushCountsOnlyWhatTheRemoteReallyHas(t *testing.T) {
	t.Run("a remote-tracking ref made by hand does not hide a new branch's locked commits", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.install(dir)
		w.git(dir, "checkout", "-q", "-b", "feature")
		w.lockedWork(dir)
		w.git(dir, "update-ref", "refs/remotes/origin/x", "HEAD")

		r := w.gitCode(dir, nil, "push", "origin", "feature")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Contains(t, r.stderr, "refs/remotes/origin/x (written by \"\", not by a fetch or push)")
		assert.Contains(t, r.stderr, "git update-ref -d <ref> && git fetch origin")
		assert.Equal(t, "", w.remoteRef(bare, "refs/heads/feature"))
	})

	t.Run("a fetch from another repository into origin's tracking refs does not count either", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.install(dir)
		w.git(dir, "checkout", "-q", "-b", "feature")
		w.lockedWork(dir)
		w.git(dir, "fetch", "-q", ".", "HEAD:refs/remotes/origin/y")

		r := w.gitCode(dir, nil, "push", "origin", "feature")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Contains(t, r.stderr, "a fetch from another repository")
		assert.Equal(t, "", w.remoteRef(bare, "refs/heads/feature"))
	})

	t.Run("another remote whose name starts with the pushed one's does not hide commits", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		// origin/mirror is a real remote that has the locked work; origin does not.
		mirror := filepath.Join(t.TempDir(), "mirror.git")
		w.git(dir, "init", "-q", "--bare", mirror)
		w.git(dir, "remote", "add", "origin/mirror", mirror)
		w.git(dir, "checkout", "-q", "-b", "feature")
		w.lockedWork(dir)
		w.git(dir, "push", "-q", "--no-verify", "origin/mirror", "feature")
		w.git(dir, "fetch", "-q", "origin/mirror")
		require.NotEqual(t, "", w.git(dir, "rev-parse", "refs/remotes/origin/mirror/feature"))
		w.install(dir)

		r := w.gitCode(dir, nil, "push", "origin", "feature")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.NotContains(t, r.stderr, "refs/remotes/origin/mirror/feature", "origin/mirror's ref is simply not origin's")
		assert.Equal(t, "", w.remoteRef(bare, "refs/heads/feature"))

		// Pushed to origin/mirror itself, the same commits are already there.
		r = w.gitCode(dir, nil, "push", "-q", "origin/mirror", "feature:feature2")
		assert.Equal(t, 0, r.code, r.stderr)
	})

	t.Run("tracking refs a fetch or push wrote still count, so a new branch is judged by its own commits", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		// Someone pushed the locked work before the lock; this clone fetched it.
		w.lockedWork(dir)
		w.git(dir, "push", "-q", "--no-verify", "origin", "main")
		other := w.cloneAs(bare, "Carol")
		lock(t, other, "locked/LOCK.txt", "")
		w.install(other)
		w.git(other, "checkout", "-q", "-b", "feature")
		write(t, other, "free/new", "x\n")
		w.git(other, "add", "free/new")
		w.git(other, "commit", "-q", "-m", "free work")
		r := w.gitCode(other, nil, "push", "-q", "origin", "feature")
		assert.Equal(t, 0, r.code, "origin/main, written by clone, counts: %s", r.stderr)

		// After a fetch it still counts.
		w.git(other, "fetch", "-q", "origin")
		r = w.gitCode(other, nil, "push", "-q", "origin", "feature:feature3")
		assert.Equal(t, 0, r.code, r.stderr)
	})
}

func TestPrePushTrustsWhatCloneAndGcWrote(t *testing.T) {
	t.Run("a fresh clone's tracking refs count though clone writes them without a reflog", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		// develop, on origin, carries locked work from before the lock.
		w.git(dir, "checkout", "-q", "-b", "develop")
		w.commitFile(dir, "locked/tracked", "v2\n", "locked work on develop")
		w.git(dir, "push", "-q", "--no-verify", "origin", "develop")
		other := w.cloneAs(bare, "Carol")
		lock(t, other, "locked/LOCK.txt", "")
		w.install(other)
		w.git(other, "checkout", "-q", "-b", "feature", "origin/develop")
		w.commitFile(other, "free/new", "x\n", "free work")
		r := w.gitCode(other, nil, "push", "-q", "origin", "feature")
		assert.Equal(t, 0, r.code, "origin/develop, packed by clone, counts: %s", r.stderr)

		// After gc has emptied the reflogs, packed refs still count.
		w.git(other, "reflog", "expire", "--expire=now", "--all")
		w.git(other, "pack-refs", "--all")
		w.git(other, "checkout", "-q", "-b", "feature2", "origin/develop")
		w.commitFile(other, "free/new2", "x\n", "more free work")
		r = w.gitCode(other, nil, "push", "-q", "origin", "feature2")
		assert.Equal(t, 0, r.code, r.stderr)
	})

	t.Run("a loose tracking ref written with the reflog switched off does not count", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.install(dir)
		w.git(dir, "checkout", "-q", "-b", "feature")
		w.lockedWork(dir)
		w.git(dir, "-c", "core.logAllRefUpdates=false", "update-ref", "refs/remotes/origin/z", "HEAD")
		r := w.gitCode(dir, nil, "push", "origin", "feature")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "refs/remotes/origin/z (no reflog says how it was written)")
		assert.Equal(t, "", w.remoteRef(bare, "refs/heads/feature"))
	})
}

func TestPrePushRefusesAForcedPushThatDropsLockedWork(t *testing.T) {
	t.Run("rewinding the remote past commits into another's locked area is refused", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		base := w.git(dir, "rev-parse", "HEAD")
		// bob's work in locked/ is on origin.
		w.commitFile(dir, "locked/tracked", "bob's v2\n", "bob's work")
		w.git(dir, "push", "-q", "--no-verify", "origin", "main")
		bobs := w.remoteRef(bare, "refs/heads/main")
		lock(t, dir, "locked/LOCK.txt", "")
		w.install(dir)
		// alice rewinds main and adds free work, then forces it.
		w.git(dir, "reset", "-q", "--hard", base)
		w.commitFile(dir, "free/mine", "x\n", "mine")

		r := w.gitCode(dir, nil, "push", "--force", "origin", "main")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "guard: pre-push: push of refs/heads/main -> refs/heads/main (a forced update) refused")
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Contains(t, r.stderr, "this forced push drops 1 commit(s) from origin's refs/heads/main")
		assert.Equal(t, bobs, w.remoteRef(bare, "refs/heads/main"))

		// A fast-forward of the same ref drops nothing and passes.
		w.git(dir, "reset", "-q", "--hard", bobs)
		w.commitFile(dir, "free/mine", "x\n", "mine on top")
		r = w.gitCode(dir, nil, "push", "-q", "origin", "main")
		assert.Equal(t, 0, r.code, r.stderr)
	})

	t.Run("a forced push that drops only free commits passes", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		base := w.git(dir, "rev-parse", "HEAD")
		w.commitFile(dir, "free/old", "x\n", "free old")
		w.git(dir, "push", "-q", "--no-verify", "origin", "main")
		lock(t, dir, "locked/LOCK.txt", "")
		w.install(dir)
		w.git(dir, "reset", "-q", "--hard", base)
		w.commitFile(dir, "free/new", "x\n", "free new")
		r := w.gitCode(dir, nil, "push", "-q", "--force", "origin", "main")
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, w.git(dir, "rev-parse", "HEAD"), w.remoteRef(bare, "refs/heads/main"))
	})

	t.Run("a forced push over a remote commit unknown here is refused while others' locks are in the repository", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		other := w.cloneAs(bare, "Bob")
		write(t, other, "locked/tracked", "bob's\n")
		w.git(other, "add", "locked/tracked")
		w.git(other, "commit", "-q", "-m", "bob's")
		w.git(other, "push", "-q", "origin", "main")
		bobs := w.remoteRef(bare, "refs/heads/main")

		w.install(dir)
		w.commitFile(dir, "free/mine", "x\n", "mine")
		r := w.gitCode(dir, nil, "push", "-q", "--force", "origin", "main")
		require.Equal(t, 0, r.code, "no lock anywhere: nothing a forced push could drop is locked: %s", r.stderr)
		// bob puts his work back; this clone never fetched it.
		w.git(other, "push", "-q", "--force", "origin", "main")
		require.Equal(t, bobs, w.remoteRef(bare, "refs/heads/main"))
		require.NotEqual(t, 0, w.gitCode(dir, nil, "cat-file", "-e", bobs).code)

		lock(t, dir, "locked/LOCK.txt", "")
		r = w.gitCode(dir, nil, "push", "--force", "origin", "main")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "(a forced update) refused")
		assert.Contains(t, r.stderr, "which this repository does not have")
		assert.Contains(t, r.stderr, "git fetch origin")
		assert.Equal(t, bobs, w.remoteRef(bare, "refs/heads/main"))
	})
}
