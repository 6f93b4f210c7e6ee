package publish

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
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
