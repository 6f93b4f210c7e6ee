package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"
)

type run struct {
	t      *testing.T
	events chan guard.Event
	cancel func()
	done   chan error
}

func start(t *testing.T, root string, rescan time.Duration, noNotify ...bool) *run {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &run{t: t, events: make(chan guard.Event, 100), cancel: cancel, done: make(chan error, 1)}
	ready := make(chan struct{})
	env := envtest.New(envtest.Clock(lockcore.ClockFunc(time.Now))).Env
	go func() {
		r.done <- Run(ctx, Options{Env: env, Roots: []lockcore.ScanRoot{{Path: root, MaxDepth: 4}}, Rescan: rescan, NoNotify: len(noNotify) > 0,
			Emit: func(ev guard.Event) { r.events <- ev }, Ready: func() { close(ready) }})
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("watch never became ready")
	}
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-r.done)
	})
	return r
}

// next is the next event, which must come within 2 s (the contract's promise).
func (r *run) next(want, path string) guard.Event {
	r.t.Helper()
	select {
	case ev := <-r.events:
		require.Equal(r.t, want+" "+path, ev.Event+" "+ev.Path, "%+v", ev)
		return ev
	case <-time.After(2 * time.Second):
		r.t.Fatalf("no %s event for %s within 2 s", want, path)
	}
	return guard.Event{}
}

func (r *run) quiet() {
	r.t.Helper()
	select {
	case ev := <-r.events:
		r.t.Fatalf("unexpected event %+v", ev)
	case <-time.After(300 * time.Millisecond):
	}
}

func lockBody(owner, expires string) string { return lockBodyAt(owner, expires, time.Now()) }

// lockBodyAt is a lock of owner created at the given instant.
func lockBodyAt(owner, expires string, created time.Time) string {
	return "owner: " + owner + "\ncreated: " + created.Format("2006-01-02T15:04:05") + "\nexpires_after: " + expires + "\n"
}

func TestWatchReportsWhatHappensToLockFiles(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a", "b"), 0o755))
	old := filepath.Join(root, "a", "LOCK.txt")
	require.NoError(t, os.WriteFile(old, []byte(lockBody("zed", "24h")), 0o644))
	r := start(t, root, time.Minute)
	r.quiet() // what was there before is no event

	lock := filepath.Join(root, "a", "b", "LOCK.txt")
	clock := guardtest.NewClock(time.Now())
	require.NoError(t, os.WriteFile(lock, []byte(lockBodyAt("alice", "24h", clock.Now())), 0o644))
	ev := r.next("acquired", lock)
	require.Equal(t, "alice", ev.Owner)
	require.Equal(t, "watch", ev.Actor)

	clock.Advance(time.Second) // a new created second
	require.NoError(t, os.WriteFile(lock, []byte(lockBodyAt("alice", "24h", clock.Now())), 0o644))
	r.next("renewed", lock)
	require.NoError(t, os.WriteFile(lock, []byte(lockBody("bob", "24h")), 0o644))
	r.next("taken_over", lock)
	require.NoError(t, os.Remove(lock))
	r.next("released", lock)

	// A folder that arrives whole, with a lock inside, and is then watched itself.
	staged := filepath.Join(t.TempDir(), "c")
	require.NoError(t, os.MkdirAll(filepath.Join(staged, "d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(staged, "d", "LOCK.txt"), []byte(lockBody("carol", "24h")), 0o644))
	require.NoError(t, os.Rename(staged, filepath.Join(root, "c")))
	r.next("acquired", filepath.Join(root, "c", "d", "LOCK.txt"))
	inner := filepath.Join(root, "c", "d", "LOCK.scope.txt")
	require.NoError(t, os.WriteFile(inner, []byte(lockBody("carol", "24h")), 0o644))
	r.next("acquired", inner)

	// Removing a folder releases the locks in it.
	require.NoError(t, os.RemoveAll(filepath.Join(root, "c")))
	got := map[string]bool{}
	for range 2 {
		select {
		case ev := <-r.events:
			require.Equal(t, "released", ev.Event)
			got[ev.Path] = true
		case <-time.After(2 * time.Second):
			t.Fatal("the removed folder's locks were not reported released")
		}
	}
	require.True(t, got[inner] && got[filepath.Join(root, "c", "d", "LOCK.txt")], "%v", got)

	// Expiry comes from the clock.
	short := filepath.Join(root, "a", "b", "LOCK.short.txt")
	require.NoError(t, os.WriteFile(short, []byte(lockBody("dave", "1s")), 0o644))
	r.next("acquired", short)
	select {
	case ev := <-r.events:
		require.Equal(t, "expired "+short, ev.Event+" "+ev.Path)
	case <-time.After(4 * time.Second):
		t.Fatal("no expired event")
	}
	require.NoError(t, os.Remove(short))
	r.next("pruned", short) // an expired lock removed is a prune
	r.quiet()
}

// A change notifications miss (here: none come, as on a network folder) is found by
// the rescan.
func TestRescanFindsWhatNotificationsMissed(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "1", "2", "3", "4")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	r := start(t, root, 300*time.Millisecond, true)
	lock := filepath.Join(deep, "LOCK.txt")
	require.NoError(t, os.WriteFile(lock, []byte(lockBody("erin", "24h")), 0o644))
	r.next("acquired", lock)
}
