package main

// The claim rows of the consistency test (issue 22, item 1): what a claim does about
// the lock of the same name, asked through every entry point that claims, with plain
// files and again with the project's locks in an embedded etcd. lockcore.DecideClaim
// decides for both; a row that answers differently in one store means a claim path
// grew its own copy of the decision.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/guardlocks/guard/internal/testing/etcdtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cqStore is where a world's locks are held: toml is the .guard.toml of each new
// world ("" for plain files).
type cqStore struct {
	name string
	toml func() string
}

// cqStores are plain files and, when a row asks with every store, an embedded etcd
// (one member for the whole test; each world its own project in it).
func cqStores(t *testing.T, rows []cqRow) []cqStore {
	stores := []cqStore{{name: "files", toml: func() string { return "" }}}
	if !slices.ContainsFunc(rows, func(r cqRow) bool { return r.buildIn != nil }) {
		return stores
	}
	cl := etcdtest.Start(t, 1)
	var n atomic.Int64
	return append(stores, cqStore{name: "etcd", toml: func() string {
		return fmt.Sprintf("[backend]\nkind = \"etcd\"\nendpoints = [%q]\nproject_id = \"consistency-%d\"\ndial_timeout = \"10s\"\n",
			cl.Endpoints()[0], n.Add(1))
	}})
}

// cqClaimWorld is a repository with src/ to claim and toml as its .guard.toml; the
// question is alice's claim of src (with lockArgs).
func cqClaimWorld(t *testing.T, toml string, lockArgs ...string) cqWorld {
	t.Helper()
	files := map[string]string{"src/a.go": "package a\n"}
	if toml != "" {
		files[".guard.toml"] = toml
	}
	repo := ctRepo(t, files)
	return cqWorld{cwd: repo, path: filepath.Join(repo, "src"), env: []string{"GUARD_OWNER=alice"}, lockArgs: lockArgs}
}

// cqHold has owner claim src with guard lock (the lock that is there when alice asks)
// and returns w with the lock file's body as it was before the question.
func cqHold(t *testing.T, w cqWorld, rel, owner string, args ...string) cqWorld {
	t.Helper()
	_, errOut, code := ctRun(t, w.cwd, []string{"GUARD_OWNER=" + owner}, "", append([]string{"lock", "src", "--no-contest"}, args...)...)
	require.Equal(t, 0, code, errOut)
	w.before = ctRead(t, filepath.Join(w.cwd, rel))
	return w
}

// cqPlace writes the lock file rel by hand (a lock file no backend knows).
func cqPlace(t *testing.T, w cqWorld, rel, body string) cqWorld {
	t.Helper()
	ctWrite(t, w.cwd, rel, body)
	w.before = body
	return w
}

// cqHeldBy checks that, after the question, the lock file rel is owner's; kept, that
// it is still the lock that was there (the same fence).
func cqHeldBy(rel, owner string, kept bool) func(t *testing.T, w cqWorld) {
	return func(t *testing.T, w cqWorld) {
		t.Helper()
		body := ctRead(t, filepath.Join(w.cwd, rel))
		assert.Contains(t, body, "owner: "+owner+"\n", "%s after the claim", rel)
		if kept && w.before != "" {
			assert.Equal(t, fenceOf(t, w.before), fenceOf(t, body), "%s is the lock that was there", rel)
		}
	}
}

const cqTeamLock = "src/LOCK.team.box1.txt"

