package hooks_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardlocks/guard/internal/testing/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lefthookRecipe is the lefthook.yml of docs/hooks.md's "With other hook managers"
// section, word for word: guard runs as a lefthook command, found on PATH.
const lefthookRecipe = `pre-commit:
  commands:
    guard:
      run: guard hook pre-commit
pre-merge-commit:
  commands:
    guard:
      run: guard hook pre-merge-commit
pre-push:
  commands:
    guard:
      run: guard hook pre-push {1} {2}
      use_stdin: true
`

// lefthookMarker is a lefthook.yml whose pre-commit command leaves a file behind:
// proof that lefthook's own hook ran.
const lefthookMarker = `pre-commit:
  commands:
    marker:
      run: touch .git/lefthook-ran
`

// lefthookBinary finds the real lefthook: GUARD_LEFTHOOK, else where
// .ci/setup-lefthook installs it. The test skips only when neither exists.
func lefthookBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("GUARD_LEFTHOOK")
	if bin == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, err := os.UserHomeDir()
			require.NoError(t, err)
			cache = filepath.Join(home, ".cache")
		}
		bin = filepath.Join(cache, "guard-ci", "lefthook", "node_modules", ".bin", "lefthook")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("lefthook is not installed (%v): run .ci/setup-lefthook or set GUARD_LEFTHOOK", err)
	}
	return bin
}

// lefthookWorld is a world whose hooks find lefthook through LEFTHOOK_BIN (so the
// hook lefthook writes cannot silently find none and let everything through) and
// guard first on PATH, as the lefthook.yml recipe needs.
func lefthookWorld(t *testing.T) (*world, string) {
	t.Helper()
	bin := lefthookBinary(t)
	w := newWorld(t)
	// Later entries win over the world's own PATH (os/exec keeps the last duplicate).
	w.env = append(w.env, "PATH="+binDir+string(os.PathListSeparator)+testenv.Path(), "LEFTHOOK_BIN="+bin)
	return w, bin
}

// lefthookInstall writes lefthook.yml, commits it without hooks and runs `lefthook install`.
func (w *world) lefthookInstall(dir, bin, config string) {
	w.t.Helper()
	write(w.t, dir, "lefthook.yml", config)
	w.git(dir, "add", "lefthook.yml")
	w.commitNoVerify(dir, "lefthook")
	r := w.run(dir, "", nil, bin, "install")
	require.Equal(w.t, 0, r.code, "lefthook install: %s%s", r.stdout, r.stderr)
	hook, err := os.ReadFile(filepath.Join(dir, ".git", "hooks", "pre-commit"))
	require.NoError(w.t, err)
	require.Contains(w.t, string(hook), `call_lefthook run "pre-commit"`)
}

// readmeLefthookYAML returns the lefthook.yml docs/hooks.md shows, without the list
// item's indentation, so that the test runs what the docs say.
func readmeLefthookYAML(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "docs", "hooks.md"))
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(readme), "- *lefthook*: in `lefthook.yml`,\n")
	require.True(t, ok, "docs/hooks.md has no lefthook recipe")
	block, _, ok := strings.Cut(after, "  ```\n")
	require.True(t, ok, "docs/hooks.md's lefthook recipe has no code block")
	block, ok = strings.CutPrefix(block, "  ```yaml\n")
	require.True(t, ok, "docs/hooks.md's lefthook recipe does not start with a yaml block")
	var out strings.Builder
	for _, line := range strings.SplitAfter(block, "\n") {
		out.WriteString(strings.TrimPrefix(line, "  "))
	}
	return out.String()
}

