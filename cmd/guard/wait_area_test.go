//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Waiters for overlapping areas, a scope of a folder and the whole folder, are
// served in the order they started waiting, whichever lock file each wants: the
// later one waits for the earlier one's ticket rather than racing it for the
// release.
func TestWaitersForOverlappingAreasAreServedInArrivalOrder(t *testing.T) {
	for _, first := range []string{"scope", "whole"} {
		t.Run(first+" first", func(t *testing.T) {
			env := waitEnv(t)
			dir := t.TempDir()
			require.NoError(t, os.Mkdir(filepath.Join(dir, "web"), 0o755))
			guardOK(t, dir, env, "lock", "--owner", "bob", dir)
			scope := []string{"lock", "--owner", "alice", "--wait", "120s", "--scope", "web", dir}
			whole := []string{"lock", "--owner", "carol", "--wait", "120s", dir}
			release := map[string][]string{
				"scope": {"unlock", "--owner", "alice", "--scope", "web", dir},
				"whole": {"unlock", "--owner", "carol", dir},
			}
			second := map[string]string{"scope": "whole", "whole": "scope"}[first]
			args := map[string][]string{"scope": scope, "whole": whole}

			a := startGuard(t, dir, env, args[first]...)
			a.expectLine("waiting for "+filepath.Join(dir, "LOCK.txt")+" held by bob", 10*time.Second)
			b := startGuard(t, dir, env, args[second]...)
			b.expectLine("(1 waiter(s) in front)", 10*time.Second)

			guardOK(t, dir, env, "unlock", "--owner", "bob", dir)
			require.Equal(t, 0, a.exit(20*time.Second), a.errText())
			time.Sleep(300 * time.Millisecond)
			require.True(t, b.running(), "the later waiter must not get in before the earlier one:\n%s", b.errText())

			guardOK(t, dir, env, release[first]...)
			require.Equal(t, 0, b.exit(20*time.Second), b.errText())
		})
	}
}

// A claim without --wait does not cut in front of guard waiters on this machine
// whose areas overlap its own, even where no lock refuses it; it renews its own
// lock, claims elsewhere, and cuts in with --force; a dead waiter holds nobody up.
func TestAPlainClaimDoesNotCutInFrontOfWaiters(t *testing.T) {
	env := waitEnv(t)
	dir := t.TempDir()
	for _, d := range []string{"sub", "docs"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o755))
	}
	sub := filepath.Join(dir, "sub")
	guardOK(t, dir, env, "lock", "--owner", "bob", sub)
	// alice waits for the whole folder: bob's lock inside it refuses her.
	w := startGuard(t, dir, env, "lock", "--owner", "alice", "--wait", "120s", dir)
	w.expectLine("waiting for "+filepath.Join(sub, "LOCK.txt")+" held by bob", 10*time.Second)

	// carol's scope docs/ is free of locks, but lies in the area alice waits for.
	r := runGuardIn(t, dir, env, "", "lock", "--owner", "carol", "--scope", "docs", dir)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Contains(t, r.stderr, "lock refused: 1 guard waiter(s) on this machine queue for an area that overlaps "+filepath.Join(dir, "LOCK.docs.txt"))
	assert.Contains(t, r.stderr, "first in line: alice for "+filepath.Join(dir, "LOCK.txt"))
	assert.Contains(t, r.stderr, "queue behind them with --wait DURATION, or claim anyway with --force")
	assert.True(t, gone(filepath.Join(dir, "LOCK.docs.txt")))

	// bob renews his own lock; dave claims a folder nobody waits for.
	r = runGuardIn(t, dir, env, "", "lock", "--owner", "bob", sub)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "renewed own lock")
	elsewhere := t.TempDir()
	r = runGuardIn(t, dir, env, "", "lock", "--owner", "dave", elsewhere)
	assert.Equal(t, 0, r.code, r.stderr)

	// --force cuts in.
	r = runGuardIn(t, dir, env, "", "lock", "--owner", "carol", "--scope", "docs", "--force", dir)
	assert.Equal(t, 0, r.code, r.stderr)
	guardOK(t, dir, env, "unlock", "--owner", "carol", "--scope", "docs", dir)

	// A waiter killed in the queue no longer holds anyone up.
	require.NoError(t, w.cmd.Process.Signal(syscall.SIGKILL))
	w.exit(5 * time.Second)
	r = runGuardIn(t, dir, env, "", "lock", "--owner", "carol", "--scope", "docs", dir)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.False(t, strings.Contains(r.stderr, "waiter"), r.stderr)
}

// Waiters for areas that do not overlap share the machine's queue but not a turn:
// a later one whose lock is released claims while an earlier one still waits.
func TestWaitersForSeparateAreasDoNotQueueTogether(t *testing.T) {
	env := waitEnv(t)
	one, two := t.TempDir(), t.TempDir()
	guardOK(t, one, env, "lock", "--owner", "bob", one)
	guardOK(t, two, env, "lock", "--owner", "bob", two)
	early := startGuard(t, one, env, "lock", "--owner", "alice", "--wait", "120s", one)
	early.expectLine("waiting for "+filepath.Join(one, "LOCK.txt"), 10*time.Second)
	late := startGuard(t, two, env, "lock", "--owner", "carol", "--wait", "120s", two)
	late.expectLine("waiting for "+filepath.Join(two, "LOCK.txt")+" held by bob", 10*time.Second)
	assert.NotContains(t, late.errText(), "in front")
	guardOK(t, two, env, "unlock", "--owner", "bob", two)
	require.Equal(t, 0, late.exit(20*time.Second), late.errText())
	assert.True(t, early.running(), early.errText())
}