var claimConsistencyRows = []cqRow{
	{
		name: "claim: own lock again",
		buildIn: func(t *testing.T, toml string) cqWorld {
			return cqHold(t, cqClaimWorld(t, toml), "src/LOCK.txt", "alice")
		},
		ask:   []string{"lock"},
		want:  0,
		after: cqHeldBy("src/LOCK.txt", "alice", true),
	},
	{
		// Renewed in both stores (under etcd it was claimed afresh, as if nothing
		// were there); etcd then holds it, with a fence of its own.
		name: "claim: own lock file the backend does not know",
		buildIn: func(t *testing.T, toml string) cqWorld {
			return cqPlace(t, cqClaimWorld(t, toml), "src/LOCK.txt", "owner: alice\n"+ctLive+"fence: 7\nexpires_after: 1h\n")
		},
		ask:   []string{"lock"},
		want:  0,
		after: cqHeldBy("src/LOCK.txt", "alice", false),
	},
	{
		name: "claim: another's lock",
		buildIn: func(t *testing.T, toml string) cqWorld {
			return cqHold(t, cqClaimWorld(t, toml), "src/LOCK.txt", "bob")
		},
		ask:   []string{"lock"},
		want:  1,
		says:  []string{filepath.Join("src", "LOCK.txt"), "bob"},
		after: cqHeldBy("src/LOCK.txt", "bob", true),
	},
	{
		name: "claim: another's lock file the backend does not know",
		buildIn: func(t *testing.T, toml string) cqWorld {
			return cqPlace(t, cqClaimWorld(t, toml), "src/LOCK.txt", "owner: bob\n"+ctLive+"fence: 7\nexpires_after: 1h\n")
		},
		ask:   []string{"lock"},
		want:  1,
		says:  []string{filepath.Join("src", "LOCK.txt"), "bob"},
		after: cqHeldBy("src/LOCK.txt", "bob", true),
	},
	{
		name: "claim: another's expired lock",
		buildIn: func(t *testing.T, toml string) cqWorld {
			return cqPlace(t, cqClaimWorld(t, toml), "src/LOCK.txt", "owner: bob\n"+ctDead+"fence: 7\nexpires_after: 1h\n")
		},
		ask:   []string{"lock"},
		want:  0,
		after: cqHeldBy("src/LOCK.txt", "alice", false),
	},
	{
		name: "claim: another's lock, forced",
		buildIn: func(t *testing.T, toml string) cqWorld {
			return cqHold(t, cqClaimWorld(t, toml, "--force"), "src/LOCK.txt", "bob")
		},
		ask:   []string{"lock"},
		want:  0,
		after: cqHeldBy("src/LOCK.txt", "alice", false),
	},
	{
		// The agents of one host share its team lock: the claim joins it.
		name: "claim: this host's team lock, another agent's",
		buildIn: func(t *testing.T, toml string) cqWorld {
			return cqHold(t, cqClaimWorld(t, toml, "--team", "box1"), cqTeamLock, "bob", "--team", "box1")
		},
		ask:   []string{"lock"},
		want:  0,
		after: cqHeldBy(cqTeamLock, "bob", true),
	},
	{
		// Divergence fixed (issue 22): under etcd --force joined the team lock
		// instead of replacing it.
		name: "claim: this host's team lock, another agent's, forced",
		buildIn: func(t *testing.T, toml string) cqWorld {
			return cqHold(t, cqClaimWorld(t, toml, "--team", "box1", "--force"), cqTeamLock, "bob", "--team", "box1")
		},
		ask:   []string{"lock"},
		want:  0,
		after: cqHeldBy(cqTeamLock, "alice", false),
	},
	{
		// Divergence fixed (issue 22): under etcd a team lock file etcd does not know
		// refused the claim instead of being joined.
		name: "claim: this host's team lock file the backend does not know",
		buildIn: func(t *testing.T, toml string) cqWorld {
			return cqPlace(t, cqClaimWorld(t, toml, "--team", "box1"), cqTeamLock, "owner: bob\n"+ctLive+"host: box1\nfence: 7\nexpires_after: 1h\n")
		},
		ask:   []string{"lock"},
		want:  0,
		after: cqHeldBy(cqTeamLock, "bob", true),
	},
	{
		// Divergence fixed (issue 22): under etcd a symlink at the lock path was
		// written over instead of refused.
		name: "claim: a symlink at the lock path",
		buildIn: func(t *testing.T, toml string) cqWorld {
			w := cqClaimWorld(t, toml)
			require.NoError(t, os.Symlink(filepath.Join(w.cwd, "elsewhere"), filepath.Join(w.path, "LOCK.txt")))
			return w
		},
		ask:  []string{"lock"},
		want: 1,
		says: []string{"not a regular file"},
		after: func(t *testing.T, w cqWorld) {
			st, err := os.Lstat(filepath.Join(w.path, "LOCK.txt"))
			require.NoError(t, err)
			assert.Equal(t, os.ModeSymlink, st.Mode().Type(), "the symlink is left alone")
		},
	},
}
