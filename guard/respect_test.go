package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/lockcore"
)

// claimIn asks for spec the way guard lock does: lockcore's mechanism with the
// policy's RESPECT under the creation mutex.
func claimIn(t *testing.T, spec lockcore.Spec) (*lockcore.Acquired, error) {
	t.Helper()
	if spec.Expires == "" && spec.Kind != lockcore.User {
		spec.Expires = "1h"
	}
	p := NewPolicy(testEnv(spec.Dir), Identity{})
	return lockcore.Acquire(spec, lockcore.AcquireOptions{Now: testNow, Respect: p.CheckClaim, MutexDir: ClaimMutexDir(spec.Dir)})
}

func requireConflict(t *testing.T, err error, lockPath string) *lockcore.ConflictError {
	t.Helper()
	var ce *lockcore.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, lockPath, ce.Lock.Path)
	return ce
}

func TestCheckClaim(t *testing.T) {
	alice := func(dir string) lockcore.Spec {
		return lockcore.Spec{Dir: dir, Kind: lockcore.Exclusive, Owner: "alice", Host: "h1"}
	}
	bob := func(dir, scope string) lockcore.Spec {
		return lockcore.Spec{Dir: dir, Kind: lockcore.Exclusive, Scope: scope, Owner: "bob", Host: "h1"}
	}
	t.Run("a lock in a parent directory covering this one refuses", func(t *testing.T) {
		dir := t.TempDir()
		sub := filepath.Join(dir, "sub")
		require.NoError(t, os.Mkdir(sub, 0o755))
		_, err := claimIn(t, alice(dir))
		require.NoError(t, err)
		_, err = claimIn(t, bob(sub, "x"))
		requireConflict(t, err, filepath.Join(dir, "LOCK.txt"))
		assert.NoFileExists(t, filepath.Join(sub, "LOCK.x.txt"))
	})
	t.Run("a scoped lock in a parent whose folder does not hold this directory does not refuse", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "web"), 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "api"), 0o755))
		s := alice(dir)
		s.Scope = "web"
		_, err := claimIn(t, s)
		require.NoError(t, err)
		_, err = claimIn(t, bob(filepath.Join(dir, "api"), ""))
		require.NoError(t, err)
	})
	t.Run("non-overlapping scopes in one directory coexist, overlapping ones refuse", func(t *testing.T) {
		dir := t.TempDir()
		for _, f := range []string{"assets", "assets-backup"} {
			require.NoError(t, os.Mkdir(filepath.Join(dir, f), 0o755))
		}
		s := alice(dir)
		s.Scope = "assets"
		_, err := claimIn(t, s)
		require.NoError(t, err)
		_, err = claimIn(t, bob(dir, "assets-backup"))
		require.NoError(t, err)
		c := bob(dir, "")
		c.Owner = "carol"
		_, err = claimIn(t, c)
		var ce *lockcore.ConflictError
		require.ErrorAs(t, err, &ce)
	})
	t.Run("a soft lock of another owner only warns", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.Mkdir(filepath.Join(dir, "a"), 0o755))
		s := alice(dir)
		s.Mode, s.Scope = "soft", "a"
		_, err := claimIn(t, s)
		require.NoError(t, err)
		res, err := claimIn(t, bob(dir, ""))
		require.NoError(t, err)
		require.Len(t, res.Warnings, 1)
		assert.Contains(t, res.Warnings[0], "LOCK.a.txt")
	})
	t.Run("a team lock of another host refuses, one of the own host does not", func(t *testing.T) {
		dir := t.TempDir()
		for _, f := range []string{"x", "y"} {
			require.NoError(t, os.Mkdir(filepath.Join(dir, f), 0o755))
		}
		_, err := claimIn(t, lockcore.Spec{Dir: dir, Kind: lockcore.Team, TeamHost: "LAPTOP", Owner: "agent1"})
		require.NoError(t, err)
		_, err = claimIn(t, lockcore.Spec{Dir: dir, Kind: lockcore.Exclusive, Scope: "x", Owner: "agent2", Host: "laptop"})
		require.NoError(t, err)
		_, err = claimIn(t, lockcore.Spec{Dir: dir, Kind: lockcore.Exclusive, Scope: "y", Owner: "agent3", Host: "SERVER"})
		requireConflict(t, err, filepath.Join(dir, "LOCK.team.LAPTOP.txt"))
	})
}

