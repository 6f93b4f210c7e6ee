package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

func TestUnlockAndRenewTakeASymlinkedDirectoryAsTheDIR(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(env *guard.Env, target string) error
	}{
		{"renew through a symlink to the locked directory renews the lock in it", func(env *guard.Env, target string) error {
			return RunRenew(RenewOptions{Env: env, Target: target, Owner: "me"})
		}},
		{"unlock through a symlink to the locked directory removes the lock in it", func(env *guard.Env, target string) error {
			return RunUnlock(UnlockOptions{Env: env, Target: target, Owner: "me"})
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
