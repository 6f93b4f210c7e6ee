//go:build unix

package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMutexRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.mutex")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	_, err := Mutex{Path: fifo}.TryLock()
	require.ErrorContains(t, err, fifo+": not a regular file")

	target := filepath.Join(dir, "elsewhere")
	link := filepath.Join(dir, "link.mutex")
	require.NoError(t, os.Symlink(target, link))
	_, err = Mutex{Path: link}.TryLock()
	require.Error(t, err)
	require.True(t, errors.Is(err, syscall.ELOOP), "want ELOOP, got %v", err)
	_, err = os.Lstat(target)
	require.ErrorIs(t, err, os.ErrNotExist, "the link's target was not created")
}
