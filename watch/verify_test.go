//go:build linux

package watch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"
)

// TestVerifyScanFindsWhatNotificationsMissed: the cheap periodic rescan (metadata
// only, where notifications are reliable) still finds every kind of change that no
// notification reported: a lock created, one rewritten in place, one removed, a
// folder that arrived with a lock inside, a folder removed with its lock.
func TestVerifyScanFindsWhatNotificationsMissed(t *testing.T) {
	root := t.TempDir()
	if !notifyReliable(root) {
		t.Skip("the test's temporary folder is not on a local file system notifyReliable knows")
	}
	keep := filepath.Join(root, "a", "LOCK.txt")
	gone := filepath.Join(root, "b", "LOCK.txt")
	inGoneDir := filepath.Join(root, "c", "d", "LOCK.txt")
	for _, p := range []string{keep, gone, inGoneDir} {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(lockBody("bob", "1h")), 0o644))
	}
	var events []guard.Event
	fsw, err := fsnotify.NewWatcher()
	require.NoError(t, err)
	defer fsw.Close()
	w := &watcher{o: Options{Env: envtest.New(envtest.Clock(lockcore.ClockFunc(time.Now))).Env, Roots: []lockcore.ScanRoot{{Path: root, MaxDepth: 4}},
		Rescan: time.Minute, Emit: func(ev guard.Event) { events = append(events, ev) }, Warn: func(s string) { t.Log(s) }},
		fsw: fsw, locks: map[string]snap{}, dirs: map[string]folder{}, verify: true, looked: time.Now()}
	w.addTree(root, 0, 4)
	w.locks = w.scanAll()
	require.Len(t, w.locks, 3)

	r := w.verifyScan()
	assert.Empty(t, events, "nothing changed")
	assert.Equal(t, 3, r.LocksFound)

	// Changes whose notifications nobody reads (the watcher's loop is not running).
	added := filepath.Join(root, "e", "LOCK.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(added), 0o755))
	require.NoError(t, os.WriteFile(added, []byte(lockBody("carol", "1h")), 0o644))
	inPlace, err := os.OpenFile(keep, os.O_WRONLY|os.O_TRUNC, 0)
	require.NoError(t, err)
	_, err = inPlace.WriteString(lockBody("dave", "1h"))
	require.NoError(t, err)
	require.NoError(t, inPlace.Close())
	require.NoError(t, os.Remove(gone))
	require.NoError(t, os.RemoveAll(filepath.Join(root, "c")))
	nested := filepath.Join(root, "a", "new", "LOCK.api.txt")
	require.NoError(t, os.MkdirAll(filepath.Dir(nested), 0o755))
	require.NoError(t, os.WriteFile(nested, []byte(lockBody("erin", "1h")), 0o644))

	r = w.verifyScan()
	got := map[string]string{}
	for _, ev := range events {
		got[ev.Path] = ev.Event
	}
	assert.Equal(t, map[string]string{
		added: guard.EventAcquired, nested: guard.EventAcquired, keep: guard.EventTakenOver,
		gone: guard.EventReleased, inGoneDir: guard.EventReleased,
	}, got)
	assert.Equal(t, "full", r.Type)
	assert.Equal(t, 2, r.New)
	assert.Equal(t, 1, r.Modified)
	assert.Equal(t, 2, r.Deleted)
	assert.Equal(t, 3, r.LocksFound)
	_, watched := w.dirs[filepath.Join(root, "a", "new")]
	assert.True(t, watched, "a folder that arrived unnoticed is watched from now on")

	events = nil
	w.verifyScan()
	w.verifyScan()
	assert.Empty(t, events, "and later scans find nothing more")
}