func TestLefthookRecipe(t *testing.T) {
	t.Parallel()
	require.Equal(t, lefthookRecipe, readmeLefthookYAML(t), "the test must run the recipe of docs/hooks.md")
	w, bin := lefthookWorld(t)
	dir := w.repo()
	bare := w.remote(dir)
	w.lefthookInstall(dir, bin, lefthookRecipe)
	lockFile := lock(t, dir, "locked/LOCK.txt", "")

	t.Run("doctor sees guard run from lefthook.yml", func(t *testing.T) {
		r := w.guard(dir, "doctor")
		assert.Equal(t, 0, r.code, r.stdout)
		for _, h := range []string{"pre-commit", "pre-merge-commit", "pre-push"} {
			assert.Contains(t, r.stdout, h+": managed by lefthook, which runs guard from lefthook.yml "+h+".commands.guard (guard "+guardBin+")")
		}
		assert.Contains(t, r.stdout, "\nhealthy\n")
	})

	t.Run("a commit touching the locked folder is refused and HEAD stays", func(t *testing.T) {
		head := w.git(dir, "rev-parse", "HEAD")
		write(t, dir, "locked/tracked", "v2\n")
		w.git(dir, "add", "locked/tracked")
		r := w.gitCode(dir, nil, "commit", "-m", "touch locked")
		out := r.stdout + r.stderr
		assert.Equal(t, 1, r.code, out)
		assert.Contains(t, out, "guard: refused commit: 1 path(s) blocked")
		assert.Contains(t, out, "exclusive lock "+lockFile+" held by bob")
		assert.Contains(t, out, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Contains(t, out, `GUARD_BYPASS="<reason>" git commit`)
		// lefthook reports guard's own exit status: 1 is a refusal, 2 would be an error.
		assert.Contains(t, out, "exit status 1")
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
		w.git(dir, "reset", "-q", "HEAD", "locked/tracked")
		w.git(dir, "checkout", "-q", "--", "locked/tracked")
	})

	t.Run("a commit outside the locked folder succeeds", func(t *testing.T) {
		head := w.git(dir, "rev-parse", "HEAD")
		write(t, dir, "free/keep", "free v2\n")
		w.git(dir, "add", "free/keep")
		r := w.gitCode(dir, nil, "commit", "-m", "touch free")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD~1"))
	})

	t.Run("pushing a free commit passes the remote and URL to guard and succeeds", func(t *testing.T) {
		r := w.gitCode(dir, nil, "push", "origin", "main")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Equal(t, w.git(dir, "rev-parse", "HEAD"), w.remoteRef(bare, "refs/heads/main"))
	})

	t.Run("pushing a commit touching the locked folder is refused and the remote ref stays", func(t *testing.T) {
		before := w.remoteRef(bare, "refs/heads/main")
		write(t, dir, "locked/tracked", "v3\n")
		w.git(dir, "add", "locked/tracked")
		w.commitNoVerify(dir, "touch locked elsewhere")
		r := w.gitCode(dir, nil, "push", "origin", "main")
		out := r.stdout + r.stderr
		assert.Equal(t, 1, r.code, out)
		assert.Contains(t, out, "guard: pre-push: push of refs/heads/main -> refs/heads/main refused")
		assert.Contains(t, out, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Contains(t, out, `GUARD_BYPASS="<reason>" git push`)
		assert.Contains(t, out, "exit status 1")
		assert.Equal(t, before, w.remoteRef(bare, "refs/heads/main"))
	})

	t.Run("a push of several refs, one into the locked folder, is refused for that ref", func(t *testing.T) {
		require.NoError(t, os.Remove(lockFile))
		w.git(dir, "reset", "-q", "--hard", "HEAD~1")
		w.twoRefsOneIntoLocked(dir)
		r := w.assertTwoRefPushRefused(dir, bare)
		assert.Contains(t, r.stdout+r.stderr, "exit status 1")
	})
}

func TestDoctorWithLefthook(t *testing.T) {
	t.Parallel()
	w, bin := lefthookWorld(t)

	t.Run("a lefthook.yml without guard is a problem", func(t *testing.T) {
		dir := w.repo()
		w.lefthookInstall(dir, bin, "pre-commit:\n  commands:\n    lint:\n      run: echo lint\npre-merge-commit:\n  commands:\n    lint:\n      run: echo lint\npre-push:\n  commands:\n    lint:\n      run: echo lint\n")
		r := w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code, r.stdout)
		assert.Contains(t, r.stdout, "pre-commit: foreign (lefthook's hook, which does not run guard)")
		assert.Contains(t, r.stdout, "problem: pre-commit hook "+filepath.Join(dir, ".git", "hooks", "pre-commit")+
			" is lefthook's, and it does not run guard: lefthook.yml has no command `guard hook pre-commit`")
		assert.Contains(t, r.stdout, "lefthook.yml has no command `guard hook pre-push {1} {2}` with `use_stdin: true`")
	})

	t.Run("the recipe without use_stdin is a problem: guard would check nothing", func(t *testing.T) {
		dir := w.repo()
		w.lefthookInstall(dir, bin, strings.Replace(lefthookRecipe, "      use_stdin: true\n", "", 1))
		r := w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code, r.stdout)
		assert.Contains(t, r.stdout, "runs guard in pre-push.commands.guard without `use_stdin: true`, so guard gets no ref lines and checks nothing")
		assert.Contains(t, r.stdout, "pre-commit: managed by lefthook")
	})

	t.Run("a hook that cannot find lefthook is a problem: it lets everything through", func(t *testing.T) {
		dir := w.repo()
		w.lefthookInstall(dir, bin, lefthookRecipe)
		// Without LEFTHOOK_BIN, and with the binary the hook recorded out of reach.
		hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
		data, err := os.ReadFile(hook)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(hook, []byte(strings.ReplaceAll(string(data), filepath.Dir(filepath.Dir(bin)), "/nonexistent")), 0o755))
		git, err := exec.LookPath("git")
		require.NoError(t, err)
		path := binDir + string(os.PathListSeparator) + filepath.Dir(git)
		if lookIn(path, "lefthook") != "" {
			t.Skipf("lefthook is installed next to git (%s): this test needs a PATH without it", filepath.Dir(git))
		}
		r := w.run(dir, "", []string{"LEFTHOOK_BIN=", "PATH=" + path}, guardBin, "doctor")
		assert.Equal(t, 1, r.code, r.stdout)
		assert.Contains(t, r.stdout, "problem: pre-commit hook: lefthook's pre-commit hook cannot find lefthook")
		assert.Contains(t, r.stdout, "and then it lets everything through")
	})
}

