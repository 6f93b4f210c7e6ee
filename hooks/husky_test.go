package hooks_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// huskyPackage finds the real husky package (its folder, holding bin.js): GUARD_HUSKY,
// else where .ci/setup-husky installs it. The tests skip only when neither exists, or
// when there is no node to run it with.
func huskyPackage(t *testing.T) string {
	t.Helper()
	pkg := os.Getenv("GUARD_HUSKY")
	if pkg == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, err := os.UserHomeDir()
			require.NoError(t, err)
			cache = filepath.Join(home, ".cache")
		}
		pkg = filepath.Join(cache, "guard-ci", "husky", "node_modules", "husky")
	}
	if _, err := os.Stat(filepath.Join(pkg, "bin.js")); err != nil {
		t.Skipf("husky is not installed (%v): run .ci/setup-husky or set GUARD_HUSKY", err)
	}
	return pkg
}

// readmeHuskyLines returns the shell lines of docs/hooks.md's husky recipe, so that the
// test runs what the docs say.
func readmeHuskyLines(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "docs", "hooks.md"))
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(readme), "- *husky*")
	require.True(t, ok, "docs/hooks.md has no husky recipe")
	_, after, ok = strings.Cut(after, "  ```sh\n")
	require.True(t, ok, "docs/hooks.md's husky recipe has no sh block")
	block, _, ok := strings.Cut(after, "  ```\n")
	require.True(t, ok, "docs/hooks.md's husky recipe block does not end")
	var out strings.Builder
	for _, line := range strings.SplitAfter(block, "\n") {
		out.WriteString(strings.TrimPrefix(line, "  "))
	}
	return out.String()
}

// huskyWorld is a repository set up as husky's users do: a package.json, `npx husky
// init` (husky's bin.js, run by node), then the recipe of docs/hooks.md; guard is on PATH, as
// the recipe needs. main is pushed to a bare origin.
func huskyWorld(t *testing.T) (w *world, dir, bare string) {
	t.Helper()
	pkg := huskyPackage(t)
	w = newWorld(t)
	path := binDir + string(os.PathListSeparator) + testenv.Path()
	node := lookIn(path, "node")
	if node == "" {
		t.Skip("husky needs node, and there is none on PATH")
	}
	// Later entries win over the world's own PATH (os/exec keeps the last duplicate).
	w.env = append(w.env, "PATH="+path)
	dir = w.repo()
	bare = w.remote(dir)
	write(t, dir, "package.json", "{\n  \"name\": \"husky-guarded\",\n  \"private\": true\n}\n")
	r := w.run(dir, "", nil, node, filepath.Join(pkg, "bin.js"), "init")
	require.Equal(t, 0, r.code, "husky init: %s%s", r.stdout, r.stderr)
	require.Equal(t, ".husky/_", w.git(dir, "config", "core.hooksPath"))
	got, err := os.ReadFile(filepath.Join(dir, ".husky", "pre-commit"))
	require.NoError(t, err)
	require.Equal(t, "npm test\n", string(got), "husky init writes an npm test pre-commit")
	// The user's own checks stay before guard's line (this project has no npm test).
	write(t, dir, ".husky/pre-commit", "echo checks ran\n")
	r = w.run(dir, "", nil, "sh", "-ec", readmeHuskyLines(t))
	require.Equal(t, 0, r.code, "docs/hooks.md's husky recipe: %s", r.stderr)
	w.git(dir, "add", "package.json", ".husky")
	w.commitNoVerify(dir, "husky")
	return w, dir, bare
}

func lookIn(path, name string) string {
	for _, d := range filepath.SplitList(path) {
		if p, err := exec.LookPath(filepath.Join(d, name)); err == nil {
			return p
		}
	}
	return ""
}

