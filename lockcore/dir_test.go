package lockcore_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

func TestReadDirListsTheDirectorysOwnLocksByName(t *testing.T) {
	dir := t.TempDir()
	mkTree(t, dir, map[string]string{
		"LOCK.txt": "owner: a", "LOCK.api.txt": "owner: b", "TEST.txt": "", "lock.user.txt": "",
		"LOCK.permissions.txt": "{}", "README.md": "", "LOCK.txt.bak": "", "sub/LOCK.txt": "",
		"LOCK.dir.txt/": "",
	})
	if runtime.GOOS != "windows" {
		mkfifo(t, filepath.Join(dir, "LOCK.fifo.txt"))
	}
	locks, err := lockcore.ReadDir(dir, cest)
	require.NoError(t, err)
	var names []string
	for _, l := range locks {
		names = append(names, l.File)
		assert.Equal(t, dir, l.Dir)
		assert.Equal(t, l.File == "LOCK.fifo.txt", l.NotRegular(), l.File)
	}
	want := []string{"LOCK.api.txt", "LOCK.txt", "TEST.txt", "lock.user.txt"}
	if runtime.GOOS != "windows" {
		want = []string{"LOCK.api.txt", "LOCK.fifo.txt", "LOCK.txt", "TEST.txt", "lock.user.txt"}
	}
	assert.Equal(t, want, names,
		"sorted by name; no subdirectory, directory or permissions file; a FIFO holds, unread")

	locks, err = lockcore.ReadDir(filepath.Join(dir, "missing"), cest)
	assert.NoError(t, err, "a missing directory has no locks")
	assert.Empty(t, locks)
}

func TestReadDirFailsOnAnUnreadableDirectory(t *testing.T) {
	dir := t.TempDir()
	closed := filepath.Join(dir, "closed")
	mkTree(t, dir, map[string]string{"closed/LOCK.txt": ""})
	require.NoError(t, os.Chmod(closed, 0o000))
	t.Cleanup(func() { os.Chmod(closed, 0o755) })
	skipIfPermissionsDoNotBind(t, closed)
	_, err := lockcore.ReadDir(closed, cest)
	assert.ErrorIs(t, err, os.ErrPermission)
}

func TestReadLock(t *testing.T) {
	dir := t.TempDir()
	mtime := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	mkTree(t, dir, map[string]string{"LOCK.txt": "owner: a\n", "notalock.txt": "", "LOCK.d.txt/": ""})
	require.NoError(t, os.Chtimes(filepath.Join(dir, "LOCK.txt"), mtime, mtime))

	l, err := lockcore.ReadLock(filepath.Join(dir, "LOCK.txt"), cest)
	require.NoError(t, err)
	assert.Equal(t, "a", l.Owner)
	assert.True(t, mtime.Equal(l.Created), "created falls back to the mtime")
	assert.True(t, filepath.IsAbs(l.Path))

	_, err = lockcore.ReadLock(filepath.Join(dir, "notalock.txt"), cest)
	assert.ErrorContains(t, err, "not a lock file name")
	_, err = lockcore.ReadLock(filepath.Join(dir, "LOCK.gone.txt"), cest)
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = lockcore.ReadLock(filepath.Join(dir, "LOCK.d.txt"), cest)
	assert.ErrorContains(t, err, "not a regular file", "a directory named like a lock is not one")

	if runtime.GOOS != "windows" {
		fifo := filepath.Join(dir, "LOCK.fifo.txt")
		mkfifo(t, fifo)
		done := make(chan error, 1)
		var l *lockcore.Lock
		go func() {
			var err error
			l, err = lockcore.ReadLock(fifo, cest)
			done <- err
		}()
		select {
		case err := <-done:
			require.NoError(t, err, "a FIFO named like a lock is returned, unread")
			assert.ErrorIs(t, l.ReadErr, lockcore.ErrNotRegular)
			assert.EqualError(t, l.ReadErr, "not a regular file: a named pipe (FIFO)")
			assert.True(t, l.Active(time.Now().Add(1000*time.Hour)), "it holds and never expires (fail closed)")
		case <-time.After(5 * time.Second):
			t.Fatal("reading a FIFO named like a lock blocked")
		}
	}
}

func TestReadLockReadsABoundedPrefix(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "LOCK.txt")
	body := []byte("owner: first\n")
	pad := make([]byte, lockcore.MaxLockFileSize)
	for i := range pad {
		pad[i] = 'x'
	}
	body = append(body, pad...)
	body = append(body, "\nowner: beyond-the-limit\n"...)
	require.NoError(t, os.WriteFile(p, body, 0o644))
	l, err := lockcore.ReadLock(p, cest)
	require.NoError(t, err)
	assert.Equal(t, "first", l.Owner, "a field past the bounded prefix is not read")
}