func TestGuardInstallAfterLefthookInstall(t *testing.T) {
	t.Parallel()
	w, bin := lefthookWorld(t)
	dir := w.repo()
	w.lefthookInstall(dir, bin, lefthookMarker)
	hookPath := filepath.Join(dir, ".git", "hooks", "pre-commit")
	lefthookHook, err := os.ReadFile(hookPath)
	require.NoError(t, err)
	w.install(dir)
	marker := filepath.Join(dir, ".git", "lefthook-ran")
	lock(t, dir, "locked/LOCK.txt", "")

	t.Run("a free commit succeeds and lefthook's hook still runs", func(t *testing.T) {
		head := w.git(dir, "rev-parse", "HEAD")
		write(t, dir, "free/keep", "free v2\n")
		w.git(dir, "add", "free/keep")
		r := w.gitCode(dir, nil, "commit", "-m", "touch free")
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD~1"))
		assert.FileExists(t, marker)
		// lefthook did not write its hook back over guard's while running.
		hook, err := os.ReadFile(hookPath)
		require.NoError(t, err)
		assert.Contains(t, string(hook), "# guard-managed-hook")
	})

	t.Run("a commit touching the locked folder is refused before lefthook runs", func(t *testing.T) {
		require.NoError(t, os.Remove(marker))
		head := w.git(dir, "rev-parse", "HEAD")
		write(t, dir, "locked/tracked", "v2\n")
		w.git(dir, "add", "locked/tracked")
		r := w.gitCode(dir, nil, "commit", "-m", "touch locked")
		assert.Equal(t, 1, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stderr, "guard: refused commit: 1 path(s) blocked")
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
		assert.NoFileExists(t, marker)
	})

	t.Run("guard uninstall puts lefthook's hook back byte for byte", func(t *testing.T) {
		r := w.guard(dir, "uninstall")
		require.Equal(t, 0, r.code, r.stderr)
		got, err := os.ReadFile(hookPath)
		require.NoError(t, err)
		assert.Equal(t, string(lefthookHook), string(got))
		assert.NoFileExists(t, hookPath+".pre-guard")
	})
}
