package gitrun

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEnvironPassesOnlyTheAllowlistAndTurnsOptionalLocksOff(t *testing.T) {
	vars := map[string]string{
		"PATH":               "/bin",
		"GIT_INDEX_FILE":     "/r/.git/index.lock",
		"GITHUB_TOKEN":       "secret",
		"GIT_CONFIG_COUNT":   "1",
		"GIT_CONFIG_KEY_0":   "core.quotePath",
		"GIT_CONFIG_VALUE_0": "false",
	}
	got := Environ(func(k string) string { return vars[k] })
	require.Equal(t, []string{
		"PATH=/bin",
		"GIT_INDEX_FILE=/r/.git/index.lock",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.quotePath", "GIT_CONFIG_VALUE_0=false",
		"GIT_OPTIONAL_LOCKS=0",
	}, got)
}

func TestEnvironKeepsTheCallersOptionalLocks(t *testing.T) {
	got := Environ(func(k string) string {
		if k == "GIT_OPTIONAL_LOCKS" {
			return "1"
		}
		return ""
	})
	require.Equal(t, []string{"GIT_OPTIONAL_LOCKS=1"}, got)
}

func TestOpenRepoFindsTheSharedPartsFromALinkedWorktree(t *testing.T) {
	ctx := context.Background()
	g := newRepo(t)
	writeFile(t, g.Dir, "a", "1")
	commitAll(t, g, "first")
	linked := filepath.Join(t.TempDir(), "linked")
	mustGit(t, g, "worktree", "add", "-q", linked)
	main, err := OpenRepo(ctx, g)
	require.NoError(t, err)
	r, err := OpenRepo(ctx, Git{Dir: filepath.Join(linked), Env: g.Env})
	require.NoError(t, err)
	realLinked, err := filepath.EvalSymlinks(linked)
	require.NoError(t, err)
	require.Equal(t, realLinked, r.Top)
	require.Equal(t, main.CommonDir, r.CommonDir)
	require.NotEqual(t, main.GitDir, r.GitDir)
	require.Equal(t, main.Hooks, r.Hooks)
	require.Equal(t, filepath.Join(main.CommonDir, "guard", "bypass.log"), r.BypassLogPath())
}

func TestOpenRepoAnswersInABareRepository(t *testing.T) {
	dir := t.TempDir()
	g := Git{Dir: dir, Env: gitEnv()}
	mustGit(t, g, "init", "-q", "--bare")
	r, err := OpenRepo(context.Background(), g)
	require.NoError(t, err)
	require.Equal(t, "", r.Top)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	require.Equal(t, real, r.CommonDir)
	require.Equal(t, filepath.Join(real, "hooks"), r.Hooks)
}

func TestOpenRepoOutsideARepositorySaysSo(t *testing.T) {
	dir := t.TempDir()
	env := append(gitEnv(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	_, err := OpenRepo(context.Background(), Git{Dir: dir, Env: env})
	require.EqualError(t, err, dir+" is not in a git repository")
}
