package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// preCommitBinary is the real pre-commit framework: GUARD_PRE_COMMIT, else Debian's
// /usr/bin/pre-commit (3.0.4 on the project's machine). The tests skip only when
// neither exists.
func preCommitBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("GUARD_PRE_COMMIT")
	if bin == "" {
		bin = "/usr/bin/pre-commit"
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("the pre-commit framework is not installed (%v): apt-get install pre-commit, or set GUARD_PRE_COMMIT", err)
	}
	return bin
}

// preCommitWorld is a repository whose hooks are the pre-commit framework's, using
// this project's .pre-commit-hooks.yaml (both hook ids) from a local hooks
// repository, with the framework's cache in a temporary folder. The manifest's
// language: golang becomes system here, so that the hooks run the guard under test
// from PATH without a build per world (TestPreCommitBuildsGuardItself checks the
// golang build). It has main pushed to a bare origin.
func preCommitWorld(t *testing.T) (*world, string, string) {
	t.Helper()
	bin := preCommitBinary(t)
	w := newWorld(t)
	// Later entries win over the world's own PATH (os/exec keeps the last duplicate).
	w.env = append(w.env, "PATH="+binDir+string(os.PathListSeparator)+testenv.Path(),
		"PRE_COMMIT_HOME="+filepath.Join(t.TempDir(), "pre-commit-cache"))

	manifest, err := os.ReadFile(filepath.Join("..", ".pre-commit-hooks.yaml"))
	require.NoError(t, err)
	hooksRepo := filepath.Join(t.TempDir(), "guard-hooks")
	require.NoError(t, os.MkdirAll(hooksRepo, 0o755))
	w.git(hooksRepo, "init", "-q", "-b", "main")
	require.Contains(t, string(manifest), "language: golang")
	write(t, hooksRepo, ".pre-commit-hooks.yaml", strings.ReplaceAll(string(manifest), "language: golang", "language: system"))
	w.git(hooksRepo, "add", ".pre-commit-hooks.yaml")
	w.git(hooksRepo, "-c", "user.name=G", "-c", "user.email=g@example.com", "commit", "-q", "-m", "manifest")
	rev := w.git(hooksRepo, "rev-parse", "HEAD")

	dir := w.repo()
	write(t, dir, ".pre-commit-config.yaml", "repos:\n- repo: "+hooksRepo+"\n  rev: "+rev+"\n  hooks:\n  - id: guard\n  - id: guard-pre-push\n")
	w.git(dir, "add", ".pre-commit-config.yaml")
	w.commitNoVerify(dir, "pre-commit config")
	bare := w.remote(dir)
	r := w.run(dir, "", nil, bin, "install", "--hook-type", "pre-commit", "--hook-type", "pre-merge-commit", "--hook-type", "pre-push")
	require.Equal(t, 0, r.code, "pre-commit install: %s%s", r.stdout, r.stderr)
	return w, dir, bare
}

