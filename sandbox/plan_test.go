//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planTree makes files below a fresh real (link-free) temp dir: a key ending in "/"
// is a folder.
func planTree(t *testing.T, entries ...string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for _, e := range entries {
		p := filepath.Join(root, filepath.FromSlash(e))
		if strings.HasSuffix(e, "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
	}
	return root
}

// under lists the paths of list that lie below root, relative to it.
func under(root string, list []string) []string {
	out := []string{}
	for _, p := range list {
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

func TestPlanGrantsEverySiblingOnTheWayDown(t *testing.T) {
	root := planTree(t, "a/locked/x.txt", "a/free/y.txt", "a/file.txt", "b/z.txt", "top.txt")
	require.NoError(t, os.Symlink(filepath.Join(root, "a", "locked"), filepath.Join(root, "a", "link")))
	plan, err := NewPlan([]string{filepath.Join(root, "a", "locked")}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"a/free", "b"}, under(root, plan.Writable))
	assert.Equal(t, []string{"a/file.txt", "top.txt"}, under(root, plan.WritableFiles), "a link gets no rule: its target has its own")
	assert.Equal(t, []string{".", "a"}, under(root, plan.Boundary))
	assert.Equal(t, []string{"a/locked"}, under(root, plan.ReadOnly))
	// Every folder above the tree is a boundary too, and their other entries keep
	// their rights: / holds the tree, so its other folders are writable.
	assert.Contains(t, plan.Boundary, "/")
	assert.Contains(t, plan.Writable, "/proc")
}

func TestPlanWithoutReadOnlyPathsGrantsEverything(t *testing.T) {
	plan, err := NewPlan(nil, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"/"}, plan.Writable)
	assert.Empty(t, plan.Boundary)
}

func TestPlanOfAPathThatDoesNotExistYetMakesItsFolderABoundary(t *testing.T) {
	root := planTree(t, "a/other/")
	plan, err := NewPlan([]string{filepath.Join(root, "a", "api", "v2")}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{".", "a"}, under(root, plan.Boundary), "nothing can be created in a: api would be the way to the locked path")
	assert.Equal(t, []string{"a/other"}, under(root, plan.Writable))
}

func TestPlanKeepsOnlyTheOutermostReadOnlyPath(t *testing.T) {
	root := planTree(t, "a/b/c/", "a/d/")
	plan, err := NewPlan([]string{filepath.Join(root, "a", "b", "c"), filepath.Join(root, "a")}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, under(root, plan.ReadOnly))
	assert.Empty(t, under(root, plan.Writable))
}

func TestPlanProtectsALinkAndWhatItLeadsTo(t *testing.T) {
	root := planTree(t, "real/PRIVATE.txt", "proj/x.txt", "proj/sub/")
	require.NoError(t, os.Symlink(filepath.Join(root, "real", "PRIVATE.txt"), filepath.Join(root, "proj", "PRIVATE.txt")))
	plan, err := NewPlan([]string{filepath.Join(root, "proj", "PRIVATE.txt")}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"proj/PRIVATE.txt", "real/PRIVATE.txt"}, under(root, plan.ReadOnly))
	assert.Equal(t, []string{".", "proj", "real"}, under(root, plan.Boundary))
}

func TestPlanAllowExemptsDeliberately(t *testing.T) {
	root := planTree(t, "locked/keep/x.txt", "locked/y.txt", "other/locked2/", "other/z.txt")
	ro := []string{filepath.Join(root, "locked"), filepath.Join(root, "other", "locked2")}
	plan, err := NewPlan(ro, []string{filepath.Join(root, "locked", "keep"), filepath.Join(root, "other")})
	require.NoError(t, err)
	assert.Equal(t, []string{"locked"}, under(root, plan.ReadOnly), "a read-only path inside an allowed one is dropped")
	assert.Equal(t, []string{"locked/keep", "other"}, under(root, plan.Writable))
	_, err = NewPlan(ro, []string{filepath.Join(root, "locked", "missing")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "it lies in a read-only area and must exist to be exempted")
	_, err = NewPlan(ro, []string{"relative"})
	require.Error(t, err)
}
