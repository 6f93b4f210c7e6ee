package history

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
)

// TestFollowSeesWhatEveryProcessRecords: events a gate appends to the journal, and
// events another process imported into the database first, both reach the follower,
// once each and in order; events already there at the start, and skipped ones, do not.
func TestFollowSeesWhatEveryProcessRecords(t *testing.T) {
	dir := t.TempDir()
	spool := Spool{Path: filepath.Join(dir, SpoolName)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := Open(ctx, filepath.Join(dir, DBName), spool)
	require.NoError(t, err)
	defer db.Close()
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	require.NoError(t, db.Add(ctx, guard.Event{Time: at, Event: guard.EventAcquired, Path: "/p/old/LOCK.txt"}))

	got := make(chan guard.Event, 10)
	done := make(chan struct{})
	go func() {
		db.Follow(ctx, func(ev guard.Event) { got <- ev }, func(ev guard.Event) bool { return ev.Actor == "watch" }, func(err error) { t.Error(err) })
		close(done)
	}()
	next := func() guard.Event {
		t.Helper()
		select {
		case ev := <-got:
			return ev
		case <-time.After(2 * time.Second):
			t.Fatal("no event within 2 s")
		}
		return guard.Event{}
	}
	time.Sleep(100 * time.Millisecond) // let the follower take its cursor

	// A hook refuses (it appends to the journal and never opens the database).
	require.NoError(t, spool.Append(guard.Event{Time: at.Add(time.Second), Event: guard.EventRefused, Path: "/p/a.go", Actor: "bob", Detail: "pre-commit: refused"}))
	ev := next()
	assert.Equal(t, guard.EventRefused, ev.Event)
	assert.Equal(t, "/p/a.go", ev.Path)
	assert.Equal(t, "bob", ev.Actor)

	// guard history in another process imports a claim before the follower does.
	fence := int64(9)
	require.NoError(t, spool.Append(guard.Event{Time: at.Add(2 * time.Second), Event: guard.EventAcquired, Path: "/p/LOCK.txt", Fence: &fence, Actor: "carol"}))
	require.NoError(t, spool.Append(guard.Event{Time: at.Add(2 * time.Second), Event: guard.EventExpired, Path: "/p/x/LOCK.txt", Actor: "watch"}))
	other, err := Open(ctx, filepath.Join(dir, DBName), spool)
	require.NoError(t, err)
	require.NoError(t, other.Close())
	ev = next()
	assert.Equal(t, guard.EventAcquired, ev.Event)
	assert.Equal(t, "/p/LOCK.txt", ev.Path)
	require.NotNil(t, ev.Fence)
	assert.Equal(t, int64(9), *ev.Fence)
	select {
	case ev := <-got:
		t.Fatalf("nothing else: the old event came before, the watcher's is skipped; got %+v", ev)
	case <-time.After(1500 * time.Millisecond):
	}
	cancel()
	<-done
}

func TestTally(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(dir, DBName), Spool{})
	require.NoError(t, err)
	defer db.Close()
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	require.NoError(t, db.Add(ctx,
		guard.Event{Time: at, Event: guard.EventAcquired, Path: "/a/LOCK.txt"},
		guard.Event{Time: at.Add(time.Second), Event: guard.EventReleased, Path: "/a/LOCK.txt"},
		guard.Event{Time: at, Event: guard.EventAcquired, Path: "/b/LOCK.txt"},
		guard.Event{Time: at.Add(time.Second), Event: guard.EventPruned, Path: "/b/LOCK.txt"},
		guard.Event{Time: at.Add(2 * time.Second), Event: guard.EventAcquired, Path: "/b/LOCK.txt"},
		guard.Event{Time: at, Event: guard.EventExpired, Path: "/c/LOCK.txt"},
		guard.Event{Time: at.Add(time.Second), Event: guard.EventPruned, Path: "/c/LOCK.txt"},
		guard.Event{Time: at.Add(3 * time.Second), Event: guard.EventRefused, Path: "/c/LOCK.txt"},
	))
	total, gone, err := db.Tally(ctx)
	require.NoError(t, err)
	assert.Equal(t, 8, total)
	assert.Equal(t, []string{"/a/LOCK.txt", "/c/LOCK.txt"}, gone, "a refusal is not a lock event")
}