func TestPreCommitFramework(t *testing.T) {
	t.Run("the manifest is accepted and the commit hook refuses a commit into a locked folder", func(t *testing.T) {
		t.Parallel()
		w, dir, _ := preCommitWorld(t)
		lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "locked/tracked", "v2\n")
		w.git(dir, "add", "locked/tracked")
		head := w.git(dir, "rev-parse", "HEAD")
		r := w.gitCode(dir, nil, "commit", "-m", "into locked")
		out := r.stdout + r.stderr
		assert.Equal(t, 1, r.code, out)
		assert.NotContains(t, out, "is not a valid", "pre-commit must accept the manifest's stage names")
		assert.Contains(t, out, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
	})

	t.Run("a commit outside the locked folder is made, and doctor sees guard run from the config", func(t *testing.T) {
		t.Parallel()
		w, dir, _ := preCommitWorld(t)
		lock(t, dir, "locked/LOCK.txt", "")
		head := w.git(dir, "rev-parse", "HEAD")
		write(t, dir, "free/keep", "free v2\n")
		w.git(dir, "add", "free/keep")
		r := w.gitCode(dir, nil, "commit", "-m", "free")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stdout+r.stderr, "Passed")
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD~1"))

		r = w.guard(dir, "doctor")
		assert.Equal(t, 0, r.code, r.stdout)
		assert.Contains(t, r.stdout, "pre-commit: managed by pre-commit, which runs guard from .pre-commit-config.yaml hook guard (guard "+guardBin+")")
		assert.Contains(t, r.stdout, "pre-merge-commit: managed by pre-commit, which runs guard from .pre-commit-config.yaml hook guard (guard "+guardBin+")")
		assert.Contains(t, r.stdout, "pre-push: managed by pre-commit, which runs guard from .pre-commit-config.yaml hook guard-pre-push (guard "+guardBin+")")
	})

	t.Run("doctor: a config without guard's push hook is a problem", func(t *testing.T) {
		t.Parallel()
		w, dir, _ := preCommitWorld(t)
		cfg := filepath.Join(dir, ".pre-commit-config.yaml")
		data, err := os.ReadFile(cfg)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(cfg, []byte(strings.Replace(string(data), "  - id: guard-pre-push\n", "", 1)), 0o644))
		r := w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code, r.stdout)
		assert.Contains(t, r.stdout, "pre-push: foreign (pre-commit's hook, which does not run guard)")
		assert.Contains(t, r.stdout, "is pre-commit's, and it does not run guard: .pre-commit-config.yaml has no guard hook for the push stage")
		assert.Contains(t, r.stdout, "pre-commit: managed by pre-commit")
	})

	t.Run("the merge-commit stage refuses a merge into a locked folder", func(t *testing.T) {
		t.Parallel()
		w, dir, _ := preCommitWorld(t)
		w.featureIntoLocked(dir)
		head := w.git(dir, "rev-parse", "HEAD")
		r := w.gitCode(dir, nil, "merge", "--no-ff", "-m", "merge feature", "feature")
		assert.Equal(t, 1, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stdout+r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
	})

	t.Run("a push of two refs whose second touches a locked folder is refused, not Passed", func(t *testing.T) {
		t.Parallel()
		w, dir, bare := preCommitWorld(t)
		before := w.remoteRef(bare, "refs/heads/main")
		w.git(dir, "checkout", "-q", "-b", "feature")
		write(t, dir, "locked/tracked", "feature\n")
		w.git(dir, "add", "locked/tracked")
		w.commitNoVerify(dir, "feature touches locked")
		w.git(dir, "checkout", "-q", "-b", "clean", "main")
		write(t, dir, "free/clean", "x\n")
		w.git(dir, "add", "free/clean")
		w.commitNoVerify(dir, "clean work")
		lock(t, dir, "locked/LOCK.txt", "")

		r := w.gitCode(dir, nil, "push", "origin", "clean:refs/heads/main", "feature:refs/heads/feature")

		out := r.stdout + r.stderr
		assert.Equal(t, 1, r.code, out)
		assert.NotContains(t, out, "Passed")
		assert.Contains(t, out, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Contains(t, out, "the pre-commit framework names only the first ref of a push")
		assert.Contains(t, out, "local refs with commits origin lacks: feature")
		assert.Equal(t, before, w.remoteRef(bare, "refs/heads/main"))
		assert.Equal(t, "", w.remoteRef(bare, "refs/heads/feature"))

		// Once the commit into the locked folder is gone, the same kind of push is
		// judged in full and passes.
		w.git(dir, "branch", "-q", "-D", "feature")
		r = w.gitCode(dir, nil, "push", "origin", "clean:refs/heads/main")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stdout+r.stderr, "Passed")
	})

	t.Run("the first ref touching a locked folder is refused for that ref", func(t *testing.T) {
		t.Parallel()
		w, dir, bare := preCommitWorld(t)
		before := w.remoteRef(bare, "refs/heads/main")
		write(t, dir, "locked/tracked", "v2\n")
		w.git(dir, "add", "locked/tracked")
		w.commitNoVerify(dir, "touch locked")
		lock(t, dir, "locked/LOCK.txt", "")
		r := w.gitCode(dir, nil, "push", "origin", "main")
		out := r.stdout + r.stderr
		assert.Equal(t, 1, r.code, out)
		assert.Contains(t, out, "push of refs/heads/main -> refs/heads/main refused")
		assert.NotContains(t, out, "names only the first ref", "the described ref is refused for itself")
		assert.Equal(t, before, w.remoteRef(bare, "refs/heads/main"))
	})

	t.Run("a branch whose root is new to the remote is checked from its own tip, not HEAD", func(t *testing.T) {
		t.Parallel()
		w, dir, bare := preCommitWorld(t)
		// An unrelated history: the framework passes no FROM/TO refs for it, only
		// the branch names.
		w.git(dir, "checkout", "-q", "--orphan", "other")
		w.git(dir, "rm", "-q", "-r", "--cached", ".")
		write(t, dir, "locked/orphan", "x\n")
		w.git(dir, "add", "locked/orphan", ".pre-commit-config.yaml")
		w.commitNoVerify(dir, "unrelated root")
		w.git(dir, "checkout", "-q", "-f", "main")
		lock(t, dir, "locked/LOCK.txt", "")

		r := w.gitCode(dir, nil, "push", "origin", "other")
		out := r.stdout + r.stderr
		assert.Equal(t, 1, r.code, out)
		assert.Contains(t, out, "push of refs/heads/other -> refs/heads/other refused")
		assert.Contains(t, out, "blocked: "+filepath.Join(dir, "locked", "orphan"))
		assert.Equal(t, "", w.remoteRef(bare, "refs/heads/other"))
	})

	t.Run("a committed PRIVATE.txt is refused by the framework's pre-push too", func(t *testing.T) {
		t.Parallel()
		w, dir, _ := preCommitWorld(t)
		write(t, dir, "PRIVATE.txt", "x\n")
		w.git(dir, "add", "-f", "PRIVATE.txt")
		w.commitNoVerify(dir, "oops")
		r := w.gitCode(dir, nil, "push", "origin", "main")
		assert.Equal(t, 1, r.code, r.stdout+r.stderr)
		assert.True(t, strings.Contains(r.stdout+r.stderr, "PRIVATE.txt is committed"), r.stdout+r.stderr)
	})
}

