package gitrun

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGoneFilesAreWhatEveryParentHoldsAndTheChangeTakesAway(t *testing.T) {
	g := newRepo(t)
	writeFile(t, g.Dir, "src/LOCK.txt", "owner: alice\n")
	writeFile(t, g.Dir, "kept/LOCK.txt", "owner: carol\n")
	writeFile(t, g.Dir, "big/LOCK.txt", strings.Repeat("x", 100)+"\n")
	writeFile(t, g.Dir, "side/LOCK.txt", "owner: dave\n")
	mustGit(t, g, "add", "-A")
	mustGit(t, g, "commit", "-q", "-m", "base")
	base := mustGit(t, g, "rev-parse", "HEAD")
	mustGit(t, g, "rm", "-q", "src/LOCK.txt", "big/LOCK.txt", "side/LOCK.txt")
	mustGit(t, g, "commit", "-q", "-m", "gone")
	head := mustGit(t, g, "rev-parse", "HEAD")
	ctx := context.Background()
	ask := []string{"big/LOCK.txt", "kept/LOCK.txt", "never/LOCK.txt", "side/LOCK.txt", "src/LOCK.txt"}

	files, err := GoneFiles(ctx, g, []string{base}, head, ask, 64)
	require.NoError(t, err)
	assert.Equal(t, []TreeFile{
		{Path: "big/LOCK.txt", Large: true},
		{Path: "side/LOCK.txt", Data: []byte("owner: dave\n")},
		{Path: "src/LOCK.txt", Data: []byte("owner: alice\n")},
	}, files, "kept is still in head, never was in neither; big is over the bound")

	// A merge: a file one parent no longer holds was not taken away by the merge.
	mustGit(t, g, "checkout", "-q", "-b", "other", base)
	mustGit(t, g, "rm", "-q", "side/LOCK.txt")
	mustGit(t, g, "commit", "-q", "-m", "side gone on the other branch too")
	other := mustGit(t, g, "rev-parse", "HEAD")
	files, err = GoneFiles(ctx, g, []string{base, other}, head, ask, 64)
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, f.Path)
	}
	assert.Equal(t, []string{"big/LOCK.txt", "src/LOCK.txt"}, names)

	// after "": the caller knows they are gone.
	files, err = GoneFiles(ctx, g, []string{base}, "", []string{"kept/LOCK.txt"}, 64)
	require.NoError(t, err)
	assert.Equal(t, []TreeFile{{Path: "kept/LOCK.txt", Data: []byte("owner: carol\n")}}, files)

	files, err = GoneFiles(ctx, g, nil, head, ask, 64)
	require.NoError(t, err)
	assert.Empty(t, files, "no commit before: nothing is taken away")
	_, err = GoneFiles(ctx, g, []string{base}, head, []string{"a\nb/LOCK.txt"}, 64)
	assert.ErrorContains(t, err, "line break")
}
