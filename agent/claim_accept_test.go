package agent

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

// Issue 7, item 4: claim on write is switched on by --claim "or .guard.toml": a
// repository whose .guard.toml says [agent] claim = true gets leases without the flag,
// for the lifetime claim_expires names.
func TestClaimOnWriteCanBeSwitchedOnByGuardToml(t *testing.T) {
	cases := []struct {
		name    string
		toml    string
		lease   bool
		expires time.Duration
	}{
		{"claim = true leases the area without --claim", "[agent]\nclaim = true\n", true, 30 * time.Minute},
		{"claim_expires sets the lease's lifetime", "[agent]\nclaim = true\nclaim_expires = \"45m\"\n", true, 45 * time.Minute},
		{"claim = false leaves the area unclaimed", "[agent]\nclaim = false\n", false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := fixtureTree(t)
			require.NoError(t, os.WriteFile(filepath.Join(root, "repo", ".guard.toml"), []byte(tc.toml), 0o644))
			lease := filepath.Join(root, "repo", "free", "LOCK.txt")

			env, out, errb := fixtureEnv(root, writeCall(root, "sess-1", "free/deep/er/new.go"), nil)
			require.NoError(t, RunHook(HookOptions{Env: env, Agent: Claude}))
			assert.Empty(t, out.String(), "the write itself is let through")
			if !tc.lease {
				assert.NotContains(t, errb.String(), "claimed")
				assert.NoFileExists(t, lease)
				return
			}
			assert.Contains(t, errb.String(), "guard: claimed "+lease+" (created")
			l, err := lockcore.ReadLock(lease, time.UTC)
			require.NoError(t, err)
			assert.Equal(t, "sess-1", l.Owner)
			assert.Equal(t, tc.expires, l.ExpiresAfter)
		})
	}
}
