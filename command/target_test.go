package command

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

func TestUnlockAndRenewTakeASymlinkedDirectoryAsTheDIR(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(env *guard.Env, target string) error
	}{
		{"renew through a symlink to the locked directory renews the lock in it", func(env *guard.Env, target string) error {
			return RunRenew(t.Context(), RenewOptions{Env: env, Target: target, Owner: "me"})
		}},
		{"unlock through a symlink to the locked directory removes the lock in it", func(env *guard.Env, target string) error {
			return RunUnlock(t.Context(), UnlockOptions{Env: env, Target: target, Owner: "me"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			real := filepath.Join(root, "real")
			require.NoError(t, os.Mkdir(real, 0o755))
			require.NoError(t, os.Symlink(real, filepath.Join(root, "link")))
			s := lockcore.Spec{Dir: real, Kind: lockcore.Exclusive, Owner: "me", Host: "h", Expires: "1h"}
			require.NoError(t, os.WriteFile(s.Path(), s.Body(lockT0, 1), 0o644))

			env, out, errb := lockTestEnv(root, lockcore.FixedClock(lockT0.Add(time.Minute)), nil)
			err := tc.run(env, "link")
			require.NoError(t, err, errb.String())
			assert.Equal(t, filepath.Join(root, "link", "LOCK.txt")+"\n", out.String())
		})
	}
}

func TestUnlockAndRenewMatchTheLockNameIgnoringCase(t *testing.T) {
	tests := []struct {
		name   string
		onDisk string
		target string
		naming LockNaming
	}{
		{"--scope WEB names LOCK.web.txt", "LOCK.web.txt", "", LockNaming{Scope: "WEB"}},
		{"the project lock is lock.txt when that is how it is spelled", "lock.txt", "", LockNaming{}},
		{"a LOCKFILE argument in another case names the file on disk", "LOCK.txt", "LOCK.TXT", LockNaming{}},
	}
	for _, tc := range tests {
		for _, cmd := range []string{"renew", "unlock"} {
			t.Run(cmd+": "+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				p := filepath.Join(dir, tc.onDisk)
				s := lockcore.Spec{Dir: dir, Kind: lockcore.Exclusive, Owner: "me", Host: "h", Expires: "1h"}
				require.NoError(t, os.WriteFile(p, s.Body(lockT0, 1), 0o644))

				env, out, errb := lockTestEnv(dir, lockcore.FixedClock(lockT0.Add(time.Minute)), nil)
				var err error
				if cmd == "renew" {
					err = RunRenew(t.Context(), RenewOptions{Env: env, Target: tc.target, LockNaming: tc.naming, Owner: "me"})
				} else {
					err = RunUnlock(t.Context(), UnlockOptions{Env: env, Target: tc.target, LockNaming: tc.naming, Owner: "me"})
				}
				require.NoError(t, err, errb.String())
				assert.Equal(t, p+"\n", out.String())
				_, statErr := os.Stat(p)
				assert.Equal(t, cmd == "unlock", os.IsNotExist(statErr))
			})
		}
	}
}

func TestALockRefusedByALockThatNeverExpiresDoesNotSayWaitForIt(t *testing.T) {
	tests := []struct {
		name, file, body, want string
	}{
		{"a user lock", "LOCK.user.txt", "owner: alice\nremovable_by: user\n", "only the user removes a user lock"},
		{"a condition lock", "LOCK.condition.txt", "owner: alice\nrelease_condition: ci green\n", "meet the release condition"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.body), 0o644))
			env, _, _ := lockTestEnv(dir, lockcore.FixedClock(lockT0), nil)
			err := RunLock(t.Context(), LockOptions{Env: env, Owner: "bob", Quarantine: -1})
			require.Error(t, err)
			assert.Equal(t, exitcode.Refused, exitcode.Of(err))
			assert.NotContains(t, err.Error(), "wait until it expires")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestLockTeamHostAndHostMayDifferInCaseOnly(t *testing.T) {
	dir := t.TempDir()
	env, out, errb := lockTestEnv(dir, lockcore.FixedClock(lockT0), nil)
	no := false
	err := RunLock(t.Context(), LockOptions{Env: env, LockNaming: LockNaming{Team: "LAPTOP"}, Host: "laptop", Owner: "me", Contest: &no, Quarantine: -1})
	require.NoError(t, err, errb.String())
	assert.Equal(t, filepath.Join(dir, "LOCK.team.LAPTOP.txt")+"\n", out.String())
}
