package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
}

// Claims in the same folder of two working trees read each other's locks, so they
// must share one creation mutex; elsewhere each directory has its own.
func TestCreationMutexDir(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	plain := filepath.Join(base, "plain")
	main := filepath.Join(base, "main")
	for _, d := range []string{plain, main, filepath.Join(main, "src")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	assert.Equal(t, plain, creationMutexDir(plain), "outside a repository: the directory itself")

	gitIn(t, main, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(main, "src", "f"), []byte("x"), 0o644))
	gitIn(t, main, "add", ".")
	gitIn(t, main, "commit", "-q", "-m", "c")
	src := filepath.Join(main, "src")
	assert.Equal(t, src, creationMutexDir(src), "a repository without linked worktrees: the directory itself")

	wt := filepath.Join(base, "wt")
	gitIn(t, main, "worktree", "add", "-q", wt)
	shared := creationMutexDir(src)
	assert.Equal(t, main, shared, "with a linked worktree: the smallest working-tree root")
	assert.Equal(t, shared, creationMutexDir(filepath.Join(wt, "src")))
	assert.Equal(t, shared, creationMutexDir(wt))
}
