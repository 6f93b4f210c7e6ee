package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ctrl-C or SIGTERM ends a `guard lock --wait` at once: the context main passes down
// ends the wait, the claim is refused (1) naming the holder, nothing is claimed, and
// the queue does not keep the waiter (the next claim after the release wins at once).
func TestASignalEndsALockWaitPromptly(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			env := waitEnv(t)
			dir := t.TempDir()
			lock := filepath.Join(dir, "LOCK.txt")
			guardOK(t, dir, env, "lock", "--owner", "bob", "--purpose", "parser refactor", dir)
			w := startGuard(t, dir, env, "lock", "--owner", "alice", "--wait", "10m", dir)
			w.expectLine("waiting for "+lock+" held by bob: parser refactor", 20*time.Second)
			sent := time.Now()
			require.NoError(t, w.cmd.Process.Signal(sig))
			code := w.exit(10 * time.Second)
			took := time.Since(sent)
			t.Logf("%s to exit: %s", sig, took)
			assert.Equal(t, 1, code, w.errText())
			assert.Less(t, took, 3*time.Second, "the wait went on %s after %s", took, sig)
			assert.Contains(t, w.errText(), "guard: lock refused: waited ")
			assert.Contains(t, w.errText(), "bob")
			owner, _ := lockFence(t, lock)
			assert.Equal(t, "bob", owner)

			guardOK(t, dir, env, "unlock", "--owner", "bob", dir)
			guardOK(t, dir, env, "lock", "--owner", "carol", "--wait", "5s", dir)
			owner, _ = lockFence(t, lock)
			assert.Equal(t, "carol", owner)
		})
	}
}

// SIGTERM ends guard watch at once, with 0, as Ctrl-C does.
func TestASignalEndsAWatchPromptly(t *testing.T) {
	env := waitEnv(t)
	root := t.TempDir()
	w := startGuard(t, root, env, "watch", root)
	w.expectLine("guard watch: watching 1 root(s)", 20*time.Second)
	require.NoError(t, os.WriteFile(filepath.Join(root, "note.txt"), []byte("x"), 0o644))
	sent := time.Now()
	require.NoError(t, w.cmd.Process.Signal(syscall.SIGTERM))
	code := w.exit(10 * time.Second)
	took := time.Since(sent)
	t.Logf("SIGTERM to exit: %s", took)
	assert.Equal(t, 0, code, w.errText())
	assert.Less(t, took, 3*time.Second, "guard watch went on %s after SIGTERM", took)
}