// RESPECT exempts whom guard check exempts: a lock never stops its own owner, and a
// team lock never stops its own host.
func TestCheckClaimExemptsWhomCheckExempts(t *testing.T) {
	tests := []struct {
		name         string
		heldOwner    string
		heldTeamHost string // "" for an exclusive LOCK.web.txt
		owner, host  string
		team         bool
		conflict     bool
	}{
		{"its owner on another host passes a team lock", "alice", "h1", "alice", "h2", true, false},
		{"its owner passes a team lock with a plain claim", "alice", "h1", "alice", "h2", false, false},
		{"another owner on another host is refused by a team lock", "alice", "h1", "bob", "h2", true, true},
		{"another owner on the team lock's host passes it", "alice", "h1", "bob", "h1", false, false},
		{"another owner is refused by an exclusive lock", "alice", "", "bob", "h1", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.Mkdir(filepath.Join(dir, "web"), 0o755))
			held := lockcore.Spec{Dir: dir, Kind: lockcore.Exclusive, Scope: "web", Owner: tc.heldOwner, Host: "h1"}
			if tc.heldTeamHost != "" {
				held = lockcore.Spec{Dir: dir, Kind: lockcore.Team, TeamHost: tc.heldTeamHost, Owner: tc.heldOwner, Host: tc.heldTeamHost}
			}
			_, err := claimIn(t, held)
			require.NoError(t, err)
			s := lockcore.Spec{Dir: dir, Kind: lockcore.Exclusive, Owner: tc.owner, Host: tc.host}
			if tc.team {
				s = lockcore.Spec{Dir: dir, Kind: lockcore.Team, TeamHost: tc.host, Owner: tc.owner, Host: tc.host}
			}
			res, err := claimIn(t, s)
			if tc.conflict {
				requireConflict(t, err, held.Path())
				assert.NoFileExists(t, s.Path())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, lockcore.Created, res.Action)
		})
	}
}

// A scope that maps to no folder covers all of its directory (fail closed), on either
// side; the refusal says so and shows the [scopes] lines that would let the two locks
// sit side by side.
func TestCheckClaimExplainsTheScopeFallback(t *testing.T) {
	dir := t.TempDir()
	_, err := claimIn(t, lockcore.Spec{Dir: dir, Kind: lockcore.Team, TeamHost: "OTHERHOST", Scope: "assets", Owner: "agent1"})
	require.NoError(t, err)
	_, err = claimIn(t, lockcore.Spec{Dir: dir, Kind: lockcore.Team, TeamHost: "MYHOST", Scope: "docs", Owner: "agent2"})
	ce := requireConflict(t, err, filepath.Join(dir, "LOCK.team.assets.OTHERHOST.txt"))
	msg := ce.Error()
	assert.Contains(t, msg, `its scope "assets" and yours ("docs") both map to no folder`)
	assert.Contains(t, msg, "so each covers all of "+dir)
	assert.Contains(t, msg, "[scopes]\n    assets = [\"assets/**\"]\n    docs = [\"docs/**\"]\n")
	assert.Contains(t, msg, filepath.Join(dir, ConfigFileName))

	// With the mapping in place they do sit side by side.
	write(t, filepath.Join(dir, ConfigFileName), "[scopes]\nassets = [\"assets/**\"]\ndocs = [\"docs/**\"]\n")
	_, err = claimIn(t, lockcore.Spec{Dir: dir, Kind: lockcore.Team, TeamHost: "MYHOST", Scope: "docs", Owner: "agent2"})
	require.NoError(t, err)

	// Only one side falling back is named as such.
	other := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(other, "docs"), 0o755))
	_, err = claimIn(t, lockcore.Spec{Dir: other, Kind: lockcore.Exclusive, Scope: "api", Owner: "alice", Host: "h"})
	require.NoError(t, err)
	_, err = claimIn(t, lockcore.Spec{Dir: other, Kind: lockcore.Exclusive, Scope: "docs", Owner: "bob", Host: "h"})
	ce = requireConflict(t, err, filepath.Join(other, "LOCK.api.txt"))
	assert.Contains(t, ce.Error(), `its scope "api" maps to no folder`)
	assert.Contains(t, ce.Error(), "(or create the folders "+filepath.Join(other, "api")+string(filepath.Separator)+")")
}

