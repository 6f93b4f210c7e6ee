package hooks_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

// guardBin is the guard binary of the end-to-end tests (guardtest.Binary, fetched by
// the first newWorld, so that the package's unit tests and fuzz targets do not need
// it), and binDir its folder, which holds nothing else; the hooks that `guard install`
// writes run it.
var (
	guardBin, binDir string
	binOnce          sync.Once
)

func buildGuard(t *testing.T) {
	t.Helper()
	bin := guardtest.Binary(t)
	binOnce.Do(func() { guardBin, binDir = bin, filepath.Dir(bin) })
}

// world is a hermetic environment: no global git config, a pinned identity, and a
// PATH without any guard binary (the hooks use the path recorded at install).
type world struct {
	t   *testing.T
	env []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	buildGuard(t)
	home := t.TempDir()
	return &world{t: t, env: guardtest.GitEnv(home, "GUARD_OWNER=alice", "GUARD_HOST=testhost", "LANG=C")}
}

type result struct {
	code           int
	stdout, stderr string
}

// run runs a program in dir with the world's environment plus extra variables.
func (w *world) run(dir string, stdin string, extra []string, name string, args ...string) result {
	w.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, w.env...), extra...)
	cmd.Stdin = strings.NewReader(stdin)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if err != nil {
		xe, ok := err.(*exec.ExitError)
		require.True(w.t, ok, "running %s %v: %v", name, args, err)
		code = xe.ExitCode()
	}
	return result{code: code, stdout: so.String(), stderr: se.String()}
}

func (w *world) git(dir string, args ...string) string {
	w.t.Helper()
	r := w.run(dir, "", nil, "git", args...)
	require.Equal(w.t, 0, r.code, "git %v: %s", args, r.stderr)
	return strings.TrimSpace(r.stdout)
}

func (w *world) gitCode(dir string, extra []string, args ...string) result {
	w.t.Helper()
	return w.run(dir, "", extra, "git", args...)
}

func (w *world) guard(dir string, args ...string) result {
	w.t.Helper()
	return w.run(dir, "", nil, guardBin, args...)
}

// repo makes a repository with a first commit of free/keep and locked/tracked.
func (w *world) repo() string {
	w.t.Helper()
	dir := filepath.Join(w.t.TempDir(), "repo")
	require.NoError(w.t, os.MkdirAll(dir, 0o755))
	w.git(dir, "init", "-q", "-b", "main")
	w.git(dir, "config", "user.name", "Alice")
	w.git(dir, "config", "user.email", "alice@example.com")
	write(w.t, dir, "free/keep", "free\n")
	write(w.t, dir, "locked/tracked", "v1\n")
	w.git(dir, "add", "free/keep", "locked/tracked")
	w.git(dir, "commit", "-q", "-m", "first")
	return dir
}

func (w *world) install(dir string, args ...string) {
	w.t.Helper()
	r := w.guard(dir, append([]string{"install"}, args...)...)
	require.Equal(w.t, 0, r.code, r.stderr)
}

// placeGuard puts the built guard binary at dst. A hard link, not a copy: a binary
// written by this process can still be open for writing in a child another parallel
// test is forking at that moment, and executing it then fails with "text file busy"
// (golang.org/issue/22315).
func placeGuard(t *testing.T, dst string) {
	t.Helper()
	if err := os.Link(guardBin, dst); err == nil {
		return
	}
	data, err := os.ReadFile(guardBin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dst, data, 0o755))
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// lock puts a lock file held by bob into dir/rel.
func lock(t *testing.T, dir, rel, extra string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	write(t, dir, rel, "owner: bob\nexpires_after: 24h\npurpose: big refactor\n"+extra)
	return p
}

