package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
