package gitrun

import (
	"context"
	"os"
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
	g := Git{Dir: dir, Env: gitEnv(t)}
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
	env := append(gitEnv(t), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	_, err := OpenRepo(context.Background(), Git{Dir: dir, Env: env})
	require.EqualError(t, err, dir+" is not in a git repository")
}

// A receiving hook reads the pushed objects from git's quarantine: git names it in
// GIT_OBJECT_DIRECTORY (with the repository's own objects as an alternate, and
// GIT_QUARANTINE_PATH), and every git process guard starts there must see it.
func TestEnvironHandsTheQuarantineOnToGit(t *testing.T) {
	ctx := context.Background()
	bare := filepath.Join(t.TempDir(), "r.git")
	plain := func(string) string { return "" }
	_, err := New(filepath.Dir(bare), plain).Run(ctx, "init", "-q", "--bare", bare)
	require.NoError(t, err)
	quarantine := filepath.Join(bare, "objects", "incoming-test")
	require.NoError(t, os.MkdirAll(filepath.Join(quarantine, "pack"), 0o755))
	vars := map[string]string{
		"GIT_DIR":                          ".",
		"GIT_OBJECT_DIRECTORY":             quarantine,
		"GIT_ALTERNATE_OBJECT_DIRECTORIES": filepath.Join(bare, "objects"),
		"GIT_QUARANTINE_PATH":              quarantine,
	}
	hook := New(bare, func(k string) string { return vars[k] })
	oid, err := hook.RunInput(ctx, []byte("pushed\n"), "hash-object", "-w", "--stdin")
	require.NoError(t, err)
	id := string(oid[:len(oid)-1])
	_, err = hook.Run(ctx, "cat-file", "-e", id)
	require.NoError(t, err, "the hook's git sees the quarantined object")
	_, err = New(bare, plain).Run(ctx, "cat-file", "-e", id)
	require.Error(t, err, "outside the quarantine the object does not exist yet")
}