func TestPreCommit(t *testing.T) {
	t.Run("a commit into a locked folder is refused and leaves HEAD and the index as they were", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lockPath := lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "locked/new", "x\n")
		w.git(dir, "add", "locked/new")
		head, index := w.git(dir, "rev-parse", "HEAD"), w.git(dir, "ls-files", "-s")

		r := w.gitCode(dir, nil, "commit", "-m", "into the locked folder")

		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "guard: refused commit: 1 path(s) blocked")
		assert.Contains(t, r.stderr, "held by bob")
		assert.Contains(t, r.stderr, "lock: "+lockPath)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "new"))
		assert.Contains(t, r.stderr, `GUARD_BYPASS="<reason>" git commit`)
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
		assert.Equal(t, index, w.git(dir, "ls-files", "-s"))
	})

	t.Run("a commit outside the locked folder goes through", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "free/new", "x\n")
		w.git(dir, "add", "free/new")
		r := w.gitCode(dir, nil, "commit", "-q", "-m", "free")
		assert.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "", r.stderr)
	})

	t.Run("the lock's owner may commit into the locked folder", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "locked/new", "x\n")
		w.git(dir, "add", "locked/new")
		r := w.gitCode(dir, []string{"GUARD_OWNER=bob"}, "commit", "-q", "-m", "mine")
		assert.Equal(t, 0, r.code, r.stderr)
	})

	t.Run("the first commit of an empty repository is checked", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := t.TempDir()
		w.git(dir, "init", "-q", "-b", "main")
		w.git(dir, "config", "user.name", "Alice")
		w.git(dir, "config", "user.email", "alice@example.com")
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "locked/a", "x\n")
		write(t, dir, "free/a", "x\n")
		w.git(dir, "add", "locked/a", "free/a")
		r := w.gitCode(dir, nil, "commit", "-m", "first")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "a"))
		assert.NotContains(t, r.stderr, filepath.Join(dir, "free", "a"))
		assert.Equal(t, 1, w.gitCode(dir, nil, "rev-parse", "--verify", "-q", "HEAD").code, "no commit was made")

		w.git(dir, "rm", "-q", "--cached", "locked/a")
		r = w.gitCode(dir, nil, "commit", "-q", "-m", "first")
		assert.Equal(t, 0, r.code, r.stderr)
	})

	t.Run("renaming a file out of a locked folder is refused for its old side", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		w.git(dir, "mv", "locked/tracked", "free/moved")
		r := w.gitCode(dir, nil, "commit", "-m", "move")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
	})

	t.Run("deleting a file in a locked folder is refused", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		w.git(dir, "rm", "-q", "locked/tracked")
		r := w.gitCode(dir, nil, "commit", "-m", "delete")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
	})

	t.Run("git commit -a uses a temporary index that the hook reads through GIT_INDEX_FILE", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "locked/tracked", "v2\n")
		r := w.gitCode(dir, nil, "commit", "-a", "-m", "all")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		r = w.gitCode(dir, nil, "commit", "-m", "only", "--", "locked/tracked")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
	})

	t.Run("staging a publication marker anywhere is refused, in any case", func(t *testing.T) {
		t.Parallel()
		for _, name := range []string{"PRIVATE.txt", "sub/PUBLIC.txt", "private.TXT"} {
			w := newWorld(t)
			dir := w.repo()
			w.install(dir)
			write(t, dir, name, "not for publication\n")
			w.git(dir, "add", "-f", name)
			r := w.gitCode(dir, nil, "commit", "-m", "marker")
			assert.Equal(t, 1, r.code, name)
			assert.Contains(t, r.stderr, "is a publication marker", name)
			assert.Contains(t, r.stderr, "git rm --cached -- "+name, name)
		}
	})

	t.Run("removing a committed marker from the repository is allowed", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		write(t, dir, "PRIVATE.txt", "oops\n")
		w.git(dir, "add", "PRIVATE.txt")
		w.git(dir, "commit", "-q", "-m", "committed before guard")
		w.install(dir)
		w.git(dir, "rm", "-q", "--cached", "PRIVATE.txt")
		r := w.gitCode(dir, nil, "commit", "-q", "-m", "untrack the marker")
		assert.Equal(t, 0, r.code, r.stderr)
	})

	t.Run("install keeps the markers out of git status through info/exclude", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		write(t, dir, "PRIVATE.txt", "x\n")
		write(t, dir, "sub/PUBLIC.txt", "x\n")
		assert.Equal(t, "", w.git(dir, "status", "--porcelain"))
		_, err := os.Stat(filepath.Join(dir, ".gitignore"))
		assert.True(t, os.IsNotExist(err), "install must not create a tracked .gitignore")
	})

	t.Run("a commit in a linked worktree is refused by a lock in the main clone", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		wt := filepath.Join(t.TempDir(), "wt")
		w.git(dir, "worktree", "add", "-q", "-b", "side", wt)
		w.install(wt)
		assert.FileExists(t, filepath.Join(dir, ".git", "hooks", "pre-commit"), "worktrees share the main clone's hooks")
		lock(t, dir, "locked/LOCK.txt", "")
		write(t, wt, "locked/new", "x\n")
		w.git(wt, "add", "locked/new")
		r := w.gitCode(wt, nil, "commit", "-m", "from the worktree")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(wt, "locked", "new"))
	})

	t.Run("a holder whose fence was superseded may not commit even into its own area", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lockPath := filepath.Join(dir, "locked", "LOCK.txt")
		write(t, dir, "locked/LOCK.txt", "owner: alice\nexpires_after: 24h\nfence: 200\n")
		write(t, dir, "locked/new", "x\n")
		w.git(dir, "add", "locked/new")
		r := w.gitCode(dir, []string{"LOCK_FENCE=100", "LOCK_FENCE_FILE=" + lockPath}, "commit", "-m", "stale holder")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "guard: refused commit")
		r = w.gitCode(dir, []string{"LOCK_FENCE=200", "LOCK_FENCE_FILE=" + lockPath}, "commit", "-q", "-m", "current holder")
		assert.Equal(t, 0, r.code, r.stderr)
	})

	t.Run("a commit in a submodule is checked against the submodule's locks", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		sub := w.repo()
		dir := w.repo()
		w.git(dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "mod")
		w.git(dir, "commit", "-q", "-m", "add submodule")
		mod := filepath.Join(dir, "mod")
		w.git(mod, "config", "user.name", "Alice")
		w.git(mod, "config", "user.email", "alice@example.com")
		w.install(mod)
		lock(t, mod, "locked/LOCK.txt", "")
		write(t, mod, "locked/new", "x\n")
		w.git(mod, "add", "locked/new")
		r := w.gitCode(mod, nil, "commit", "-m", "in the submodule")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(mod, "locked", "new"))
	})
}

