package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// guard watch --json prints one event object per line as locks come and go, and an
// interrupt ends it with 0.
func TestWatchPrintsEventsUntilInterrupted(t *testing.T) {
	root := t.TempDir()
	state := t.TempDir()
	cmd := exec.Command(guardBin, "watch", "--json", root)
	cmd.Env = []string{"PATH=" + testenv.Path(), "HOME=" + t.TempDir(), "XDG_STATE_HOME=" + state}
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	ready := bufio.NewScanner(errPipe)
	require.True(t, ready.Scan(), "guard watch said nothing on stderr")
	assert.Equal(t, "guard watch: watching 1 root(s); events follow (Ctrl-C ends)", ready.Text())
	go func() {
		for ready.Scan() {
		}
	}()
	lock := filepath.Join(root, "LOCK.txt")
	require.NoError(t, os.WriteFile(lock, []byte("owner: alice\ncreated: "+time.Now().Format("2006-01-02T15:04:05")+"\nexpires_after: 1h\n"), 0o644))
	var line string
	select {
	case line = <-lines:
	case <-time.After(2 * time.Second):
		t.Fatal("no event within 2 s of the lock's creation")
	}
	var ev map[string]any
	require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
	assert.Equal(t, "acquired", ev["event"])
	assert.Equal(t, lock, ev["path"])
	assert.Equal(t, "alice", ev["owner"])
	assert.Equal(t, "watch", ev["actor"])

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.NoError(t, cmd.Wait())
	// A lock written by hand (no fence) is a change by another tool: recorded.
	hist, _, code := runGuard(t, root, []string{"XDG_STATE_HOME=" + state}, "history", "--event", "acquired")
	assert.Equal(t, 0, code)
	assert.Contains(t, hist, "acquired   "+lock+"  kind=exclusive  owner=alice  actor=watch")
}
