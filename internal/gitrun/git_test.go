package gitrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

// gitEnv is guardtest's hermetic environment for test repositories, for the Git
// under test to run with.
func gitEnv(t testing.TB) []string { return guardtest.GitEnv(guardtest.Home(t)) }

// newRepo creates a repository with one configured identity in a temp dir.
func newRepo(t *testing.T) Git {
	t.Helper()
	dir := t.TempDir()
	g := Git{Dir: dir, Env: gitEnv(t)}
	mustGit(t, g, "init", "-q", "-b", "main")
	mustGit(t, g, "config", "user.name", "Test")
	mustGit(t, g, "config", "user.email", "test@example.com")
	return g
}

func mustGit(t *testing.T, g Git, args ...string) string {
	t.Helper()
	out, err := g.Run(context.Background(), args...)
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func commitAll(t *testing.T, g Git, msg string) string {
	t.Helper()
	mustGit(t, g, "add", "-A")
	mustGit(t, g, "commit", "-q", "-m", msg)
	return mustGit(t, g, "rev-parse", "HEAD")
}

func TestChangedPaths(t *testing.T) {
	ctx := context.Background()
	g := newRepo(t)
	writeFile(t, g.Dir, "d/a", "1")
	writeFile(t, g.Dir, "sp ace/ü.txt", "x")
	root := commitAll(t, g, "root")
	require.NoError(t, os.MkdirAll(filepath.Join(g.Dir, "e"), 0o755))
	mustGit(t, g, "mv", "d/a", "e/renamed")
	writeFile(t, g.Dir, "f/new", "2")
	second := commitAll(t, g, "rename")
	require.NoError(t, os.Remove(filepath.Join(g.Dir, "f/new")))
	third := commitAll(t, g, "delete")

	cases := []struct {
		name       string
		base, head string
		want       []string
	}{
		{"a root commit contributes its whole tree", "", root, []string{"d/a", "sp ace/ü.txt"}},
		{"a rename contributes both sides", root, second, []string{"d/a", "e/renamed", "f/new"}},
		{"a deletion contributes the deleted path", second, third, []string{"f/new"}},
		{"a range spans every commit in it", root, third, []string{"d/a", "e/renamed", "f/new"}},
		{"an empty range has no paths", third, third, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ChangedPaths(ctx, g, tc.base, tc.head)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestChangedPathsEvilMerge(t *testing.T) {
	ctx := context.Background()
	g := newRepo(t)
	writeFile(t, g.Dir, "a", "1")
	base := commitAll(t, g, "root")
	mustGit(t, g, "checkout", "-q", "-b", "side")
	writeFile(t, g.Dir, "b", "2")
	commitAll(t, g, "side")
	mustGit(t, g, "checkout", "-q", "main")
	writeFile(t, g.Dir, "c", "3")
	commitAll(t, g, "main")
	mustGit(t, g, "merge", "-q", "--no-commit", "side")
	writeFile(t, g.Dir, "locked/evil", "sneaked in by the merge")
	mustGit(t, g, "add", "-A")
	mustGit(t, g, "commit", "-q", "-m", "merge")
	got, err := ChangedPaths(ctx, g, base, "HEAD")
	require.NoError(t, err)
	require.Equal(t, []string{"b", "c", "locked/evil"}, got)
}

func TestGitErrorNamesCommandAndStderr(t *testing.T) {
	g := newRepo(t)
	_, err := g.Run(context.Background(), "rev-parse", "--verify", "nope^{commit}")
	require.Error(t, err)
	var ge *Error
	require.ErrorAs(t, err, &ge)
	require.Equal(t, 128, ge.Code)
	require.Contains(t, err.Error(), "git rev-parse --verify nope^{commit}:")
}

func FuzzSplitNames(f *testing.F) {
	f.Add([]byte("a\x00b\x00\na\x00"))
	f.Add([]byte(""))
	f.Add([]byte("\n\n\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := SplitNames(data)
		seen := map[string]bool{}
		for i, p := range got {
			require.NotEmpty(t, p)
			require.False(t, seen[p], "duplicate %q", p)
			seen[p] = true
			require.NotContains(t, p, "\x00")
			if i > 0 {
				require.Less(t, got[i-1], p)
			}
		}
	})
}
