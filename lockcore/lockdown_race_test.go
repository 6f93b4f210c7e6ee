package lockcore

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A guard lock that lands in a root between Lockdown's first look and its write is
// seen under the creation mutex: the lockdown skips the root instead of adding a
// LOCK.txt that overlaps it.
func TestLockdownWriteLooksAgainUnderTheCreationMutex(t *testing.T) {
	root := t.TempDir()
	web := Spec{Dir: root, Kind: Exclusive, Scope: "web", Owner: "bob", Host: "h", Expires: "1h"}
	_, err := Acquire(web, AcquireOptions{Now: t0})
	require.NoError(t, err)
	err = writeBulk(filepath.Join(root, "LOCK.txt"), root, "user", "h", "", t0)
	var ce *ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, web.Path(), ce.Lock.Path)
	assert.NoFileExists(t, filepath.Join(root, "LOCK.txt"))
	assertNoScratch(t, root)

	t.Run("an expired lock in the root does not stop it", func(t *testing.T) {
		require.NoError(t, writeBulk(filepath.Join(root, "LOCK.txt"), root, "user", "h", "", t0.Add(2*60*60e9)))
		assert.FileExists(t, filepath.Join(root, "LOCK.txt"))
	})
}
