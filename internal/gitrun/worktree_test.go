package gitrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommonDirOfALinkedWorktree(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "main")
	require.NoError(t, os.MkdirAll(main, 0o755))
	g := Git{Dir: main, Env: gitEnv(t)}
	mustGit(t, g, "init", "-q")
	mustGit(t, g, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
	mustGit(t, g, "worktree", "add", "-q", filepath.Join(dir, "wt"))
	want, err := filepath.EvalSymlinks(filepath.Join(main, ".git"))
	require.NoError(t, err)
	got, err := filepath.EvalSymlinks(CommonDir(filepath.Join(dir, "wt")))
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Equal(t, filepath.Join(main, ".git"), CommonDir(main))
	assert.Equal(t, "", CommonDir(dir))

	trees := WorkingTrees(filepath.Join(dir, "wt"))
	require.Len(t, trees, 2)
	assert.Equal(t, filepath.Join(dir, "wt"), trees[0])
	assert.Equal(t, main, RepoTop(filepath.Join(main, "a", "b")), "a path below the top, even one not yet made, is in the repository")
}
