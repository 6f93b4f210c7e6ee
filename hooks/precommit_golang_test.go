package hooks_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// goCaches are the test's own Go build and module caches, and no module proxy:
// pre-commit's `go install ./...` must build guard from what this machine has, and
// does not start cold (its GOPATH is a fresh folder of the framework's).
func goCaches(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	require.NoError(t, err)
	f := strings.Fields(string(out))
	require.Len(t, f, 2)
	return []string{"GOCACHE=" + f[0], "GOMODCACHE=" + f[1], "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS="}
}

// The manifest as pre-commit users meet it: with language: golang, the framework
// builds guard from the hook repository at the pinned rev, into its own cache, so a
// machine with no guard installed (none is on this PATH) is guarded after
// `pre-commit install`.
func TestPreCommitBuildsGuardItself(t *testing.T) {
	t.Parallel()
	bin := preCommitBinary(t)
	w := newWorld(t)
	if lookIn(testenv.Path(), "guard") != "" {
		t.Fatal("the test's PATH must hold no guard")
	}
	cache := filepath.Join(t.TempDir(), "pre-commit-cache")
	w.env = append(append(w.env, "PRE_COMMIT_HOME="+cache), goCaches(t)...)
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	hooksRepo := filepath.Join(t.TempDir(), "guard")
	rev := testenv.CommitTree(t, root, hooksRepo)

	dir := w.repo()
	write(t, dir, ".pre-commit-config.yaml", "repos:\n- repo: "+hooksRepo+"\n  rev: "+rev+"\n  hooks:\n  - id: guard\n  - id: guard-pre-push\n")
	w.git(dir, "add", ".pre-commit-config.yaml")
	w.commitNoVerify(dir, "pre-commit config")
	bare := w.remote(dir)
	r := w.run(dir, "", nil, bin, "install", "--install-hooks", "--hook-type", "pre-commit", "--hook-type", "pre-merge-commit", "--hook-type", "pre-push")
	require.Equal(t, 0, r.code, "pre-commit install (which builds guard): %s%s", r.stdout, r.stderr)
	var built []string
	built, err = filepath.Glob(filepath.Join(cache, "repo*", "golangenv-*", "bin", "guard"))
	require.NoError(t, err)
	require.Len(t, built, 1, "pre-commit built guard into its cache")
	v := w.run(dir, "", nil, built[0], "version")
	assert.Equal(t, 0, v.code, v.stderr)
	assert.Regexp(t, `^guard \S+ \(commit [0-9a-f]{12}`, v.stdout, "a build from the hook repository's checkout is stamped with its commit")

	t.Run("a commit into a locked folder is refused by the guard pre-commit built", func(t *testing.T) {
		lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "locked/tracked", "v2\n")
		w.git(dir, "add", "locked/tracked")
		head := w.git(dir, "rev-parse", "HEAD")
		r := w.gitCode(dir, nil, "commit", "-m", "into locked")
		out := r.stdout + r.stderr
		assert.Equal(t, 1, r.code, out)
		assert.Regexp(t, `(?m)^guard\.+Failed$`, out, "the hook's short name")
		assert.Contains(t, out, "exclusive lock "+filepath.Join(dir, "locked", "LOCK.txt")+" held by bob")
		assert.Contains(t, out, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
		w.git(dir, "reset", "-q", "HEAD", "locked/tracked")
		w.git(dir, "checkout", "-q", "--", "locked/tracked")
	})

	t.Run("a commit outside it passes, and so does its push", func(t *testing.T) {
		write(t, dir, "free/keep", "v2\n")
		w.git(dir, "add", "free/keep")
		r := w.gitCode(dir, nil, "commit", "-m", "free")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Regexp(t, `(?m)^guard\.+Passed$`, r.stdout+r.stderr)
		r = w.gitCode(dir, nil, "push", "-q", "origin", "main")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Regexp(t, `(?m)^guard pre-push\.+Passed$`, r.stdout+r.stderr)
		assert.Equal(t, w.git(dir, "rev-parse", "HEAD"), w.remoteRef(bare, "refs/heads/main"))
	})

	t.Run("a push of a commit into the locked folder is refused", func(t *testing.T) {
		write(t, dir, "locked/tracked", "v3\n")
		w.git(dir, "add", "locked/tracked")
		w.commitNoVerify(dir, "into locked, hooks skipped")
		before := w.remoteRef(bare, "refs/heads/main")
		r := w.gitCode(dir, nil, "push", "origin", "main")
		out := r.stdout + r.stderr
		assert.Equal(t, 1, r.code, out)
		assert.Regexp(t, `(?m)^guard pre-push\.+Failed$`, out)
		assert.Contains(t, out, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Equal(t, before, w.remoteRef(bare, "refs/heads/main"))
	})
}