// TestGuardHookKeptAsPreCommitLegacy is docs/hooks.md's other way: `guard install`, then
// `pre-commit install`, which keeps guard's hook as pre-commit.legacy and runs it
// before its own hooks.
func TestGuardHookKeptAsPreCommitLegacy(t *testing.T) {
	t.Parallel()
	bin := preCommitBinary(t)
	w := newWorld(t)
	w.env = append(w.env, "PRE_COMMIT_HOME="+filepath.Join(t.TempDir(), "pre-commit-cache"))
	dir := w.repo()
	bare := w.remote(dir)
	w.install(dir)
	write(t, dir, ".pre-commit-config.yaml", "repos: []\n")
	w.git(dir, "add", ".pre-commit-config.yaml")
	w.commitNoVerify(dir, "pre-commit config")
	r := w.run(dir, "", nil, bin, "install")
	require.Equal(t, 0, r.code, "pre-commit install: %s%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "Running in migration mode with existing hooks at .git/hooks/pre-commit.legacy")
	hooksDir := filepath.Join(dir, ".git", "hooks")
	lockFile := lock(t, dir, "locked/LOCK.txt", "")

	t.Run("doctor sees guard run as pre-commit's legacy hook", func(t *testing.T) {
		r := w.guard(dir, "doctor")
		assert.Equal(t, 0, r.code, r.stdout)
		assert.Contains(t, r.stdout, "pre-commit: managed by pre-commit, which runs guard from .git/hooks/pre-commit.legacy (guard's hook, which pre-commit runs before its own) (guard "+guardBin+")")
		assert.Contains(t, r.stdout, "pre-push: installed (guard "+guardBin+")")
		assert.Contains(t, r.stdout, "\nhealthy\n")
	})

	t.Run("a commit into the locked folder is refused by the legacy hook", func(t *testing.T) {
		head := w.git(dir, "rev-parse", "HEAD")
		write(t, dir, "locked/tracked", "v2\n")
		w.git(dir, "add", "locked/tracked")
		r := w.gitCode(dir, nil, "commit", "-m", "into locked")
		out := r.stdout + r.stderr
		assert.Equal(t, 1, r.code, out)
		assert.Contains(t, out, "exclusive lock "+lockFile+" held by bob")
		assert.Contains(t, out, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
		w.git(dir, "reset", "-q", "HEAD", "locked/tracked")
		w.git(dir, "checkout", "-q", "--", "locked/tracked")
	})

	t.Run("a commit outside it is made", func(t *testing.T) {
		head := w.git(dir, "rev-parse", "HEAD")
		write(t, dir, "free/keep", "v2\n")
		w.git(dir, "add", "free/keep")
		r := w.gitCode(dir, nil, "commit", "-m", "free")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD~1"))
	})

	t.Run("a push of several refs, one into the locked folder, is refused by guard's own pre-push", func(t *testing.T) {
		require.NoError(t, os.Remove(lockFile))
		w.twoRefsOneIntoLocked(dir)
		w.assertTwoRefPushRefused(dir, bare)
	})

	t.Run("a legacy hook that is not executable is a problem: pre-commit skips it", func(t *testing.T) {
		legacy := filepath.Join(hooksDir, "pre-commit.legacy")
		require.NoError(t, os.Chmod(legacy, 0o644))
		defer os.Chmod(legacy, 0o755)
		r := w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code, r.stdout)
		assert.Contains(t, r.stdout, "pre-commit: foreign (pre-commit's hook, which does not run guard)")
		assert.Contains(t, r.stdout, ".git/hooks/pre-commit.legacy is guard's hook but not executable, so pre-commit skips it")
		assert.Contains(t, r.stdout, ".pre-commit-config.yaml has no guard hook for the commit stage")
	})
}
