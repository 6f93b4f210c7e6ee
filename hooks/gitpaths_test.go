package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// featureIntoLocked makes a branch "feature" off main whose commit (made without
// hooks) changes locked/tracked, then locks locked/ for bob and returns to main.
func (w *world) featureIntoLocked(dir string) {
	w.t.Helper()
	w.git(dir, "checkout", "-q", "-b", "feature")
	write(w.t, dir, "locked/tracked", "feature\n")
	w.git(dir, "add", "locked/tracked")
	w.commitNoVerify(dir, "feature touches locked")
	w.git(dir, "checkout", "-q", "main")
	write(w.t, dir, "free/main", "main\n")
	w.git(dir, "add", "free/main")
	w.commitNoVerify(dir, "main moves on")
	lock(w.t, dir, "locked/LOCK.txt", "")
}

func TestPreMergeCommit(t *testing.T) {
	t.Run("a merge that brings changes into a locked folder is refused and records nothing", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		w.featureIntoLocked(dir)
		head := w.git(dir, "rev-parse", "HEAD")

		r := w.gitCode(dir, nil, "merge", "--no-ff", "-m", "merge feature", "feature")

		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "held by bob")
		assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, "locked", "tracked"))
		assert.Contains(t, r.stderr, `GUARD_BYPASS="<reason>" git merge`)
		assert.Equal(t, head, w.git(dir, "rev-parse", "HEAD"), "no merge commit")
	})

	t.Run("a merge of free changes goes through, and GUARD_BYPASS lets a refused one through with a record", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.install(dir)
		lock(t, dir, "locked/LOCK.txt", "")
		w.git(dir, "checkout", "-q", "-b", "free")
		write(t, dir, "free/f", "x\n")
		w.git(dir, "add", "free/f")
		w.commitNoVerify(dir, "free work")
		w.git(dir, "checkout", "-q", "main")
		r := w.gitCode(dir, nil, "merge", "-q", "--no-ff", "-m", "merge free", "free")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, "merge free", w.git(dir, "log", "-1", "--format=%s"))

		w.git(dir, "checkout", "-q", "-b", "feature")
		write(t, dir, "locked/tracked", "feature\n")
		w.git(dir, "add", "locked/tracked")
		w.commitNoVerify(dir, "feature touches locked")
		w.git(dir, "checkout", "-q", "main")
		r = w.gitCode(dir, []string{"GUARD_BYPASS=agreed with bob"}, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
		require.Equal(t, 0, r.code, r.stderr)
		log, err := os.ReadFile(filepath.Join(dir, ".git", "guard", "bypass.log"))
		require.NoError(t, err)
		assert.Contains(t, string(log), `"hook":"pre-merge-commit"`)
		assert.Contains(t, string(log), `"reason":"agreed with bob"`)
	})

	t.Run("a pre-merge-commit hook that was there is kept, chained, and restored by uninstall", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		hook := filepath.Join(dir, ".git", "hooks", "pre-merge-commit")
		mine := "#!/bin/sh\necho ran >> \"$(git rev-parse --git-dir)/mine-ran\"\n"
		require.NoError(t, os.WriteFile(hook, []byte(mine), 0o755))
		r := w.guard(dir, "install")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "installed "+hook+" (kept the existing hook as pre-merge-commit.pre-guard")

		w.git(dir, "checkout", "-q", "-b", "free")
		write(t, dir, "free/f", "x\n")
		w.git(dir, "add", "free/f")
		w.commitNoVerify(dir, "free work")
		w.git(dir, "checkout", "-q", "main")
		r = w.gitCode(dir, nil, "merge", "-q", "--no-ff", "-m", "merge free", "free")
		require.Equal(t, 0, r.code, r.stderr)
		ran, err := os.ReadFile(filepath.Join(dir, ".git", "mine-ran"))
		require.NoError(t, err, "the kept hook ran after guard's check")
		assert.Equal(t, "ran\n", string(ran))

		r = w.guard(dir, "doctor")
		assert.Contains(t, r.stdout, "pre-merge-commit: installed")

		r = w.guard(dir, "uninstall")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "restored "+hook)
		data, err := os.ReadFile(hook)
		require.NoError(t, err)
		assert.Equal(t, mine, string(data))
	})

	t.Run("doctor reports a missing pre-merge-commit hook", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		r := w.guard(dir, "install", "--hooks", "pre-commit,pre-push")
		require.Equal(t, 0, r.code, r.stderr)
		r = w.guard(dir, "doctor")
		assert.Equal(t, 1, r.code)
		assert.Contains(t, r.stdout, "problem: pre-merge-commit hook is not installed (run `guard install`)")
	})
}

