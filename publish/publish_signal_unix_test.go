//go:build unix

package publish

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPublishForwardsSignalsToTheCommand(t *testing.T) {
	w := newWorld(t)
	w.write("PUBLIC.txt", "chore: echo chore >> \"$RECORD\"\n")
	w.standIn("npm", `trap 'echo "got TERM" >> "$RECORD"; exit 42' TERM; echo started >> "$RECORD"; while :; do sleep 0.05; done`)
	done := make(chan int)
	go func() { done <- w.publish(PublishOptions{}, "npm", "publish") }()
	require.Eventually(t, func() bool { r := w.ran(); return len(r) > 0 && r[0] == "started" }, 10*time.Second, 20*time.Millisecond)
	// The command runs under child.Run, which is notified of SIGTERM: the test
	// process survives it, as guard does, and the command gets it.
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case code := <-done:
		assert.Equal(t, 42, code)
		assert.Equal(t, []string{"started", "got TERM"}, w.ran())
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not end after SIGTERM")
	}
}
