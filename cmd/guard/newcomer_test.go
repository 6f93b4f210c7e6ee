package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

// What a newcomer meets first says plainly what is wrong (issue 13, item 8).
func TestNewcomerMessages(t *testing.T) {
	outside := t.TempDir()
	ceiling := []string{"GIT_CEILING_DIRECTORIES=" + filepath.Dir(outside)}
	for _, args := range [][]string{{"install"}, {"uninstall"}, {"ci"}} {
		_, stderr, code := runGuard(t, outside, ceiling, args...)
		assert.Equal(t, 2, code, args)
		assert.Equal(t, "guard: "+args[0]+": "+outside+" is not in a git repository\n", stderr, "no git command line in the message")
	}

	_, stderr, code := runGuard(t, outside, nil, "scan", filepath.Join(outside, "nope"))
	assert.Equal(t, 2, code)
	assert.Equal(t, "guard: ROOT "+filepath.Join(outside, "nope")+": no such directory\n", stderr)
	_, _, code = runGuard(t, outside, nil, "prune", filepath.Join(outside, "nope"))
	assert.Equal(t, 2, code, "prune of a mistyped ROOT is not a silent success")

	repo := filepath.Join(t.TempDir(), "repo")
	guardtest.InitRepo(t, repo)
	out, _, code := runGuard(t, repo, nil, "uninstall")
	assert.Equal(t, 0, code)
	assert.Equal(t, "nothing to uninstall: no guard hook in "+filepath.Join(repo, ".git", "hooks")+"\n", out)
	_, _, code = runGuard(t, repo, nil, "install", "--hooks", "pre-commit")
	require.Equal(t, 0, code)
	out, _, code = runGuard(t, repo, nil, "install", "--hooks", "pre-commit")
	assert.Equal(t, 0, code)
	assert.Equal(t, "unchanged "+filepath.Join(repo, ".git", "hooks", "pre-commit")+"\n", out)

	// doctor DIR examines DIR, not also the repository it is run from.
	other := filepath.Join(t.TempDir(), "other")
	guardtest.InitRepo(t, other)
	out, _, _ = runGuard(t, repo, nil, "doctor", other)
	assert.Contains(t, out, "repository "+other)
	assert.NotContains(t, out, "repository "+repo)
	_, err := os.Stat(filepath.Join(other, ".git"))
	require.NoError(t, err)
}

// Committing a lock file is allowed (it may be meant) but pre-commit says what it does:
// a committed lock binds every clone and guard ci.
func TestPreCommitWarnsWhenALockFileIsStaged(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	git := func(args ...string) (string, int) {
		t.Helper()
		return guardtest.GitCode(t, repo, []string{"GUARD_OWNER=alice"}, args...)
	}
	guardtest.InitRepo(t, repo)
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "src"), 0o755))
	_, stderr, code := runGuard(t, repo, nil, "install", "--hooks", "pre-commit")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.WriteFile(filepath.Join(repo, "src", "LOCK.txt"), []byte("owner: alice\nexpires_after: 1h\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "src", "a.go"), []byte("package a\n"), 0o644))
	out, gitCode := git("add", "-A")
	require.Equal(t, 0, gitCode, out)
	out, gitCode = git("commit", "-q", "-m", "with a lock")
	require.Equal(t, 0, gitCode, out)
	lock := filepath.Join(repo, "src", "LOCK.txt")
	assert.Contains(t, out, "guard: warning: committing the lock file "+lock+": every clone and guard ci will see it as held; if it is meant to stay local, unstage it (git rm --cached -- \"src/LOCK.txt\") and add LOCK*.txt to .git/info/exclude")

	require.NoError(t, os.WriteFile(filepath.Join(repo, "src", "a.go"), []byte("package a // 2\n"), 0o644))
	_, _ = git("add", "-A")
	out, gitCode = git("commit", "-q", "-m", "no new lock")
	require.Equal(t, 0, gitCode, out)
	assert.NotContains(t, out, "committing the lock file", "only a lock file being added is worth a word")
}
