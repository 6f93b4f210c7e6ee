package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"
)

// TestAScanAskedForFindsWhatNotificationsMissed: with notifications off (a network
// folder) and the periodic rescan far away, a lock made on disk is found by the scan
// POST /api/scan asks for, reported as an event, and counted in its result.
func TestAScanAskedForFindsWhatNotificationsMissed(t *testing.T) {
	root := t.TempDir()
	keep := filepath.Join(root, "keep", "LOCK.txt")
	gone := filepath.Join(root, "gone", "LOCK.txt")
	for _, p := range []string{keep, gone} {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(lockBody("bob", "1h")), 0o644))
	}
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan guard.Event, 10)
	scans := make(chan chan<- guard.WatchScan)
	var results []guard.WatchScan
	ready := make(chan struct{})
	done := make(chan error, 1)
	env := envtest.New(envtest.Clock(lockcore.ClockFunc(time.Now))).Env
	go func() {
		done <- Run(ctx, Options{Env: env, Roots: []lockcore.ScanRoot{{Path: root, MaxDepth: 4}}, Rescan: time.Hour, NoNotify: true,
			Emit: func(ev guard.Event) { events <- ev }, Ready: func() { close(ready) },
			Scans: scans, Scanned: func(r guard.WatchScan) { results = append(results, r) }})
	}()
	defer func() { cancel(); require.NoError(t, <-done) }()
	<-ready
	require.Len(t, results, 1)
	assert.Equal(t, "initial", results[0].Type)
	assert.Equal(t, 2, results[0].LocksFound)
	assert.Equal(t, 2, results[0].Active)

	added := filepath.Join(root, "new", "LOCK.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(added), 0o755))
	require.NoError(t, os.WriteFile(added, []byte(lockBody("carol", "1h")), 0o644))
	require.NoError(t, os.Remove(gone))
	require.NoError(t, os.WriteFile(keep, []byte(lockBody("dave", "1h")), 0o644))
	select {
	case ev := <-events:
		t.Fatalf("no notifications, no rescan yet: no event, got %+v", ev)
	case <-time.After(300 * time.Millisecond):
	}

	reply := make(chan guard.WatchScan, 1)
	scans <- reply
	var r guard.WatchScan
	select {
	case r = <-reply:
	case <-time.After(20 * time.Second):
		t.Fatal("the asked-for scan did not answer")
	}
	assert.Equal(t, "request", r.Type)
	assert.Equal(t, 2, r.LocksFound)
	assert.Equal(t, 2, r.Active)
	assert.Equal(t, 1, r.New)
	assert.Equal(t, 1, r.Modified)
	assert.Equal(t, 1, r.Deleted)
	assert.Equal(t, 0, r.Expired)
	assert.False(t, r.At.IsZero())
	assert.Len(t, results, 2, "Scanned hears of it too")
	got := map[string]string{}
	for range 3 {
		ev := <-events
		got[ev.Path] = ev.Event
	}
	assert.Equal(t, map[string]string{added: guard.EventAcquired, gone: guard.EventReleased, keep: guard.EventTakenOver}, got)
}
