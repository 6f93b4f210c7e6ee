package lockcore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/windows"
)

// TestCloudPressureReadsTheRealAttributes sets FILE_ATTRIBUTE_OFFLINE (one of the few
// placeholder attributes SetFileAttributes accepts) on a real file and reads it back
// through GetFileAttributes.
func TestCloudPressureReadsTheRealAttributes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	file := filepath.Join(dir, "LOCK.txt")
	require.NoError(t, os.WriteFile(file, []byte("owner: a\n"), 0o644))
	if cloud, how := CloudPressure(file); cloud {
		t.Skipf("the temporary folder is itself cloud-synced (%s): nothing to compare with", how)
	}
	name, err := windows.UTF16PtrFromString(file)
	require.NoError(t, err)
	require.NoError(t, windows.SetFileAttributes(name, windows.FILE_ATTRIBUTE_OFFLINE))
	t.Cleanup(func() { _ = windows.SetFileAttributes(name, windows.FILE_ATTRIBUTE_NORMAL) })
	cloud, how := CloudPressure(file)
	assert.True(t, cloud)
	assert.Equal(t, "FILE_ATTRIBUTE_OFFLINE on "+file, how)
}
