package lockcore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RESPECT exempts whom guard check exempts: a lock never stops its own owner, and a
// team lock never stops its own host.
func TestRespectExemptsTheOwnerAsCheckDoes(t *testing.T) {
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
			held := Spec{Dir: dir, Kind: Exclusive, Scope: "web", Owner: tc.heldOwner, Host: "h1", Expires: "1h"}
			if tc.heldTeamHost != "" {
				held = Spec{Dir: dir, Kind: Team, TeamHost: tc.heldTeamHost, Owner: tc.heldOwner, Host: tc.heldTeamHost, Expires: "1h"}
			}
			_, err := Acquire(held, AcquireOptions{Now: t0})
			require.NoError(t, err)
			s := Spec{Dir: dir, Kind: Exclusive, Owner: tc.owner, Host: tc.host, Expires: "1h"}
			if tc.team {
				s = Spec{Dir: dir, Kind: Team, TeamHost: tc.host, Owner: tc.owner, Host: tc.host, Expires: "1h"}
			}
			res, err := Acquire(s, AcquireOptions{Now: t0})
			if tc.conflict {
				var ce *ConflictError
				require.ErrorAs(t, err, &ce)
				assert.Equal(t, held.Path(), ce.Lock.Path)
				assert.NoFileExists(t, s.Path())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, Created, res.Action)
		})
	}
}
