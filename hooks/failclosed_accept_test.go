package hooks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Issue 4, "Must hold": internal errors fail closed: refuse, exit non-zero, say why
// and how to bypass. Here through real git commands with the hooks installed, with an
// internal error (a broken .guard.toml) that guard meets only once git runs it.
func TestInternalErrorsFailClosedThroughGit(t *testing.T) {
	t.Run("a commit is refused, says why and how to bypass, and HEAD stays", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		write(t, dir, "free/new", "x\n")
		w.git(dir, "add", "free/new")
		write(t, dir, ".guard.toml", "owner = [broken\n")
		head := w.git(dir, "rev-parse", "HEAD")

		r := w.gitCode(dir, nil, "commit", "-m", "anything")
		assert.NotEqual(t, 0, r.code)
		assert.Contains(t, r.stderr, ".guard.toml:1")
		assert.Contains(t, r.stderr, "fail closed")
		assert.Contains(t, r.stderr, "GUARD_BYPASS=")
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
	})

	t.Run("a push is refused, says why and how to bypass, and the remote ref stays", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.install(dir)
		before := w.remoteRef(bare, "refs/heads/main")
		write(t, dir, "free/new", "x\n")
		w.git(dir, "add", "free/new")
		w.commitNoVerify(dir, "free")
		write(t, dir, ".guard.toml", "owner = [broken\n")

		r := w.gitCode(dir, nil, "push", "origin", "main")
		assert.NotEqual(t, 0, r.code)
		assert.Contains(t, r.stderr, ".guard.toml:1")
		assert.Contains(t, r.stderr, "fail closed")
		assert.Contains(t, r.stderr, "GUARD_BYPASS=")
		assert.Equal(t, before, w.remoteRef(bare, "refs/heads/main"))
	})
}