// twoRefsOneIntoLocked makes the branches of a push of several refs: clean (free work
// on top of main) and feature (a commit into the locked folder), made without hooks,
// then bob locks the folder.
func (w *world) twoRefsOneIntoLocked(dir string) {
	w.t.Helper()
	w.git(dir, "checkout", "-q", "-b", "feature", "main")
	write(w.t, dir, "locked/tracked", "feature\n")
	w.git(dir, "add", "locked/tracked")
	w.commitNoVerify(dir, "feature touches locked")
	w.git(dir, "checkout", "-q", "-b", "clean", "main")
	write(w.t, dir, "free/clean", "x\n")
	w.git(dir, "add", "free/clean")
	w.commitNoVerify(dir, "clean work")
	lock(w.t, dir, "locked/LOCK.txt", "")
}

// assertTwoRefPushRefused pushes clean to main and feature to feature, and checks that
// guard refused the push for feature, naming the lock and its owner, and that the
// remote got neither ref.
func (w *world) assertTwoRefPushRefused(dir, bare string) result {
	w.t.Helper()
	t := w.t
	before := w.remoteRef(bare, "refs/heads/main")
	r := w.gitCode(dir, nil, "push", "origin", "clean:refs/heads/main", "feature:refs/heads/feature")
	out := r.stdout + r.stderr
	assert.Equal(t, 1, r.code, out)
	assert.Contains(t, out, "push of refs/heads/feature -> refs/heads/feature refused")
	assert.NotContains(t, out, "refs/heads/clean -> refs/heads/main refused", "the clean ref is judged on its own")
	assert.Contains(t, out, "exclusive lock "+filepath.Join(dir, "locked", "LOCK.txt")+" held by bob")
	assert.Contains(t, out, "blocked: "+filepath.Join(dir, "locked", "tracked"))
	assert.Equal(t, before, w.remoteRef(bare, "refs/heads/main"))
	assert.Equal(t, "", w.remoteRef(bare, "refs/heads/feature"))
	return r
}

