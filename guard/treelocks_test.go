package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/gitrun"
)

func TestBeforeJudgesTheChangeByTheLocksItDeletes(t *testing.T) {
	root := commitTree(t)
	require.NoError(t, os.Remove(filepath.Join(root, "src", "LOCK.txt"))) // the change deletes it
	lockFile := filepath.Join(root, "src", "LOCK.txt")
	paths := []string{lockFile, filepath.Join(root, "src", "a.go"), filepath.Join(root, "docs", "x.md")}
	gone := []gitrun.TreeFile{{Path: "src/LOCK.txt", Data: []byte(fresh)}}
	judge := func(owner string, files []gitrun.TreeFile) *Decision {
		cc := NewPolicy(testEnv(root), Identity{Owner: owner}).CommitCheck(Commit{Gate: GatePreCommit, Ops: []string{OpCommit}, Root: root})
		require.NoError(t, cc.Check(paths))
		require.NoError(t, cc.Before("HEAD", files, paths))
		return cc.Decision()
	}

	d := judge("bob", gone)
	require.False(t, d.Allowed)
	require.Len(t, d.Blocking, 2, "the lock file itself and the file in its area; docs is outside")
	assert.Equal(t, lockFile, d.Blocking[0].Path)
	assert.Equal(t, filepath.Join(root, "src", "a.go"), d.Blocking[1].Path)
	b := d.Blocking[1]
	require.NotNil(t, b.Lock)
	assert.Equal(t, "alice", b.Lock.Owner)
	assert.Equal(t, lockFile, b.Lock.Path)
	assert.Equal(t, "bob", b.Actor)
	assert.Equal(t, "exclusive lock "+lockFile+" held by alice; the lock is committed in HEAD and this change deletes it, which does not release it", b.Reason)
	var out strings.Builder
	d.Explain(&out)
	assert.Contains(t, out.String(), "  what now: ask alice to release it: it holds until a commit of theirs deletes it (`guard unlock "+lockFile+"` in their clone, then a commit); deleting it in your own change does not release it\n")

	assert.True(t, judge("alice", gone).Allowed, "the owner deletes their own lock")
	assert.True(t, judge("bob", nil).Allowed, "no lock deleted: the working tree's answer")
	expired := []gitrun.TreeFile{{Path: "src/LOCK.txt", Data: []byte("owner: alice\ncreated: 2001-01-01T00:00:00\nexpires_after: 1h\n")}}
	assert.True(t, judge("bob", expired).Allowed, "an expired lock binds nothing, in a tree as in a folder")
	large := judge("alice", []gitrun.TreeFile{{Path: "src/LOCK.txt", Large: true}})
	assert.False(t, large.Allowed, "a lock-named blob too large to read holds for everyone (fail closed), its owner unknown")

	// Unstaged but still in the working tree: one refusal per path, not two.
	write(t, lockFile, fresh)
	d = judge("bob", gone)
	assert.Len(t, d.Blocking, 2)
}
