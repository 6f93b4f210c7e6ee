package history

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

// A child process of TestSpoolLosesNothingUnderConcurrentImports: appends N events.
func TestMain(m *testing.M) {
	if p := os.Getenv("HISTORY_TEST_SPOOL"); p != "" {
		n, _ := strconv.Atoi(os.Getenv("HISTORY_TEST_N"))
		who := os.Getenv("HISTORY_TEST_WHO")
		for i := range n {
			ev := guard.Event{Time: time.Unix(1700000000, int64(i)), Event: guard.EventRefused, Path: "/p/" + who, Owner: who, Detail: fmt.Sprintf("pre-commit: %d", i)}
			// A loaded machine can delay a writer past the gates' 50 ms: this test is about
			// losing nothing, not about the bound.
			if err := (Spool{Path: p, Wait: 10 * time.Second}).Append(ev); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func open(t *testing.T) (*DB, Spool) {
	t.Helper()
	dir := t.TempDir()
	sp := Spool{Path: filepath.Join(dir, SpoolName)}
	db, err := Open(context.Background(), filepath.Join(dir, DBName), sp)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db, sp
}

// 8 real processes append 100 events each while imports run: every event is stored
// exactly once, none is torn, and no journal is left behind.
func TestSpoolLosesNothingUnderConcurrentImports(t *testing.T) {
	db, sp := open(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	const procs, each = 8, 100
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = []string{"PATH=" + testenv.Path(), "HISTORY_TEST_SPOOL=" + sp.Path, "HISTORY_TEST_N=" + strconv.Itoa(each), "HISTORY_TEST_WHO=w" + strconv.Itoa(p)}
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("%v: %s", err, out)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
			_, err := db.Import(context.Background())
			require.NoError(t, err)
		}
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	_, err = db.Import(context.Background())
	require.NoError(t, err)
	evs, err := db.Events(context.Background(), Query{})
	require.NoError(t, err)
	assert.Len(t, evs, procs*each)
	perOwner := map[string]int{}
	for _, ev := range evs {
		perOwner[ev.Owner]++
	}
	for p := range procs {
		assert.Equal(t, each, perOwner["w"+strconv.Itoa(p)])
	}
	left, _ := filepath.Glob(sp.Path + "*")
	assert.Empty(t, left)
}

// An import killed after its commit but before removing the journal stores nothing
// twice when the next import reads the same lines again.
func TestImportingTheSameJournalTwiceStoresOnce(t *testing.T) {
	db, sp := open(t)
	ev := guard.Event{Time: time.Unix(1700000000, 0).UTC(), Event: guard.EventAcquired, Path: "/p/LOCK.txt", Owner: "alice"}
	require.NoError(t, sp.Append(ev))
	data, err := os.ReadFile(sp.Path)
	require.NoError(t, err)
	_, err = db.Import(context.Background())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(sp.Path+".importing", append(data, []byte("{torn\n")...), 0o600))
	n, err := db.Import(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	evs, err := db.Events(context.Background(), Query{})
	require.NoError(t, err)
	assert.Len(t, evs, 1)
}

func TestEventJSONHasEveryFieldAbsentOnesNull(t *testing.T) {
	data, err := json.Marshal(guard.Event{Time: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Event: "acquired", Path: "/p/LOCK.txt", Owner: "alice"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"time":"2026-12-01T09:00:00Z","event":"acquired","path":"/p/LOCK.txt","name":null,"kind":null,"scope":null,"owner":"alice","host":null,"fence":null,"resource":null,"actor":null,"detail":null}`, string(data))
}

func TestQueryFilters(t *testing.T) {
	db, _ := open(t)
	at := func(m int) time.Time { return time.Date(2026, 12, 1, 9, m, 0, 0, time.UTC) }
	f := int64(7)
	require.NoError(t, db.Add(context.Background(),
		guard.Event{Time: at(0), Event: "acquired", Path: "/p/src/LOCK.txt", Owner: "alice", Fence: &f},
		guard.Event{Time: at(1), Event: "refused", Path: "/p/src/LOCK.txt", Owner: "alice", Actor: "bob", Detail: "pre-commit: 1 path"},
		guard.Event{Time: at(2), Event: "acquired", Path: "/p/srcx/LOCK.txt", Owner: "carol"},
		guard.Event{Time: at(3), Event: "released", Path: "/p/src/LOCK.txt", Owner: "alice", Fence: &f},
	))
	get := func(q Query) []string {
		evs, err := db.Events(context.Background(), q)
		require.NoError(t, err)
		var out []string
		for _, ev := range evs {
			out = append(out, ev.Event+" "+ev.Path)
		}
		return out
	}
	assert.Equal(t, []string{"released /p/src/LOCK.txt", "acquired /p/srcx/LOCK.txt", "refused /p/src/LOCK.txt", "acquired /p/src/LOCK.txt"}, get(Query{}))
	assert.Equal(t, []string{"released /p/src/LOCK.txt", "refused /p/src/LOCK.txt", "acquired /p/src/LOCK.txt"}, get(Query{Path: "/p/src"}), "a folder's events, not its neighbour's")
	assert.Equal(t, []string{"acquired /p/srcx/LOCK.txt"}, get(Query{Owner: "carol"}))
	assert.Equal(t, []string{"refused /p/src/LOCK.txt"}, get(Query{Event: "refused"}))
	assert.Equal(t, []string{"released /p/src/LOCK.txt", "acquired /p/srcx/LOCK.txt"}, get(Query{Since: at(2)}))
	assert.Equal(t, []string{"released /p/src/LOCK.txt"}, get(Query{Limit: 1}))

	st, err := db.Stats(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, st.Events["acquired"])
	assert.InDelta(t, 1.0/3, st.Contention, 1e-9)
	assert.Equal(t, HoldTimes{Count: 1, Median: 180, P95: 180, Max: 180}, st.Hold)
	assert.Equal(t, map[string]int{"pre-commit": 1}, st.RefusedBy)
}

func BenchmarkSpoolAppend(b *testing.B) {
	sp := Spool{Path: filepath.Join(b.TempDir(), SpoolName)}
	ev := guard.Event{Time: time.Now(), Event: guard.EventRefused, Path: "/p/src/a.go", Owner: "bob", Detail: "pre-commit: 1 path(s) blocked"}
	for b.Loop() {
		if err := sp.Append(ev); err != nil {
			b.Fatal(err)
		}
	}
}
