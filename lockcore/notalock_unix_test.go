//go:build unix

package lockcore_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

// readWithin reads path with ReadLock, failing when that does not return quickly: a
// FIFO would block an open for reading, /dev/zero would never end.
func readWithin(t *testing.T, path string) *lockcore.Lock {
	t.Helper()
	type res struct {
		l   *lockcore.Lock
		err error
	}
	done := make(chan res, 1)
	go func() { l, err := lockcore.ReadLock(path, cest); done <- res{l, err} }()
	select {
	case r := <-done:
		require.NoError(t, r.err, "something at a lock's name is returned, held")
		return r.l
	case <-time.After(10 * time.Second):
		t.Fatalf("ReadLock(%s) did not return", path)
	}
	return nil
}

func TestSpecialFilesNamedLikeALockHoldUnread(t *testing.T) {
	for _, c := range []struct {
		name, target, why string
	}{
		{"a symlink to /dev/zero", "/dev/zero", "not a regular file: a symbolic link to a character device (/dev/zero)"},
		{"a symlink to /dev/null", "/dev/null", "not a regular file: a symbolic link to a character device (/dev/null)"},
		{"a symlink to a FIFO", "fifo", "not a regular file: a symbolic link to a named pipe (FIFO) (fifo)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.target == "fifo" {
				mkfifo(t, filepath.Join(dir, "fifo"))
			} else if _, err := os.Stat(c.target); err != nil {
				t.Skipf("%s: %v", c.target, err)
			}
			p := filepath.Join(dir, "LOCK.web.txt")
			require.NoError(t, os.Symlink(c.target, p))
			l := readWithin(t, p)
			assert.True(t, l.NotRegular())
			assert.False(t, l.Invalid())
			assert.EqualError(t, l.ReadErr, c.why)
			assert.Empty(t, l.Owner)
			assert.True(t, l.Active(now.Add(1e5*time.Hour)), "it never expires: its lifetime is unknown")
			assert.False(t, l.Prunable(now.Add(1e5*time.Hour)))
			assert.Equal(t, "web", l.Scope)

			locks, err := lockcore.ReadDir(dir, cest)
			require.NoError(t, err)
			require.Len(t, locks, 1, "ReadDir lists it")
			assert.Equal(t, p, locks[0].Path)
			res := scanOne(dir, 1)
			require.Len(t, res.Locks, 1, "scan lists it")
			assert.ErrorIs(t, res.Locks[0].ReadErr, lockcore.ErrNotRegular)
		})
	}
}

func TestABinaryBodyIsNotAValidLockButHolds(t *testing.T) {
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*131 + i/7) // every byte value, no readable key
	}
	for name, body := range map[string][]byte{
		"NUL bytes":            make([]byte, 512),
		"a PNG header":         []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
		"UTF-16 with a BOM":    []byte("\xff\xfeo\x00w\x00n\x00e\x00r\x00:\x00 \x00a\x00\n\x00"),
		"noise with a colon":   []byte("\x01\x02: \x03\x04\n\x05:\x06\n"),
		"every byte value":     random,
		"a key of replacement": []byte("\xff\xfe\xfd: x\n\x00"),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "LOCK.txt")
			require.NoError(t, os.WriteFile(p, body, 0o644))
			old := time.Now().Add(-1000 * time.Hour)
			require.NoError(t, os.Chtimes(p, old, old))
			l := readWithin(t, p)
			assert.True(t, l.Invalid(), "%+v", l.Fields.Keys)
			assert.ErrorIs(t, l.ReadErr, lockcore.ErrInvalidLock)
			assert.ErrorContains(t, l.ReadErr, "not a valid lock file: no readable `key: value` field")
			assert.Empty(t, l.Fields.Values, "no garbage fields are shown")
			assert.True(t, l.Active(now.Add(1e5*time.Hour)), "it holds, though its mtime is long past: its lifetime is unknown")
			assert.Equal(t, "not a valid lock file (held, fail closed)", l.Remaining(now))
		})
	}
}

func TestReadableBodiesAreLocksWhateverElseTheyHold(t *testing.T) {
	for name, body := range map[string]string{
		"empty":                 "",
		"blank lines":           "\n\n  \n",
		"free text":             "do not touch: alice migrates\n",
		"words only":            "do not touch\n",
		"Latin-1 words":         "gesperrt f\xfcr M\xfcller\n",
		"a field after noise":   "\x00\x01\x02\nowner: alice\n",
		"a field in a big file": "owner: bin\n\x00\x00\x00",
	} {
		t.Run(name, func(t *testing.T) {
			l, err := lockcore.ParseLock("/x/LOCK.txt", []byte(body), now, cest)
			require.NoError(t, err)
			assert.NoError(t, l.ReadErr)
			assert.False(t, l.Invalid())
		})
	}
}
