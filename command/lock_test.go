package command

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"
)

var lockT0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func lockTestEnv(dir string, clock lockcore.Clock, vars map[string]string) (*guard.Env, *bytes.Buffer, *bytes.Buffer) {
	e := envtest.New(envtest.Clock(clock), envtest.Identity("agent", "HOSTB"), envtest.Dir(dir), envtest.Vars(vars))
	return e.Env, e.Out, e.Err
}

// rival writes a team lock of another host, as a synced folder would bring it in.
func rival(t *testing.T, dir, host string, created time.Time) {
	t.Helper()
	s := lockcore.Spec{Dir: dir, Kind: lockcore.Team, Scope: "s", TeamHost: host, Owner: "other", Host: host, Expires: "1h"}
	require.NoError(t, os.WriteFile(s.Path(), s.Body(created, 1), 0o644))
}

func TestRunLockContest(t *testing.T) {
	yes := true
	tests := []struct {
		name      string
		rivalHost string        // "" for no rival
		rivalAt   time.Duration // rival's created relative to ours
		afterWait time.Duration // how far the clock moves during the quarantine
		code      int
		kept      bool
		reason    string
	}{
		{"no rival appears, so the claim wins", "", 0, time.Minute, 0, true, "no rival"},
		{"an earlier rival wins", "HOSTC", -time.Second, time.Minute, 3, false, "earlier claim by HOSTC"},
		{"a later rival loses", "HOSTC", time.Second, time.Minute, 0, true, "earliest"},
		{"a tie goes to the smaller host", "HOSTA", 0, time.Minute, 3, false, "tie, host order decides for HOSTA"},
		{"a tie against a larger host is won", "HOSTC", 0, time.Minute, 0, true, "earliest"},
		{"an expired own lock never wins, even without rivals", "", 0, 2 * time.Hour, 3, false, "expired"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			now := lockT0
			env, out, errb := lockTestEnv(dir, lockcore.ClockFunc(func() time.Time { return now }), nil)
			slept := time.Duration(0)
			err := RunLock(t.Context(), LockOptions{
				Env: env, LockNaming: LockNaming{Team: "HOSTB", Scope: "s"}, Expires: "1h",
				Contest: &yes, Quarantine: 120, JSON: true,
				Sleep: func(d time.Duration) {
					slept = d
					if tc.rivalHost != "" {
						rival(t, dir, tc.rivalHost, lockT0.Add(tc.rivalAt))
					}
					now = now.Add(tc.afterWait)
				},
			})
			assert.Equal(t, tc.code, exitcode.Of(err), "%v %s", err, errb)
			assert.Equal(t, 120*time.Second, slept)
			mine := filepath.Join(dir, "LOCK.team.s.HOSTB.txt")
			if tc.kept {
				assert.FileExists(t, mine)
				var j LockJSON
				require.NoError(t, json.Unmarshal(out.Bytes(), &j))
				assert.True(t, j.Contest.Ran)
				assert.True(t, j.Contest.Won)
				assert.Contains(t, j.Contest.Reason, tc.reason)
			} else {
				assert.NoFileExists(t, mine)
				assert.Empty(t, out.String())
				assert.Contains(t, err.Error(), tc.reason)
			}
		})
	}
}

func TestRunLockQuarantineZeroDecidesAtOnce(t *testing.T) {
	dir := t.TempDir()
	env, out, _ := lockTestEnv(dir, lockcore.FixedClock(lockT0), nil)
	yes := true
	err := RunLock(t.Context(), LockOptions{Env: env, LockNaming: LockNaming{Team: "HOSTB"}, Contest: &yes, Quarantine: 0,
		Sleep: func(time.Duration) { t.Fatal("no quarantine means no sleep") }})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "LOCK.team.HOSTB.txt")+"\n", out.String())
}

func TestShouldContestFromTheEnvironment(t *testing.T) {
	tests := []struct {
		name string
		dir  string
		vars map[string]string
		tty  bool
		want bool
	}{
		{"an automation in a cloud folder contests", "OneDrive/proj", map[string]string{"CI": "1"}, true, true},
		{"a person in a cloud folder does not", "Dropbox/proj", nil, true, false},
		{"a non-terminal stdin counts as automation", "Google Drive/proj", nil, false, true},
		{"LOCK_MASTER_AUTOMATION=yes counts as automation", "nextcloud/p", map[string]string{"LOCK_MASTER_AUTOMATION": "yes"}, true, true},
		{"an automation outside a cloud folder does not", "work/proj", map[string]string{"GITHUB_ACTIONS": "true"}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := lockcore.ShouldContest(tc.dir, nil, lockcore.LooksLikeAutomation(func(k string) string { return tc.vars[k] }, tc.tty))
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestRunLockContestsByItselfInACloudFolderUnderAutomation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "OneDrive", "proj")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	env, _, errb := lockTestEnv(dir, lockcore.FixedClock(lockT0), map[string]string{"CI": "true"})
	var slept time.Duration
	err := RunLock(t.Context(), LockOptions{Env: env, Quarantine: -1, Sleep: func(d time.Duration) { slept = d }})
	require.NoError(t, err)
	assert.Equal(t, lockcore.DefaultQuarantine, slept)
	assert.Contains(t, errb.String(), "contested claim")
}
