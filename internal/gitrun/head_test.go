package gitrun

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeadUnborn(t *testing.T) {
	commit := func(t *testing.T, g Git) {
		require.NoError(t, os.WriteFile(filepath.Join(g.Dir, "f"), []byte("x\n"), 0o644))
		mustGit(t, g, "add", "f")
		mustGit(t, g, "commit", "-q", "-m", "c")
	}
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, g Git) Git
		unborn bool
	}{
		{"a new repository", func(t *testing.T, g Git) Git { return g }, true},
		{"a branch with a commit (a loose ref)", func(t *testing.T, g Git) Git { commit(t, g); return g }, false},
		{"a packed branch: git is asked, not taken for unborn", func(t *testing.T, g Git) Git {
			commit(t, g)
			mustGit(t, g, "pack-refs", "--all")
			_, err := os.Stat(filepath.Join(g.Dir, ".git", "refs", "heads", "main"))
			require.ErrorIs(t, err, os.ErrNotExist)
			return g
		}, false},
		{"a detached HEAD", func(t *testing.T, g Git) Git { commit(t, g); mustGit(t, g, "checkout", "-q", "--detach"); return g }, false},
		{"an orphan branch after commits", func(t *testing.T, g Git) Git {
			commit(t, g)
			mustGit(t, g, "checkout", "-q", "--orphan", "fresh")
			return g
		}, true},
		{"GIT_DIR from another folder", func(t *testing.T, g Git) Git {
			commit(t, g)
			return Git{Dir: t.TempDir(), Env: append(gitEnv(t), "GIT_DIR="+filepath.Join(g.Dir, ".git"))}
		}, false},
		{"GIT_DIR of an unborn repository from another folder", func(t *testing.T, g Git) Git {
			return Git{Dir: t.TempDir(), Env: append(gitEnv(t), "GIT_DIR="+filepath.Join(g.Dir, ".git"))}
		}, true},
		{"a linked worktree of a packed branch", func(t *testing.T, g Git) Git {
			commit(t, g)
			wt := filepath.Join(t.TempDir(), "wt")
			mustGit(t, g, "worktree", "add", "-q", "-b", "side", wt)
			mustGit(t, g, "pack-refs", "--all")
			return Git{Dir: wt, Env: gitEnv(t)}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.setup(t, newRepo(t))
			got, err := HeadUnborn(context.Background(), g)
			require.NoError(t, err)
			assert.Equal(t, tc.unborn, got)
		})
	}

	t.Run("outside a repository it is an error, not an answer", func(t *testing.T) {
		_, err := HeadUnborn(context.Background(), Git{Dir: t.TempDir(), Env: append(gitEnv(t), "GIT_CEILING_DIRECTORIES="+os.TempDir())})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "not a git repository")
	})
}
