package guard

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// commitTree is a working tree (its .git stops the walk up) with alice's lock on src/.
func commitTree(t *testing.T) string {
	root := t.TempDir()
	write(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(root, "src", "LOCK.txt"), fresh)
	return root
}

func TestCommitCheckJudgesLocksNamesAndTheWholeRepository(t *testing.T) {
	root := commitTree(t)
	p := NewPolicy(testEnv(root), Identity{Owner: "bob", Host: "hostA"})
	cc := p.CommitCheck(Commit{Gate: GatePreCommit, Ops: []string{OpCommit}, Root: root})
	paths := make(chan []string, 1)
	paths <- []string{filepath.Join(root, "src", "a.go"), filepath.Join(root, "docs", "x.md")}
	close(paths)
	cc.Name("src/a.go", filepath.Join(root, "src", "a.go"), MarkerStaged, Changed)
	cc.Name("sub/private.txt", filepath.Join(root, "sub", "private.txt"), MarkerStaged, Added)
	cc.Name("PUBLIC.txt", filepath.Join(root, "PUBLIC.txt"), MarkerStaged, Removed)
	cc.Name("docs/LOCK.txt", filepath.Join(root, "docs", "LOCK.txt"), MarkerStaged, Added)
	require.NoError(t, cc.Stream(paths))
	d := cc.Decision()
	assert.False(t, d.Allowed)
	require.Len(t, d.Blocking, 2, "alice's lock, then the staged marker; the removed marker is the repair")
	assert.Equal(t, filepath.Join(root, "src", "a.go"), d.Blocking[0].Path)
	require.NotNil(t, d.Blocking[0].Lock)
	assert.Equal(t, "alice", d.Blocking[0].Lock.Owner)
	assert.Equal(t, filepath.Join(root, "sub", "private.txt"), d.Blocking[1].Path)
	assert.Contains(t, d.Blocking[1].Reason, "private.txt is a publication marker")
	require.Len(t, d.Warnings, 1)
	assert.True(t, strings.HasPrefix(d.Warnings[0], "committing the lock file "+filepath.Join(root, "docs", "LOCK.txt")+":"), d.Warnings[0])
	assert.Same(t, d, cc.Decision(), "the decision settles once")

	// A tag push is judged at the top as well; the markers of a pushed tree are
	// refused whatever their change, and only a server that is public refuses
	// PRIVATE.txt for its own reason.
	write(t, filepath.Join(root, "LOCK.freeze.txt"), "owner: alice\ncreated: 2026-11-29T11:00:00\noperations: release-tag\n")
	tag := NewPolicy(testEnv(root), Identity{Owner: "bob"}).CommitCheck(Commit{Gate: GatePrePush, Ops: []string{OpPush, OpReleaseTag}, Root: root, Whole: true})
	require.NoError(t, tag.Check([]string{filepath.Join(root, "docs", "x.md")}))
	td := tag.Decision()
	require.Len(t, td.Blocking, 2, "the pushed path, then the top (guard ci's order)")
	assert.Equal(t, filepath.Join(root, "docs", "x.md"), td.Blocking[0].Path)
	assert.Equal(t, root, td.Blocking[1].Path)
	assert.Contains(t, td.Blocking[1].Reason, "blocks release-tag")

	public := &Config{Path: "/srv/.guard.toml", Server: ServerConfig{Visibility: ServerPublic}}
	srv := NewPolicy(testEnv(root), Identity{Owner: "bob"}).CommitCheck(Commit{Gate: GatePreReceive, Ops: []string{OpPush}, Root: root, Server: public})
	srv.Name("PRIVATE.txt", filepath.Join(root, "PRIVATE.txt"), MarkerInTree, Changed)
	sd := srv.Decision()
	require.Len(t, sd.Blocking, 2)
	assert.Contains(t, sd.Blocking[0].Reason, "PRIVATE.txt is committed")
	assert.Contains(t, sd.Blocking[1].Reason, "this repository is public (/srv/.guard.toml")
	assert.Empty(t, sd.Warnings, "a lock-file warning is for staging only")
}

func TestJudgeCommitDecidesTheBypassOnceForEveryGate(t *testing.T) {
	bypass := &Env{Getenv: func(k string) string {
		if k == BypassVar {
			return "hotfix"
		}
		return ""
	}}
	refused := []*Decision{{Allowed: true}, {Allowed: false}, nil}
	boom := errors.New("git died")

	v := JudgeCommit(bypass, GatePrePush, refused, nil, nil)
	assert.True(t, v.Refused)
	assert.Equal(t, Refused, OutcomeOf(v.Failure()))
	assert.True(t, v.Bypassed())
	assert.Equal(t, "hotfix", v.Bypass.Reason)

	v = JudgeCommit(bypass, GatePreCommit, nil, boom, nil)
	assert.Equal(t, BadInput, OutcomeOf(v.Failure()))
	assert.True(t, v.Bypassed(), "on a client GUARD_BYPASS lets an error through too")

	v = JudgeCommit(bypass, GateCI, refused, nil, nil)
	assert.Equal(t, Refused, OutcomeOf(v.Failure()))
	assert.False(t, v.Bypassed(), "guard ci never yields to GUARD_BYPASS")

	v = JudgeCommit(bypass, GatePrePush, []*Decision{{Allowed: true}}, nil, nil)
	assert.True(t, v.Pass())
	assert.False(t, v.Bypassed(), "nothing to let through")

	cfg := &Config{Path: "/srv/.guard.toml", Server: ServerConfig{BypassUsers: []string{"carol"}}}
	opts := []string{"ci.skip", BypassOption + "=prod is down"}
	v = JudgeCommit(bypass, GatePreReceive, refused, nil, &ServerAsk{Config: cfg, Pusher: Pusher{User: "carol", Owner: "carol"}, Options: opts})
	assert.True(t, v.Bypassed(), "the server ignores GUARD_BYPASS and yields to the push option of an allowed user")
	assert.Equal(t, "prod is down", v.Bypass.Reason)

	v = JudgeCommit(bypass, GatePreReceive, refused, nil, &ServerAsk{Config: cfg, Pusher: Pusher{User: "bob", Owner: "bob"}, Options: opts})
	assert.True(t, v.Bypass.Asked)
	assert.False(t, v.Bypassed())
	assert.Contains(t, v.Bypass.Why, "bob asked for guard.bypass, but only users in [server] bypass_users (/srv/.guard.toml)")

	v = JudgeCommit(bypass, GatePreReceive, nil, boom, &ServerAsk{Config: cfg, Pusher: Pusher{User: "carol"}, Options: opts})
	assert.Equal(t, BadInput, OutcomeOf(v.Failure()))
	assert.False(t, v.Bypassed(), "an error on the server is never bypassed")

	v = JudgeCommit(bypass, GatePreReceive, refused, nil, &ServerAsk{Config: cfg, Pusher: Pusher{User: "carol"}, Options: []string{BypassOption + "="}})
	assert.False(t, v.Bypassed())
	assert.Error(t, v.Bypass.Err, "a bypass needs its reason")
}
