package child

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary be StartGroup's supervisor, as guard's main does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == SupervisorArg {
		os.Exit(Supervise())
	}
	os.Exit(m.Run())
}

func waitForPid(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

func alive(pid int) bool {
	_, zombie, ok := procStat(pid)
	return ok && !zombie
}

func TestGroupPassesTheExitStatusThrough(t *testing.T) {
	for _, tc := range []struct {
		script string
		code   int
	}{{"exit 0", 0}, {"exit 7", 7}, {"kill -TERM $$", 128 + 15}, {"kill -KILL $$", 128 + 9}} {
		g, err := StartGroup(exec.Command("/bin/sh", "-c", tc.script), GroupOptions{TTY: -1, Grace: time.Second})
		require.NoError(t, err)
		code, err := g.Wait()
		require.NoError(t, err)
		assert.Equal(t, tc.code, code, tc.script)
	}
}

func TestGroupReportsACommandThatCannotStart(t *testing.T) {
	_, err := StartGroup(exec.Command(filepath.Join(t.TempDir(), "missing")), GroupOptions{TTY: -1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no such file or directory")
}

func TestGroupSignalReachesTheGroupAndKillReachesEveryDescendant(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid(1) is not installed (util-linux)")
	}
	dir := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", `trap 'echo term > got' TERM; setsid sh -c 'echo $$ > session; exec sleep 300' & echo $$ > child; while :; do sleep 0.05; done`)
	cmd.Dir = dir
	g, err := StartGroup(cmd, GroupOptions{TTY: -1, Grace: time.Second})
	require.NoError(t, err)
	session := waitForPid(t, filepath.Join(dir, "session"))
	waitForPid(t, filepath.Join(dir, "child"))
	g.Signal(syscall.SIGTERM)
	require.Eventually(t, func() bool { b, _ := os.ReadFile(filepath.Join(dir, "got")); return string(b) == "term\n" }, 10*time.Second, 20*time.Millisecond)
	assert.True(t, alive(session), "a signal goes to the command's group, not to another session")
	g.Kill()
	code, err := g.Wait()
	require.NoError(t, err)
	assert.Equal(t, 128+9, code)
	assert.False(t, alive(session), "Kill reaches a process that left the group")
}

func TestDescendantsFindsGrandchildren(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", `sleep 300 & echo $! > grandchild; wait`)
	cmd.Dir = dir
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	grandchild := waitForPid(t, filepath.Join(dir, "grandchild"))
	defer func() { _ = syscall.Kill(grandchild, syscall.SIGKILL) }()
	got := descendants(os.Getpid())
	assert.Contains(t, got, cmd.Process.Pid)
	assert.Contains(t, got, grandchild)
	assert.NotContains(t, got, os.Getpid())
}