func TestHuskyRecipe(t *testing.T) {
	t.Parallel()
	w, dir, bare := huskyWorld(t)
	lockFile := lock(t, dir, "locked/LOCK.txt", "")

	t.Run("doctor sees guard run from husky's scripts", func(t *testing.T) {
		r := w.guard(dir, "doctor")
		assert.Equal(t, 0, r.code, r.stdout)
		assert.Contains(t, r.stdout, "pre-commit: managed by husky, which runs guard from .husky/pre-commit line 2 (guard "+guardBin+")")
		assert.Contains(t, r.stdout, "pre-merge-commit: managed by husky, which runs guard from .husky/pre-merge-commit line 1")
		assert.Contains(t, r.stdout, "pre-push: managed by husky, which runs guard from .husky/pre-push line 1")
		assert.Contains(t, r.stdout, "\nhealthy\n")
	})

	t.Run("a commit into the locked folder is refused, naming the lock and its owner", func(t *testing.T) {
		head := w.git(dir, "rev-parse", "HEAD")
		write(t, dir, "locked/tracked", "v2\n")
		w.git(dir, "add", "locked/tracked")
		r := w.gitCode(dir, nil, "commit", "-m", "touch locked")
		out := r.stdout + r.stderr
		assert.Equal(t, 1, r.code, out)
		assert.Contains(t, out, "checks ran", "the user's own check ran first")
		assert.Contains(t, out, "guard: refused commit: 1 path(s) blocked")
		assert.Contains(t, out, "exclusive lock "+lockFile+" held by bob")
		assert.Contains(t, out, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Contains(t, out, "husky - pre-commit script failed (code 1)")
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
		w.git(dir, "reset", "-q", "HEAD", "locked/tracked")
		w.git(dir, "checkout", "-q", "--", "locked/tracked")
	})

	t.Run("a commit outside the locked folder is made", func(t *testing.T) {
		head := w.git(dir, "rev-parse", "HEAD")
		write(t, dir, "free/keep", "free v2\n")
		w.git(dir, "add", "free/keep")
		r := w.gitCode(dir, nil, "commit", "-m", "touch free")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD~1"))
	})

	t.Run("a merge into the locked folder is refused by pre-merge-commit", func(t *testing.T) {
		w.git(dir, "checkout", "-q", "-b", "side", "HEAD~1")
		write(t, dir, "locked/side", "x\n")
		w.git(dir, "add", "locked/side")
		w.commitNoVerify(dir, "side into locked")
		w.git(dir, "checkout", "-q", "main")
		head := w.git(dir, "rev-parse", "HEAD")
		r := w.gitCode(dir, nil, "merge", "--no-ff", "-m", "merge side", "side")
		out := r.stdout + r.stderr
		assert.Equal(t, 1, r.code, out)
		assert.Contains(t, out, "blocked: "+filepath.Join(dir, "locked", "side"))
		assert.Contains(t, out, "husky - pre-merge-commit script failed (code 1)")
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
		// git keeps the refused merge's state for `git commit`; drop it.
		w.gitCode(dir, nil, "merge", "--abort")
		assert.Equal(t, "", w.git(dir, "status", "--porcelain", "--untracked-files=no"))
	})

	t.Run("a push of several refs, one into the locked folder, is refused for that ref", func(t *testing.T) {
		require.NoError(t, os.Remove(lockFile))
		w.twoRefsOneIntoLocked(dir)
		r := w.assertTwoRefPushRefused(dir, bare)
		assert.Contains(t, r.stdout+r.stderr, "husky - pre-push script failed (code 1)")
	})

	t.Run("a push of the clean ref alone passes", func(t *testing.T) {
		r := w.gitCode(dir, nil, "push", "origin", "clean:refs/heads/main")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Equal(t, w.git(dir, "rev-parse", "clean"), w.remoteRef(bare, "refs/heads/main"))
	})
}

func TestDoctorWithHusky(t *testing.T) {
	t.Parallel()
	w, dir, _ := huskyWorld(t)

	t.Run("husky's own pre-commit, which does not call guard, is a problem", func(t *testing.T) {
		write(t, dir, ".husky/pre-commit", "npm test\n")
		r := w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code, r.stdout)
		assert.Contains(t, r.stdout, "pre-commit: foreign (husky's hook, which does not run guard)")
		assert.Contains(t, r.stdout, "problem: pre-commit hook "+filepath.Join(dir, ".husky", "_", "pre-commit")+
			" is husky's, and it does not run guard: .husky/pre-commit has no command `guard hook pre-commit` of its own (add a line `guard hook pre-commit`)")
		assert.Contains(t, r.stdout, "pre-push: managed by husky")
	})

	t.Run("a call whose refusal is swallowed is a problem", func(t *testing.T) {
		write(t, dir, ".husky/pre-commit", "guard hook pre-commit || echo never mind\n")
		r := w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code, r.stdout)
		assert.Contains(t, r.stdout, "pre-commit: foreign (husky's hook, which does not run guard)")
	})

	t.Run("a pre-push without git's arguments is a problem", func(t *testing.T) {
		write(t, dir, ".husky/pre-commit", "guard hook pre-commit\n")
		write(t, dir, ".husky/pre-push", "guard hook pre-push\n")
		r := w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code, r.stdout)
		assert.Contains(t, r.stdout, "pre-push runs `guard hook pre-push` on line 1 without git's arguments (write `guard hook pre-push \"$@\"`)")
		assert.Contains(t, r.stdout, "pre-commit: managed by husky")
	})

	t.Run("a missing husky script is a problem", func(t *testing.T) {
		write(t, dir, ".husky/pre-push", "guard hook pre-push \"$@\"\n")
		require.NoError(t, os.Remove(filepath.Join(dir, ".husky", "pre-merge-commit")))
		r := w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code, r.stdout)
		assert.Contains(t, r.stdout, ".husky/pre-merge-commit does not exist, so husky runs nothing for pre-merge-commit")
	})

	t.Run("guard not on PATH is a problem: husky's script would fail every commit", func(t *testing.T) {
		write(t, dir, ".husky/pre-merge-commit", "guard hook pre-merge-commit\n")
		r := w.run(dir, "", []string{"PATH=" + testenv.Path()}, guardBin, "doctor")
		assert.Equal(t, 1, r.code, r.stdout)
		assert.Contains(t, r.stdout, "problem: pre-commit hook: husky runs guard, which is not there: every commit is refused")
	})
}