// A claim also respects the live locks below its directory inside the area it would
// cover (CONTRACT.md section 4).
func TestCheckClaimRespectsLocksBelow(t *testing.T) {
	project := t.TempDir()
	for _, f := range []string{"src/parser", "docs", "node_modules/dep"} {
		require.NoError(t, os.MkdirAll(filepath.Join(project, f), 0o755))
	}
	_, err := claimIn(t, lockcore.Spec{Dir: filepath.Join(project, "src"), Kind: lockcore.Exclusive, Owner: "alice", Host: "h"})
	require.NoError(t, err)
	write(t, filepath.Join(project, "node_modules", "dep", "LOCK.txt"), "owner: dep-author\ncreated: 2026-11-29T11:00:00\n")

	_, err = claimIn(t, lockcore.Spec{Dir: project, Kind: lockcore.Exclusive, Owner: "bob", Host: "h"})
	ce := requireConflict(t, err, filepath.Join(project, "src", "LOCK.txt"))
	assert.Contains(t, ce.Error(), "alice")
	assert.Contains(t, ce.Error(), "in the area your lock would cover")
	assert.NoFileExists(t, filepath.Join(project, "LOCK.txt"))

	// A scope whose folder lies elsewhere, or whose mapping excludes src/, claims
	// nothing of alice's.
	_, err = claimIn(t, lockcore.Spec{Dir: project, Kind: lockcore.Exclusive, Scope: "docs", Owner: "bob", Host: "h"})
	require.NoError(t, err)
	write(t, filepath.Join(project, ConfigFileName), "[scopes]\nsite = [\"docs/**\", \"*.md\"]\ngo = [\"**/*.go\"]\nparse = [\"src/parser/**\"]\n")
	_, err = claimIn(t, lockcore.Spec{Dir: project, Kind: lockcore.Exclusive, Scope: "site", Owner: "bob", Host: "h"})
	require.NoError(t, err)
	// A mapping that reaches into src/ is refused.
	_, err = claimIn(t, lockcore.Spec{Dir: project, Kind: lockcore.Exclusive, Scope: "go", Owner: "carol", Host: "h"})
	requireConflict(t, err, filepath.Join(project, "src", "LOCK.txt"))
	_, err = claimIn(t, lockcore.Spec{Dir: project, Kind: lockcore.Exclusive, Scope: "parse", Owner: "carol", Host: "h"})
	requireConflict(t, err, filepath.Join(project, "src", "LOCK.txt"))

	// alice's own claim above her lock is hers to make.
	_, err = claimIn(t, lockcore.Spec{Dir: project, Kind: lockcore.Exclusive, Scope: "src", Owner: "alice", Host: "h"})
	require.NoError(t, err)
}

func TestGlobMayReach(t *testing.T) {
	for _, c := range []struct {
		glob, rel string
		want      bool
	}{
		{"src/**", "src/a", true},
		{"src/**", "docs", false},
		{"src", "src/a/b", true},
		{"**/*.go", "anything", true},
		{"*.md", "src", false},
		{"*/api/**", "src", true},
		{"*/api/**", "src/web", false},
		{"src/*.go", "src/sub", false},
	} {
		assert.Equal(t, c.want, globMayReach(c.glob, c.rel), "%s in %s", c.glob, c.rel)
	}
}

// Claims in one repository, in any of its working trees, share one creation mutex:
// RESPECT reads above, below and across the trees.
func TestClaimMutexDir(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	plain := filepath.Join(base, "plain")
	main := filepath.Join(base, "main")
	for _, d := range []string{plain, main, filepath.Join(main, "src")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	assert.Equal(t, plain, ClaimMutexDir(plain), "outside a repository: the directory itself")

	guardtest.InitRepo(t, main)
	guardtest.Commit(t, main, "c", map[string]string{"src/f": "x"})
	src := filepath.Join(main, "src")
	assert.Equal(t, main, ClaimMutexDir(src), "in a repository: its root")

	wt := filepath.Join(base, "wt")
	guardtest.Git(t, main, "worktree", "add", "-q", wt)
	assert.Equal(t, main, ClaimMutexDir(src), "with a linked worktree: the smallest working-tree root")
	assert.Equal(t, main, ClaimMutexDir(filepath.Join(wt, "src")))
	assert.Equal(t, main, ClaimMutexDir(wt))
}