func TestPrePushReadsPathsExactly(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.repo()
	bare := w.remote(dir)
	w.install(dir)
	before := w.remoteRef(bare, "refs/heads/main")
	// A folder whose name starts with a newline, holding a lock: the same name
	// without the newline is another (free) folder.
	nl := "\nlocked"
	write(t, dir, nl+"/f", "x\n")
	w.git(dir, "add", "--", nl+"/f")
	w.commitNoVerify(dir, "into the newline folder")
	lock(t, dir, nl+"/LOCK.txt", "")

	r := w.gitCode(dir, nil, "push", "origin", "main")

	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "blocked: "+filepath.Join(dir, nl, "f"))
	assert.Equal(t, before, w.remoteRef(bare, "refs/heads/main"))
}

func TestPrePushRefusesAMissingLocalObject(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.repo()
	w.remote(dir)
	head := w.git(dir, "rev-parse", "HEAD")
	missing := strings.Repeat("ab", 20)
	stdin := "refs/heads/x " + missing + " refs/heads/x " + head + "\n"

	r := w.run(dir, stdin, nil, guardBin, "hook", "pre-push", "origin", "url")

	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "refs/heads/x -> refs/heads/x: the pushed object "+missing+" does not exist in this repository")
	assert.Contains(t, r.stderr, "refusing this push (fail closed)")

	// A new ref naming a missing object, after a good one, is refused as well.
	stdin = "refs/heads/main " + head + " refs/heads/main " + head + "\nrefs/heads/y " + missing + " refs/heads/y " + strings.Repeat("0", 40) + "\n"
	r = w.run(dir, stdin, nil, guardBin, "hook", "pre-push", "origin", "url")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "the pushed object "+missing+" does not exist")
}

func TestPrePushRefusesCommittedMarkers(t *testing.T) {
	t.Run("a --no-verify commit adding PRIVATE.txt is refused by pre-push as by ci", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		bare := w.remote(dir)
		w.install(dir)
		before := w.remoteRef(bare, "refs/heads/main")
		write(t, dir, "sub/PRIVATE.txt", "internal\n")
		w.git(dir, "add", "-f", "sub/PRIVATE.txt")
		w.commitNoVerify(dir, "oops")

		r := w.gitCode(dir, nil, "push", "origin", "main")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "push of refs/heads/main -> refs/heads/main refused")
		assert.Contains(t, r.stderr, "sub/PRIVATE.txt is committed: publication markers must never be committed")
		assert.Equal(t, before, w.remoteRef(bare, "refs/heads/main"))

		ci := w.run(dir, "", nil, guardBin, "ci", "--base", before)
		assert.Equal(t, 1, ci.code, ci.stderr)
		assert.Contains(t, ci.stderr, "sub/PRIVATE.txt is committed: publication markers must never be committed")
	})

	t.Run("a marker added and removed again within the push is still in its history", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		w.remote(dir)
		w.install(dir)
		write(t, dir, "public.TXT", "x\n")
		w.git(dir, "add", "-f", "public.TXT")
		w.commitNoVerify(dir, "add")
		w.git(dir, "rm", "-q", "--cached", "public.TXT")
		w.commitNoVerify(dir, "remove")
		r := w.gitCode(dir, nil, "push", "origin", "main")
		assert.Equal(t, 1, r.code, r.stderr)
		assert.Contains(t, r.stderr, "public.TXT was committed in this range (and removed again later)")
	})

	t.Run("a push that removes a marker committed earlier goes through", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t)
		dir := w.repo()
		write(t, dir, "PRIVATE.txt", "x\n")
		w.git(dir, "add", "-f", "PRIVATE.txt")
		w.commitNoVerify(dir, "before guard")
		bare := w.remote(dir)
		w.install(dir)
		write(t, dir, "free/n", "x\n")
		w.git(dir, "add", "free/n")
		w.commitNoVerify(dir, "more")
		r := w.gitCode(dir, nil, "push", "origin", "main")
		assert.Equal(t, 1, r.code, "the pushed tree still holds the marker: %s", r.stderr)
		assert.Contains(t, r.stderr, "PRIVATE.txt is committed")

		w.git(dir, "rm", "-q", "--cached", "PRIVATE.txt")
		r = w.gitCode(dir, nil, "commit", "-q", "-m", "remove the marker")
		require.Equal(t, 0, r.code, r.stderr)
		r = w.gitCode(dir, nil, "push", "-q", "origin", "main")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, w.git(dir, "rev-parse", "HEAD"), w.remoteRef(bare, "refs/heads/main"))
	})
}
