package command

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/lockcore"
)

func TestALockdownThatFailsHalfWayRecordsWhatItWrote(t *testing.T) {
	base := t.TempDir()
	state := filepath.Join(base, "state")
	good, bad := filepath.Join(base, "a"), filepath.Join(base, "b")
	require.NoError(t, os.MkdirAll(good, 0o755))
	// A directory where the creation mutex file must go: writing into b fails.
	require.NoError(t, os.MkdirAll(filepath.Join(bad, lockcore.DirMutexName), 0o755))

	env, out, _ := lockTestEnv(base, lockcore.FixedClock(lockT0), map[string]string{"XDG_STATE_HOME": state})
	err := RunLockdown(LockdownOptions{Env: env, Roots: []string{good, bad}, Commit: true})
	require.Error(t, err)
	assert.Equal(t, exitcode.Usage, exitcode.Of(err))
	assert.Contains(t, out.String(), "locked "+filepath.Join(good, "LOCK.txt"))

	m, err := lockcore.ReadLockdownManifest(filepath.Join(state, "guard", "lockdown.json"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(good, "LOCK.txt")}, m.Locks, "--undo must be able to remove the lock that was written")
}

func TestALockdownGoesOnPastARootItCannotWrite(t *testing.T) {
	base := t.TempDir()
	state := filepath.Join(base, "state")
	bad, good := filepath.Join(base, "a"), filepath.Join(base, "b")
	require.NoError(t, os.MkdirAll(filepath.Join(bad, lockcore.DirMutexName), 0o755))
	require.NoError(t, os.MkdirAll(good, 0o755))

	env, out, _ := lockTestEnv(base, lockcore.FixedClock(lockT0), map[string]string{"XDG_STATE_HOME": state})
	err := RunLockdown(LockdownOptions{Env: env, Roots: []string{bad, good}, Commit: true})
	require.Error(t, err, "a root left unlocked is a failure (2)")
	assert.Equal(t, exitcode.Usage, exitcode.Of(err))
	assert.Contains(t, err.Error(), bad)
	assert.Contains(t, out.String(), "locked "+filepath.Join(good, "LOCK.txt")+"\n", "an emergency lockdown locks every root it can")
	assert.Contains(t, out.String(), "skipped "+bad+" (could not write:")
	assert.FileExists(t, filepath.Join(good, "LOCK.txt"))
}