func TestInstall(t *testing.T) {
	t.Run("installing twice is the same as installing once", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		first, err := os.ReadFile(filepath.Join(dir, ".git", "hooks", "pre-push"))
		require.NoError(t, err)
		exclude1, _ := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude"))
		w.install(dir)
		second, _ := os.ReadFile(filepath.Join(dir, ".git", "hooks", "pre-push"))
		exclude2, _ := os.ReadFile(filepath.Join(dir, ".git", "info", "exclude"))
		assert.Equal(t, string(first), string(second))
		assert.Equal(t, string(exclude1), string(exclude2))
		assert.Equal(t, 1, strings.Count(string(exclude2), "\nPRIVATE.txt\n"))
		assert.NoFileExists(t, filepath.Join(dir, ".git", "hooks", "pre-push.pre-guard"))
	})

	t.Run("an existing hook is kept, still runs, fails the commit when it fails, and comes back on uninstall", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
		original := "#!/bin/sh\necho ran >> \"$(git rev-parse --git-dir)/prev-ran\"\n[ -z \"$FAIL_PREV\" ]\n"
		require.NoError(t, os.WriteFile(hook, []byte(original), 0o755))
		r := w.guard(dir, "install")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "kept the existing hook as pre-commit.pre-guard")

		write(t, dir, "free/a", "x\n")
		w.git(dir, "add", "free/a")
		r = w.gitCode(dir, nil, "commit", "-q", "-m", "ok")
		require.Equal(t, 0, r.code, r.stderr)
		ran, _ := os.ReadFile(filepath.Join(dir, ".git", "prev-ran"))
		assert.Equal(t, "ran\n", string(ran))

		write(t, dir, "free/b", "x\n")
		w.git(dir, "add", "free/b")
		head := w.git(dir, "rev-parse", "HEAD")
		r = w.gitCode(dir, []string{"FAIL_PREV=1"}, "commit", "-q", "-m", "previous hook fails")
		assert.Equal(t, 1, r.code)
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))

		r = w.guard(dir, "uninstall")
		require.Equal(t, 0, r.code, r.stderr)
		back, err := os.ReadFile(hook)
		require.NoError(t, err)
		assert.Equal(t, original, string(back))
		assert.NoFileExists(t, hook+".pre-guard")
		assert.NoFileExists(t, filepath.Join(dir, ".git", "hooks", "pre-push"))
	})

	t.Run("husky-style core.hooksPath gets the hooks, and husky's dispatch on $0 still works", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		// husky v9's layout: .husky/_/<hook> sources .husky/_/h, which runs .husky/<hook>
		// chosen by the hook's own name.
		write(t, dir, ".husky/_/h", "#!/usr/bin/env sh\nn=$(basename \"$0\")\ns=$(dirname \"$(dirname \"$0\")\")/$n\n[ ! -f \"$s\" ] && exit 0\nsh -e \"$s\" \"$@\"\n")
		write(t, dir, ".husky/_/pre-commit", "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n")
		require.NoError(t, os.Chmod(filepath.Join(dir, ".husky/_/pre-commit"), 0o755))
		write(t, dir, ".husky/pre-commit", "echo husky-ran > husky-ran.out\n")
		w.git(dir, "config", "core.hooksPath", ".husky/_")
		r := w.guard(dir, "install")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "installed "+filepath.Join(dir, ".husky", "_", "pre-commit"))
		assert.Contains(t, r.stderr, "managed by husky")

		write(t, dir, "free/a", "x\n")
		w.git(dir, "add", "free/a")
		r = w.gitCode(dir, nil, "commit", "-q", "-m", "ok")
		require.Equal(t, 0, r.code, r.stderr)
		assert.FileExists(t, filepath.Join(dir, "husky-ran.out"))

		lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "locked/new", "x\n")
		w.git(dir, "add", "locked/new")
		r = w.gitCode(dir, nil, "commit", "-m", "locked")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "held by bob")
	})

	t.Run("a hook whose guard binary is gone fails closed", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		copyBin := filepath.Join(t.TempDir(), "guard")
		placeGuard(t, copyBin)
		r := w.run(dir, "", nil, copyBin, "install")
		require.Equal(t, 0, r.code, r.stderr)
		require.NoError(t, os.Remove(copyBin))

		write(t, dir, "free/a", "x\n")
		w.git(dir, "add", "free/a")
		head := w.git(dir, "rev-parse", "HEAD")
		r = w.gitCode(dir, nil, "commit", "-m", "no guard")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "guard is gone from "+copyBin+" and is not on PATH")
		assert.Contains(t, r.stderr, "git commit --no-verify")
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))

		// doctor says so too.
		r = w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stdout, "pre-commit hook cannot find guard")
	})

	t.Run("install and uninstall report what they did as JSON", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		hooksDir := filepath.Join(dir, ".git", "hooks")
		require.NoError(t, os.WriteFile(filepath.Join(hooksDir, "pre-push"), []byte("#!/bin/sh\n"), 0o755))
		r := w.guard(dir, "install", "--json", "--hooks", "pre-push")
		require.Equal(t, 0, r.code, r.stderr)
		var res struct {
			HooksDir     string `json:"hooks_dir"`
			ExcludeAdded bool   `json:"exclude_added"`
			Hooks        []struct {
				Name, Path, Action, Kept string
			} `json:"hooks"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
		assert.Equal(t, hooksDir, res.HooksDir)
		assert.True(t, res.ExcludeAdded)
		require.Len(t, res.Hooks, 1)
		assert.Equal(t, "installed", res.Hooks[0].Action)
		assert.Equal(t, filepath.Join(hooksDir, "pre-push.pre-guard"), res.Hooks[0].Kept)
		assert.NoFileExists(t, filepath.Join(hooksDir, "pre-commit"), "--hooks pre-push installs only pre-push")

		r = w.guard(dir, "uninstall", "--json")
		require.Equal(t, 0, r.code, r.stderr)
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
		require.Len(t, res.Hooks, 3)
		assert.Equal(t, "pre-commit", res.Hooks[0].Name)
		assert.Equal(t, "absent", res.Hooks[0].Action)
		assert.Equal(t, "pre-merge-commit", res.Hooks[1].Name)
		assert.Equal(t, "absent", res.Hooks[1].Action)
		assert.Equal(t, "restored", res.Hooks[2].Action)

		r = w.guard(dir, "install", "--hooks", "post-commit")
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stderr, `"post-commit" is not pre-commit, pre-merge-commit or pre-push`)
	})

	t.Run("a hook whose recorded guard is gone uses the guard on PATH", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		moved := filepath.Join(t.TempDir(), "guard")
		placeGuard(t, moved)
		r := w.run(dir, "", nil, moved, "install")
		require.Equal(t, 0, r.code, r.stderr)
		require.NoError(t, os.Remove(moved))
		onPath := t.TempDir()
		placeGuard(t, filepath.Join(onPath, "guard"))
		path := []string{"PATH=" + onPath + string(os.PathListSeparator) + testenv.Path()}

		lock(t, dir, "locked/LOCK.txt", "")
		write(t, dir, "locked/new", "x\n")
		w.git(dir, "add", "locked/new")
		r = w.gitCode(dir, path, "commit", "-m", "guard from PATH")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "held by bob", "the guard on PATH ran and refused")
	})

	t.Run("uninstall leaves a hook that replaced guard's, and says so", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
		require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho first\n"), 0o755))
		w.install(dir)
		require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho third\n"), 0o755))
		r := w.guard(dir, "uninstall")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "is not guard's hook any more")
		now, _ := os.ReadFile(hook)
		kept, _ := os.ReadFile(hook + ".pre-guard")
		assert.Equal(t, "#!/bin/sh\necho third\n", string(now))
		assert.Equal(t, "#!/bin/sh\necho first\n", string(kept))
	})

	t.Run("a foreign hook over an earlier kept one needs --force, and nothing is lost", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		hooksDir := filepath.Join(dir, ".git", "hooks")
		require.NoError(t, os.WriteFile(filepath.Join(hooksDir, "pre-commit"), []byte("#!/bin/sh\necho new\n"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(hooksDir, "pre-commit.pre-guard"), []byte("#!/bin/sh\necho old\n"), 0o755))
		r := w.guard(dir, "install")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "--force")
		r = w.guard(dir, "install", "--force")
		require.Equal(t, 0, r.code, r.stderr)
		kept, _ := os.ReadFile(filepath.Join(hooksDir, "pre-commit.pre-guard"))
		older, _ := os.ReadFile(filepath.Join(hooksDir, "pre-commit.pre-guard.1"))
		assert.Equal(t, "#!/bin/sh\necho new\n", string(kept))
		assert.Equal(t, "#!/bin/sh\necho old\n", string(older))
	})
}

// remote makes a bare repository the repo pushes to as origin, with main pushed.
func (w *world) remote(dir string) string {
	w.t.Helper()
	bare := filepath.Join(w.t.TempDir(), "remote.git")
	w.git(dir, "init", "-q", "--bare", bare)
	w.git(dir, "remote", "add", "origin", bare)
	w.git(dir, "push", "-q", "origin", "main")
	return bare
}

func (w *world) remoteRef(bare, ref string) string {
	w.t.Helper()
	r := w.gitCode(bare, nil, "rev-parse", "--verify", "-q", ref)
	return strings.TrimSpace(r.stdout)
}

// commitNoVerify commits what is staged without running the hooks (the lock came
// after the commit, or the commit was made elsewhere).
func (w *world) commitNoVerify(dir, msg string) {
	w.t.Helper()
	w.git(dir, "commit", "-q", "--no-verify", "-m", msg)
}

func TestPrePush(t *testing.T) {
	t.Run("pushing commits that touch a locked folder is refused and leaves the remote ref", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.install(dir)
		before := w.remoteRef(bare, "refs/heads/main")
		write(t, dir, "locked/tracked", "v2\n")
		w.git(dir, "add", "locked/tracked")
		w.commitNoVerify(dir, "touch locked")
		lock(t, dir, "locked/LOCK.txt", "")

		r := w.gitCode(dir, nil, "push", "origin", "main")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "guard: pre-push: push of refs/heads/main -> refs/heads/main refused")
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Contains(t, r.stderr, `GUARD_BYPASS="<reason>" git push`)
		assert.Equal(t, before, w.remoteRef(bare, "refs/heads/main"))
	})

	t.Run("a new branch is checked for what the remote does not have yet", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		w.git(dir, "checkout", "-q", "-b", "feature")
		write(t, dir, "free/f", "x\n")
		w.git(dir, "add", "free/f")
		w.commitNoVerify(dir, "free work")
		// locked/tracked is in the first commit, which the remote already has: the new
		// branch does not publish it.
		r := w.gitCode(dir, nil, "push", "-q", "origin", "feature")
		require.Equal(t, 0, r.code, r.stderr)

		w.git(dir, "checkout", "-q", "-b", "feature2")
		write(t, dir, "locked/n", "x\n")
		w.git(dir, "add", "locked/n")
		w.commitNoVerify(dir, "locked work")
		r = w.gitCode(dir, nil, "push", "origin", "feature2")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "refs/heads/feature2 -> refs/heads/feature2 refused")
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "n"))
		assert.Equal(t, "", w.remoteRef(bare, "refs/heads/feature2"))
	})

	t.Run("a branch whose root commit is new to the remote publishes its whole tree", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := filepath.Join(t.TempDir(), "empty.git")
		w.git(dir, "init", "-q", "--bare", bare)
		w.git(dir, "remote", "add", "origin", bare)
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		r := w.gitCode(dir, nil, "push", "origin", "main")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Equal(t, "", w.remoteRef(bare, "refs/heads/main"))
	})

	t.Run("a forced update over a remote commit unknown here is checked as a new ref", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		other := filepath.Join(t.TempDir(), "other")
		w.git(dir, "clone", "-q", "-b", "main", bare, other)
		w.git(other, "config", "user.name", "Carol")
		w.git(other, "config", "user.email", "carol@example.com")
		write(t, other, "free/theirs", "x\n")
		w.git(other, "add", "free/theirs")
		w.git(other, "commit", "-q", "-m", "theirs")
		w.git(other, "push", "-q", "origin", "main")
		theirs := w.remoteRef(bare, "refs/heads/main")

		w.install(dir)
		write(t, dir, "locked/tracked", "v2\n")
		w.git(dir, "add", "locked/tracked")
		w.commitNoVerify(dir, "ours")
		lock(t, dir, "locked/LOCK.txt", "")
		r := w.gitCode(dir, nil, "push", "--force", "origin", "main")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.NotContains(t, r.stderr, filepath.Join(dir, "free", "keep"), "what origin/main already has is not published again")
		assert.Equal(t, theirs, w.remoteRef(bare, "refs/heads/main"))
	})

	t.Run("a deletion publishes no path but is a push at the repository root", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.git(dir, "push", "-q", "origin", "main:old")
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		r := w.gitCode(dir, nil, "push", "-q", "origin", ":old")
		require.Equal(t, 0, r.code, "a folder lock does not stop a deletion: %s", r.stderr)

		w.git(dir, "push", "-q", "--no-verify", "origin", "main:old")
		lock(t, dir, "LOCK.txt", "operations: push\n")
		r = w.gitCode(dir, nil, "push", "origin", ":old")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "delete refs/heads/old refused")
		assert.NotEqual(t, "", w.remoteRef(bare, "refs/heads/old"))
	})

	t.Run("pushing a tag is a release-tag at the repository root even without new commits", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.install(dir)
		lock(t, dir, "LOCK.txt", "operations: release-tag\n")
		w.git(dir, "tag", "-a", "-m", "release", "v1.0.0")
		r := w.gitCode(dir, nil, "push", "origin", "v1.0.0")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "refs/tags/v1.0.0 -> refs/tags/v1.0.0 refused")
		assert.Contains(t, r.stderr, "guard: refused push+release-tag")
		assert.Equal(t, "", w.remoteRef(bare, "refs/tags/v1.0.0"))

		// The same lock does not stop a branch push.
		write(t, dir, "free/b", "x\n")
		w.git(dir, "add", "free/b")
		w.commitNoVerify(dir, "free")
		r = w.gitCode(dir, nil, "push", "-q", "origin", "main")
		assert.Equal(t, 0, r.code, r.stderr)
	})

	t.Run("an annotated tag on commits the remote lacks publishes their paths", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.install(dir)
		write(t, dir, "locked/tracked", "v2\n")
		w.git(dir, "add", "locked/tracked")
		w.commitNoVerify(dir, "touch locked")
		w.git(dir, "tag", "-a", "-m", "release", "v2.0.0")
		lock(t, dir, "locked/LOCK.txt", "")
		r := w.gitCode(dir, nil, "push", "origin", "v2.0.0")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Equal(t, "", w.remoteRef(bare, "refs/tags/v2.0.0"))
	})

	t.Run("a tag of a tree is checked at the repository root only", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.install(dir)
		tree := w.git(dir, "rev-parse", "HEAD^{tree}")
		w.git(dir, "tag", "treetag", tree)
		r := w.gitCode(dir, nil, "push", "-q", "origin", "treetag")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, tree, w.remoteRef(bare, "refs/tags/treetag"))
	})

	t.Run("with several refs only the second blocked, the push is refused naming that ref", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.install(dir)
		before := w.remoteRef(bare, "refs/heads/main")
		write(t, dir, "free/a", "x\n")
		w.git(dir, "add", "free/a")
		w.commitNoVerify(dir, "free on main")
		w.git(dir, "checkout", "-q", "-b", "second")
		write(t, dir, "locked/b", "x\n")
		w.git(dir, "add", "locked/b")
		w.commitNoVerify(dir, "locked on second")
		lock(t, dir, "locked/LOCK.txt", "")

		r := w.gitCode(dir, nil, "push", "origin", "main", "second")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stderr, "refs/heads/second -> refs/heads/second refused")
		assert.NotContains(t, r.stderr, "refs/heads/main -> refs/heads/main refused")
		assert.Equal(t, before, w.remoteRef(bare, "refs/heads/main"))
		assert.Equal(t, "", w.remoteRef(bare, "refs/heads/second"))
	})

	t.Run("an existing pre-push hook gets the same ref lines on stdin", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.remote(dir)
		hook := filepath.Join(dir, ".git", "hooks", "pre-push")
		require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho \"$1 $2\" > \"$(git rev-parse --git-dir)/prev-args\"\ncat > \"$(git rev-parse --git-dir)/prev-stdin\"\n"), 0o755))
		w.install(dir)
		write(t, dir, "free/a", "x\n")
		w.git(dir, "add", "free/a")
		w.commitNoVerify(dir, "free")
		r := w.gitCode(dir, nil, "push", "-q", "origin", "main")
		require.Equal(t, 0, r.code, r.stderr)
		stdin, _ := os.ReadFile(filepath.Join(dir, ".git", "prev-stdin"))
		assert.Regexp(t, `^refs/heads/main [0-9a-f]{40} refs/heads/main [0-9a-f]{40}\n$`, string(stdin))
		args, _ := os.ReadFile(filepath.Join(dir, ".git", "prev-args"))
		assert.Contains(t, string(args), "origin ")
	})
}

func TestPrePushFromThePreCommitFramework(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.repo()
	w.remote(dir)
	base := w.git(dir, "rev-parse", "HEAD")
	write(t, dir, "locked/tracked", "v2\n")
	w.git(dir, "add", "locked/tracked")
	w.commitNoVerify(dir, "touch locked")
	lock(t, dir, "locked/LOCK.txt", "")
	head := w.git(dir, "rev-parse", "HEAD")
	vars := []string{"PRE_COMMIT_REMOTE_NAME=origin", "PRE_COMMIT_REMOTE_URL=x", "PRE_COMMIT_LOCAL_BRANCH=refs/heads/main",
		"PRE_COMMIT_REMOTE_BRANCH=refs/heads/main", "PRE_COMMIT_FROM_REF=" + base, "PRE_COMMIT_TO_REF=" + head}
	r := w.run(dir, "", vars, guardBin, "hook", "pre-push")
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))

	r = w.run(dir, "", nil, guardBin, "hook", "pre-push")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no remote")
}

func TestBypass(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.repo()
	bare := w.remote(dir)
	w.install(dir)
	lock(t, dir, "locked/LOCK.txt", "")
	write(t, dir, "locked/new", "x\n")
	w.git(dir, "add", "locked/new")

	r := w.gitCode(dir, []string{"GUARD_BYPASS=hotfix for the outage"}, "commit", "-q", "-m", "bypassed")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, `GUARD_BYPASS set ("hotfix for the outage"): letting this commit through; recorded in `+filepath.Join(dir, ".git", "guard", "bypass.log"))
	r = w.gitCode(dir, []string{"GUARD_BYPASS=pushing the hotfix"}, "push", "-q", "origin", "main")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, w.git(dir, "rev-parse", "HEAD"), w.remoteRef(bare, "refs/heads/main"))

	data, err := os.ReadFile(filepath.Join(dir, ".git", "guard", "bypass.log"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Len(t, lines, 2)
	var e map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &e))
	assert.Equal(t, "alice", e["owner"])
	assert.Equal(t, "testhost", e["host"])
	assert.Equal(t, "pre-commit", e["hook"])
	assert.Equal(t, "hotfix for the outage", e["reason"])
	assert.Equal(t, true, e["refused"])
	assert.Equal(t, []any{"commit"}, e["ops"])
	blocking := e["blocking"].([]any)
	require.Len(t, blocking, 1)
	assert.Equal(t, filepath.Join(dir, "locked", "LOCK.txt"), blocking[0].(map[string]any)["lock"])
	assert.Equal(t, "bob", blocking[0].(map[string]any)["owner"])
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &e))
	assert.Equal(t, "pre-push", e["hook"])
	assert.Equal(t, "origin", e["remote"])
	assert.Equal(t, []any{"refs/heads/main -> refs/heads/main"}, e["refs"])

	r = w.guard(dir, "doctor")
	assert.Contains(t, r.stdout, "bypasses: 2")
	assert.Contains(t, r.stdout, `alice pre-commit: "hotfix for the outage" (1 blocked)`)
	r = w.guard(dir, "doctor", "--json")
	var rep struct {
		Repositories []struct {
			Bypasses []map[string]any `json:"bypasses"`
		} `json:"repositories"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
	require.Len(t, rep.Repositories, 1)
	assert.Len(t, rep.Repositories[0].Bypasses, 2)
}

func TestBypassWithoutAnAuditTrailIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.repo()
	w.install(dir)
	lock(t, dir, "locked/LOCK.txt", "")
	write(t, dir, "locked/new", "x\n")
	w.git(dir, "add", "locked/new")
	// A file where the log's folder belongs: the log cannot be written.
	write(t, dir, ".git/guard", "not a folder\n")
	head := w.git(dir, "rev-parse", "HEAD")
	r := w.gitCode(dir, []string{"GUARD_BYPASS=urgent"}, "commit", "-m", "bypass without a log")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "GUARD_BYPASS is set but the bypass cannot be recorded")
	assert.Contains(t, r.stderr, "refusing (fail closed)")
	assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"))
}

