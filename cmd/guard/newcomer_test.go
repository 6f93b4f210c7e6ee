package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
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
	require.NoError(t, exec.Command("git", "init", "-q", repo).Run())
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
	require.NoError(t, exec.Command("git", "init", "-q", other).Run())
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
	home := t.TempDir()
	env := []string{"PATH=" + testenv.Path(), "HOME=" + home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@example.com",
		"GUARD_OWNER=alice"}
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "src"), 0o755))
	_, err := git("init", "-q")
	require.NoError(t, err)
	_, stderr, code := runGuard(t, repo, nil, "install", "--hooks", "pre-commit")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.WriteFile(filepath.Join(repo, "src", "LOCK.txt"), []byte("owner: alice\nexpires_after: 1h\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "src", "a.go"), []byte("package a\n"), 0o644))
	_, err = git("add", "-A")
	require.NoError(t, err)
	out, err := git("commit", "-q", "-m", "with a lock")
	require.NoError(t, err, out)
	lock := filepath.Join(repo, "src", "LOCK.txt")
	assert.Contains(t, out, "guard: warning: committing the lock file "+lock+": every clone and guard ci will see it as held; if it is meant to stay local, unstage it (git rm --cached -- \"src/LOCK.txt\") and add LOCK*.txt to .git/info/exclude")

	require.NoError(t, os.WriteFile(filepath.Join(repo, "src", "a.go"), []byte("package a // 2\n"), 0o644))
	_, _ = git("add", "-A")
	out, err = git("commit", "-q", "-m", "no new lock")
	require.NoError(t, err, out)
	assert.NotContains(t, out, "committing the lock file", "only a lock file being added is worth a word")
}
