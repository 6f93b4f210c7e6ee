//go:build linux

package lincheck

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A COMMAND that ends after its lock was removed, while guard run was stopped, ends
// before guard run has seen the loss: guard run must still exit 5 (the lock was lost
// while COMMAND ran), not COMMAND's 0. TestFilesHolderPausedJustBeforeCommandEnds
// found it with a pause past the lease; this is the same finding, made certain:
// COMMAND stops guard (SIGSTOP to its grandparent: COMMAND's parent is guard's
// supervisor), removes the lock and exits, and the test resumes guard once COMMAND
// is gone.
func TestRunExits5WhenItsLockWentBeforeCommandEnded(t *testing.T) {
	scenario(t)
	tree := gitTree(t, t.TempDir(), map[string]string{})
	h := filesHarness(t, tree)
	c := &Client{H: h, ID: 0}
	script := `guard=$(cut -d' ' -f4 /proc/$PPID/stat); kill -STOP "$guard"; rm -f "$LOCK_FENCE_FILE"; exit 0`
	for range 3 {
		cmd := c.command([]string{"run", LockDir, "--expires", "1m", "--", "sh", "-c", script})
		var errb bytes.Buffer
		cmd.Stderr = &errb
		require.NoError(t, cmd.Start())
		pid := cmd.Process.Pid
		for end := time.Now().Add(20 * time.Second); !stopped(pid); time.Sleep(10 * time.Millisecond) {
			require.True(t, time.Now().Before(end), "guard run was never stopped: %s", errb.String())
		}
		time.Sleep(300 * time.Millisecond) // COMMAND removes the lock and exits
		require.NoError(t, syscall.Kill(pid, syscall.SIGCONT))
		code := exitCode(cmd.Wait())
		assert.Equal(t, ExitLost, code, errb.String())
		assert.Contains(t, errb.String(), "run: lost the lock while sh ran")
		_, err := os.Stat(filepath.Join(tree, LockDir, "LOCK.txt"))
		assert.True(t, os.IsNotExist(err))
	}
}

// stopped reports whether the process is stopped (state T in /proc/PID/stat).
func stopped(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] == 'T'
}

func itoa(n int) string { return strconv.Itoa(n) }
