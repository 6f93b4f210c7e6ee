//go:build unix

package child

import (
	"bufio"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunPassesTheExitStatusThroughAsAShellReportsIt(t *testing.T) {
	for _, tc := range []struct {
		script string
		code   int
	}{{"exit 0", 0}, {"exit 7", 7}, {"kill -TERM $$", 128 + 15}, {"kill -KILL $$", 128 + 9}} {
		code, err := Run(exec.Command("/bin/sh", "-c", tc.script))
		require.NoError(t, err)
		assert.Equal(t, tc.code, code, tc.script)
	}
}

func TestRunReportsACommandThatCannotStart(t *testing.T) {
	_, err := Run(exec.Command(t.TempDir() + "/missing"))
	require.Error(t, err)
}

func TestRunPassesASignalSentToGuardOn(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", `trap 'exit 5' TERM; echo ready; while :; do sleep 0.05; done`)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := Run(cmd)
		done <- result{code, err}
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
	// Run is notified of SIGTERM, so the test process survives it and the shell gets it.
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case r := <-done:
		require.NoError(t, r.err)
		assert.Equal(t, 5, r.code)
	case <-time.After(30 * time.Second):
		t.Fatal("the command never got the signal")
	}
}
