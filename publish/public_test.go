package publish

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPublishWithAnUnreadableChoreRecordRunsNoChore(t *testing.T) {
	w := newWorld(t)
	w.write("PUBLIC.txt", "chore: echo chore >> \"$RECORD\"\n")
	w.write(".PUBLIC.txt.chores.json", "{not json")
	assert.Equal(t, 1, w.publish(PublishOptions{}, "npm", "publish"))
	assert.Equal(t, []string{"npm publish"}, w.ran(), "guessing could run a chore twice: none runs")
	assert.Contains(t, w.stderr.String(), "reading the record of done chores: "+filepath.Join(w.root, ".PUBLIC.txt.chores.json"))
}

func TestPublishChoresOfAPublicTxtAboveRunInItsFolder(t *testing.T) {
	w := newWorld(t)
	parent := filepath.Dir(w.root)
	assert.NoError(t, os.WriteFile(filepath.Join(parent, "PUBLIC.txt"), []byte("check: echo check in $(basename \"$PWD\") >> \"$RECORD\"\nchore: echo chore in $(basename \"$PWD\") >> \"$RECORD\"\n"), 0o644))
	assert.Equal(t, 0, w.publish(PublishOptions{}, "npm", "publish"), w.stderr.String())
	assert.Equal(t, []string{"check in org", "npm publish", "chore in org"}, w.ran())
	assert.FileExists(t, filepath.Join(parent, ".PUBLIC.txt.chores.json"), "the record sits beside the PUBLIC.txt outside a repository")
}

func TestTwoPublishesRecordingChoresAtOnceKeepBothEntries(t *testing.T) {
	p := filepath.Join(t.TempDir(), "guard", "chores.json")
	a, err := loadChoreRecord(p)
	require.NoError(t, err)
	b, err := loadChoreRecord(p)
	require.NoError(t, err)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, a.add(ChoreDone{Public: "/r/PUBLIC.txt", Chore: "make tag", At: at}))
	// b was read before a's entry existed; its write must not drop it.
	require.NoError(t, b.add(ChoreDone{Public: "/r/PUBLIC.txt", Chore: "make announce", At: at}))
	got, err := loadChoreRecord(p)
	require.NoError(t, err)
	require.True(t, got.IsDone("/r/PUBLIC.txt", "make tag"))
	require.True(t, got.IsDone("/r/PUBLIC.txt", "make announce"))
	require.Len(t, got.Done, 2)
	entries, err := os.ReadDir(filepath.Dir(p))
	require.NoError(t, err)
	require.Len(t, entries, 1, "neither a temporary file nor the mutex stays behind")
}
