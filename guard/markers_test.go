package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

func TestParsePublicSeparatesChecksChoresAndNotes(t *testing.T) {
	checks, chores, notes := ParsePublic("# approved\napproved_by: carol\nCheck: test -f LICENSE\ncheck:   npm test  \nchore: git tag -f published\nno colon here\n\ncheck:\nchore: echo done: really\n")
	assert.Equal(t, []string{"test -f LICENSE", "npm test"}, checks)
	assert.Equal(t, []string{"git tag -f published", "echo done: really"}, chores)
	assert.Equal(t, []string{"approved_by: carol"}, notes)
}

func TestFindMarkers(t *testing.T) {
	cases := []struct {
		name          string
		files         map[string]string
		dir           string
		state         string
		privatePaths  []string
		publicPaths   []string
		readErrMarker string
	}{
		{name: "no marker anywhere is none", files: map[string]string{"pkg/x": ""}, dir: "pkg", state: "none"},
		{name: "a PRIVATE.txt in the project makes it private", files: map[string]string{"pkg/PRIVATE.txt": "until launch\n"}, dir: "pkg", state: "private", privatePaths: []string{"pkg/PRIVATE.txt"}},
		{name: "a PRIVATE.txt two folders up makes it private", files: map[string]string{"PRIVATE.txt": "", "a/b/x": ""}, dir: "a/b", state: "private", privatePaths: []string{"PRIVATE.txt"}},
		{name: "a PUBLIC.txt in the project makes it public", files: map[string]string{"pkg/PUBLIC.txt": "check: true\n"}, dir: "pkg", state: "public", publicPaths: []string{"pkg/PUBLIC.txt"}},
		{name: "PUBLIC.txt below PRIVATE.txt is both", files: map[string]string{"PRIVATE.txt": "", "pkg/PUBLIC.txt": ""}, dir: "pkg", state: "both", privatePaths: []string{"PRIVATE.txt"}, publicPaths: []string{"pkg/PUBLIC.txt"}},
		{name: "markers in a sibling folder do not count", files: map[string]string{"other/PRIVATE.txt": "", "pkg/x": ""}, dir: "pkg", state: "none"},
		{name: "a differently cased name is not a marker", files: map[string]string{"pkg/private.txt": "", "pkg/Public.TXT": ""}, dir: "pkg", state: "none"},
		{name: "a directory that does not exist yet still sees the markers above", files: map[string]string{"PRIVATE.txt": ""}, dir: "not/yet", state: "private", privatePaths: []string{"PRIVATE.txt"}},
		{name: "nearest public marker comes first", files: map[string]string{"PUBLIC.txt": "", "pkg/PUBLIC.txt": ""}, dir: "pkg", state: "public", publicPaths: []string{"pkg/PUBLIC.txt", "PUBLIC.txt"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, c := range tc.files {
				write(t, filepath.Join(root, p), c)
			}
			ms := FindMarkers(filepath.Join(root, tc.dir))
			assert.Equal(t, tc.state, ms.State())
			var priv, pub []string
			for _, m := range ms.Private {
				priv = append(priv, strings.TrimPrefix(m.Path, root+"/"))
			}
			for _, m := range ms.Public {
				pub = append(pub, strings.TrimPrefix(m.Path, root+"/"))
			}
			assert.Equal(t, tc.privatePaths, priv)
			assert.Equal(t, tc.publicPaths, pub)
		})
	}
}

func TestFindMarkersFailsClosedOnOddFiles(t *testing.T) {
	t.Run("a directory named PRIVATE.txt is an unreadable private marker", func(t *testing.T) {
		root := t.TempDir()
		require.NoError(t, os.Mkdir(filepath.Join(root, "PRIVATE.txt"), 0o755))
		ms := FindMarkers(root)
		require.Len(t, ms.Private, 1)
		assert.ErrorContains(t, ms.Private[0].ReadErr, "not a regular file")
	})
	t.Run("a dangling symlink named PRIVATE.txt is a private marker", func(t *testing.T) {
		root := t.TempDir()
		require.NoError(t, os.Symlink(filepath.Join(root, "gone"), filepath.Join(root, "PRIVATE.txt")))
		ms := FindMarkers(root)
		require.Len(t, ms.Private, 1)
		assert.Error(t, ms.Private[0].ReadErr)
	})
	t.Run("a project reached through a symlink sees the markers above its real path", func(t *testing.T) {
		root := t.TempDir()
		write(t, filepath.Join(root, "internal", "PRIVATE.txt"), "internal code")
		write(t, filepath.Join(root, "internal", "pkg", "package.json"), "{}")
		write(t, filepath.Join(root, "public", "PUBLIC.txt"), "")
		require.NoError(t, os.Symlink(filepath.Join(root, "internal", "pkg"), filepath.Join(root, "public", "pkg")))
		ms := FindMarkers(filepath.Join(root, "public", "pkg"))
		assert.Equal(t, "both", ms.State())
		require.Len(t, ms.Private, 1)
		assert.Equal(t, filepath.Join(root, "internal", "PRIVATE.txt"), ms.Private[0].Path)
	})
	t.Run("a linked worktree sees the PRIVATE.txt of the main clone, and the other way round", func(t *testing.T) {
		root := t.TempDir()
		main := filepath.Join(root, "main")
		wt := filepath.Join(root, "wt")
		guardtest.InitRepo(t, main)
		guardtest.Commit(t, main, "x", map[string]string{"pkg/package.json": "{}"})
		guardtest.Git(t, main, "worktree", "add", "-q", wt)
		write(t, filepath.Join(main, "PRIVATE.txt"), "internal")
		ms := FindMarkers(filepath.Join(wt, "pkg"))
		require.Len(t, ms.Private, 1)
		assert.Equal(t, filepath.Join(main, "PRIVATE.txt"), ms.Private[0].Path)

		require.NoError(t, os.Remove(filepath.Join(main, "PRIVATE.txt")))
		write(t, filepath.Join(wt, "pkg", "PRIVATE.txt"), "internal")
		ms = FindMarkers(filepath.Join(main, "pkg"))
		require.Len(t, ms.Private, 1)
		assert.Equal(t, filepath.Join(wt, "pkg", "PRIVATE.txt"), ms.Private[0].Path)
	})
	t.Run("an oversized PUBLIC.txt is read only in part and flagged", func(t *testing.T) {
		root := t.TempDir()
		write(t, filepath.Join(root, "PUBLIC.txt"), strings.Repeat("note: x\n", MaxMarkerSize/8+10))
		ms := FindMarkers(root)
		require.Len(t, ms.Public, 1)
		assert.ErrorContains(t, ms.Public[0].ReadErr, "larger than")
		assert.Len(t, ms.Public[0].Content, MaxMarkerSize)
	})
}

func FuzzParsePublic(f *testing.F) {
	f.Add("check: npm test\nchore: echo hi\nnote: x\n")
	f.Add("# c\n\ncheck:\n:\nCHECK :x")
	f.Fuzz(func(t *testing.T, s string) {
		checks, chores, _ := ParsePublic(s)
		for _, c := range append(checks, chores...) {
			if c == "" || c != strings.TrimSpace(c) || strings.Contains(c, "\n") {
				t.Fatalf("bad command %q from %q", c, s)
			}
		}
	})
}