func TestInternalErrorFailsClosed(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.repo()
	r := w.run(dir, "garbage\n", nil, guardBin, "hook", "pre-push", "origin", "url")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "cannot check this push")
	assert.Contains(t, r.stderr, "refusing this push (fail closed)")
	assert.Contains(t, r.stderr, `GUARD_BYPASS="<reason>" git push`)

	r = w.run(dir, "garbage\n", []string{"GUARD_BYPASS=the hook is broken, shipping anyway"}, guardBin, "hook", "pre-push", "origin", "url")
	assert.Equal(t, 0, r.code, r.stderr)
	data, err := os.ReadFile(filepath.Join(dir, ".git", "guard", "bypass.log"))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"error":"pre-push input line 1: want`)
	assert.Contains(t, string(data), `"refused":false`)

	notRepo := t.TempDir()
	r = w.run(notRepo, "", nil, guardBin, "hook", "pre-commit")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "is not in a git repository")

	write(t, dir, ".guard.toml", "owner = [broken\n")
	r = w.run(dir, "", nil, guardBin, "hook", "pre-commit")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, ".guard.toml:1")
}

func TestDoctor(t *testing.T) {
	t.Run("a repository without hooks is a problem", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		r := w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stdout, "pre-commit: missing")
		assert.Contains(t, r.stdout, "problem: pre-push hook is not installed (run `guard install`)")
	})
	t.Run("an installed repository without stale locks is healthy", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		r := w.guard(dir, "doctor")
		assert.Equal(t, 0, r.code, r.stdout)
		assert.Contains(t, r.stdout, "pre-commit: installed (guard "+guardBin+")")
		assert.Contains(t, r.stdout, "\nhealthy\n")
	})
	t.Run("an installed hook that is not executable is a problem: git does not run it", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
		require.NoError(t, os.Chmod(hook, 0o644))
		r := w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code, r.stdout)
		assert.Contains(t, r.stdout, "problem: pre-commit hook "+hook+" is not executable, so git does not run it (run `guard install`)")
	})
	t.Run("an expired lock is reported as stale", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		p := filepath.Join(dir, "locked", "LOCK.txt")
		write(t, dir, "locked/LOCK.txt", "owner: bob\ncreated: 2020-01-01T00:00:00\nexpires_after: 1h\n")
		r := w.guard(dir, "doctor", "--json")
		assert.Equal(t, 1, r.code)
		var rep struct {
			Healthy      bool `json:"healthy"`
			Repositories []struct {
				StaleLocks []map[string]any `json:"stale_locks"`
			} `json:"repositories"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
		assert.False(t, rep.Healthy)
		require.Len(t, rep.Repositories[0].StaleLocks, 1)
		assert.Equal(t, p, rep.Repositories[0].StaleLocks[0]["path"])
	})
	t.Run("a broken .guard.toml is a problem that names the line", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		write(t, dir, ".guard.toml", "owner = \"a\"\nscopes = [\n")
		r := w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stdout, "config: error: "+filepath.Join(dir, ".guard.toml")+":")
	})
	t.Run("roots name the repositories to examine, the current one only without them", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		current := w.repo()
		w.install(current)
		parent := t.TempDir()
		for _, name := range []string{"one", "two"} {
			dir := filepath.Join(parent, "group", name)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			w.git(dir, "init", "-q")
			w.guard(dir, "install")
		}
		r := w.guard(current, "doctor", "--json", parent)
		assert.Equal(t, 0, r.code, r.stdout)
		var rep struct {
			Healthy      bool `json:"healthy"`
			Repositories []struct {
				Path string `json:"path"`
			} `json:"repositories"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
		require.Len(t, rep.Repositories, 2, "doctor DIR examines DIR, not also the current repository")
		assert.Equal(t, filepath.Join(parent, "group", "one"), rep.Repositories[0].Path)
		assert.Equal(t, filepath.Join(parent, "group", "two"), rep.Repositories[1].Path)

		r = w.guard(t.TempDir(), "doctor")
		assert.Equal(t, 2, r.code)
		assert.Contains(t, r.stdout, "no git repository here or below")
	})
	t.Run("a hook another tool wrote is foreign", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-push"), []byte("#!/bin/sh\n"), 0o755))
		r := w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stdout, "pre-push: foreign")
	})
}
