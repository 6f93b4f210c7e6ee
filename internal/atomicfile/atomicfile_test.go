package atomicfile

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMain lets a test start this binary as a writer it can kill:
// ATOMICFILE_WRITE=<path> ATOMICFILE_SIZE=<bytes> writes that many 'n' bytes to path.
func TestMain(m *testing.M) {
	if p := os.Getenv("ATOMICFILE_WRITE"); p != "" {
		n, _ := strconv.Atoi(os.Getenv("ATOMICFILE_SIZE"))
		if err := Write(p, bytes.Repeat([]byte("n"), n), 0o644); err != nil {
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestWriteReplacesTheFileAndLeavesNothingElse(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "LOCK-CACHE.md")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o600))
	require.NoError(t, Write(p, []byte("new\n"), 0o644))
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "new\n", string(got))
	if runtime.GOOS != "windows" {
		st, err := os.Stat(p)
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o644), st.Mode().Perm(), "the mode asked for, not the old file's or the umask's")
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left")
}

func TestWriteReplacesASymlinkInsteadOfFollowingIt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o644))
	p := filepath.Join(dir, "settings.json")
	require.NoError(t, os.Symlink(target, p))
	require.NoError(t, Write(p, []byte("{}"), 0o644))
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "keep", string(got))
	st, err := os.Lstat(p)
	require.NoError(t, err)
	require.True(t, st.Mode().IsRegular())
}

func TestWriteThatFailsLeavesTheTargetAndNoTemporary(t *testing.T) {
	dir := t.TempDir()
	// A directory cannot be renamed over: the write fails at the last step.
	p := filepath.Join(dir, "occupied")
	require.NoError(t, os.MkdirAll(filepath.Join(p, "inside"), 0o755))
	err := Write(p, []byte("x"), 0o644)
	require.Error(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the temporary file was removed")
	st, err := os.Stat(p)
	require.NoError(t, err)
	require.True(t, st.IsDir())

	err = Write(filepath.Join(dir, "missing", "f"), []byte("x"), 0o644)
	require.ErrorContains(t, err, filepath.Join(dir, "missing"))
}

// TestAWriterKilledMidWriteLeavesTheOldContent kills a real writing process while its
// temporary file exists (written or being flushed, not yet renamed) and checks that
// the target still holds the old content, whole.
func TestAWriterKilledMidWriteLeavesTheOldContent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "chores.json")
	old := []byte(`{"done": []}` + "\n")
	require.NoError(t, os.WriteFile(p, old, 0o644))
	caught := 0
	for size := 16 << 20; size <= 256<<20 && caught == 0; size *= 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = []string{"ATOMICFILE_WRITE=" + p, "ATOMICFILE_SIZE=" + strconv.Itoa(size)}
		require.NoError(t, cmd.Start())
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		killed := false
	watch:
		for {
			select {
			case <-exited:
				break watch
			default:
			}
			// Kill while a temporary exists, or as soon as the target itself changes
			// (what a writer that is not atomic would do).
			if hasTemp(t, dir) || sizeOf(p) != int64(len(old)) {
				require.NoError(t, cmd.Process.Kill())
				killed = true
				<-exited
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		if !killed || len(got) == size {
			// The writer finished (or renamed just before the kill): start over from
			// the old content with a larger write.
			require.True(t, len(got) == size || bytes.Equal(got, old), "the file is either whole old or whole new, got %d bytes", len(got))
			require.NoError(t, os.WriteFile(p, old, 0o644))
			continue
		}
		require.Equal(t, old, got, "the old content stays after a crash mid-write")
		caught++
	}
	if caught == 0 {
		t.Skip("every writer finished before it could be killed mid-write; the machine writes too fast for this check")
	}
}

func sizeOf(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return -1
	}
	return st.Size()
}

func hasTemp(t *testing.T, dir string) bool {
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), TempSuffix) {
			return true
		}
	}
	return false
}

// WriteCache replaces a file as Write does (one rename, the mode set, no temporary
// file left), only without the flushes.
func TestWriteCacheReplacesInOneStep(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	require.NoError(t, WriteCache(path, []byte("new"), 0o600))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "new", string(data))
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left")
}
