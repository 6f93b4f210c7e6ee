package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

var teamClaimsNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// teamLockWithClaims writes a live team lock of host LAPTOP whose FILE-CLAIMS section
// holds claims, and returns its directory and the lock as read.
func teamLockWithClaims(t *testing.T, claims string) (string, *lockcore.Lock) {
	t.Helper()
	dir := t.TempDir()
	body := "owner: lead\ncreated: 2026-11-29T11:00:00\nhost: LAPTOP\nexpires_after: 24h\n" + lockcore.TeamSectionsTemplate()
	body = strings.Replace(body, "# FILE-CLAIMS:\n", "# FILE-CLAIMS:\n"+claims, 1)
	p := filepath.Join(dir, "LOCK.team.LAPTOP.txt")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	l, err := lockcore.ReadLock(p, time.UTC)
	require.NoError(t, err)
	return dir, l
}

func TestTeamClaimBlocks(t *testing.T) {
	claims := "[agent-1] EDITING  order=000001 | src | docs/guide.md\n[agent-3] WAITING order=000002 | tests\n"
	cases := []struct {
		name    string
		rel     string
		owner   string
		blocked bool
	}{
		{"a file inside another agent's folder claim is blocked", "src/a.go", "agent-2", true},
		{"the claimed file itself is blocked", "docs/guide.md", "agent-2", true},
		{"claims compare case-folded", "SRC/A.go", "agent-2", true},
		{"a folder that contains a claim is blocked", "docs", "agent-2", true},
		{"the claiming agent itself passes", "src/a.go", "agent-1", false},
		{"the claiming agent passes whatever its case", "src/a.go", "AGENT-1", false},
		{"an unclaimed path passes", "lib/x.go", "agent-2", false},
		{"a sibling with a common prefix passes", "src2/x.go", "agent-2", false},
		{"a waiting claim holds nothing yet", "tests/t.go", "agent-2", false},
	}
	dir, l := teamLockWithClaims(t, claims)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reason, blocked := TeamClaimBlocks(l, filepath.Join(dir, filepath.FromSlash(c.rel)), Identity{Owner: c.owner, Host: "LAPTOP"})
			assert.Equal(t, c.blocked, blocked, reason)
			if c.blocked {
				assert.Contains(t, reason, "agent-1")
				assert.Contains(t, reason, l.Path)
			} else {
				assert.Empty(t, reason)
			}
		})
	}
}

func TestTeamClaimBlocksFailsClosedOnDamagedClaims(t *testing.T) {
	dir, l := teamLockWithClaims(t, "[agent-1] EDITING order=oops | src\n")
	reason, blocked := TeamClaimBlocks(l, filepath.Join(dir, "lib", "x.go"), Identity{Owner: "agent-2", Host: "LAPTOP"})
	assert.True(t, blocked)
	assert.Contains(t, reason, "fail closed")
	assert.Contains(t, reason, l.Path)
}

func TestTeamClaimBlocksIgnoresAMarkerlessTeamLock(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "LOCK.team.LAPTOP.txt")
	require.NoError(t, os.WriteFile(p, []byte("owner: lead\nhost: LAPTOP\n"), 0o644))
	l, err := lockcore.ReadLock(p, time.UTC)
	require.NoError(t, err)
	_, blocked := TeamClaimBlocks(l, filepath.Join(dir, "src"), Identity{Owner: "agent-2", Host: "LAPTOP"})
	assert.False(t, blocked)
}

func TestCheckRefusesAPathClaimedByAnotherAgentOfTheTeam(t *testing.T) {
	dir, l := teamLockWithClaims(t, "[agent-1] EDITING  order=000001 | src\n")
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Clock: lockcore.FixedClock(teamClaimsNow), User: "u", Hostname: "LAPTOP", Dir: dir,
		Getenv: func(string) string { return "" }}
	dec, err := NewPolicy(env, Identity{Owner: "agent-2", Host: "LAPTOP"}).Check(Request{Ops: []string{"edit"}, Paths: []string{filepath.Join(dir, "src", "a.go")}})
	require.NoError(t, err)
	require.False(t, dec.Allowed)
	require.Len(t, dec.Blocking, 1)
	assert.Equal(t, l.Path, dec.Blocking[0].Lock.Path)
	assert.Contains(t, dec.Blocking[0].Reason, "agent-1")

	dec, err = NewPolicy(env, Identity{Owner: "agent-2", Host: "LAPTOP"}).Check(Request{Ops: []string{"edit"}, Paths: []string{filepath.Join(dir, "lib", "a.go")}})
	require.NoError(t, err)
	assert.True(t, dec.Allowed, "an unclaimed path of the own host's team lock is free")
}
