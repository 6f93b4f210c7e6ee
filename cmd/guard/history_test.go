package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// guard's own commands record what they did, and guard history lists it newest first;
// --stats counts it.
func TestHistoryRecordsWhatTheCommandsDid(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
	state := []string{"XDG_STATE_HOME=" + t.TempDir(), "TZ=UTC"}

	_, stderr, code := runGuard(t, root, state, "lock", "--owner", "alice", "--purpose", "refactor", "src")
	require.Equal(t, 0, code, stderr)
	_, _, code = runGuard(t, root, state, "check", "--owner", "bob", "src/a.go")
	require.Equal(t, 1, code)
	_, _, code = runGuard(t, root, state, "lock", "--owner", "carol", "src")
	require.Equal(t, 1, code)
	_, stderr, code = runGuard(t, root, state, "unlock", "--owner", "alice", "src")
	require.Equal(t, 0, code, stderr)

	out, stderr, code := runGuard(t, root, state, "history", "--json")
	require.Equal(t, 0, code, stderr)
	var evs []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &evs), out)
	lock := filepath.Join(root, "src", "LOCK.txt")
	require.Len(t, evs, 4, out)
	want := []struct{ event, actor string }{{"released", "alice"}, {"refused", "carol"}, {"refused", "bob"}, {"acquired", "alice"}}
	for i, w := range want {
		assert.Equal(t, w.event, evs[i]["event"], "event %d", i)
		assert.Equal(t, w.actor, evs[i]["actor"], "event %d", i)
		assert.Equal(t, lock, evs[i]["path"], "event %d", i)
		assert.Equal(t, "alice", evs[i]["owner"], "event %d", i)
		assert.Contains(t, evs[i], "resource", "absent fields are present as null")
		assert.Nil(t, evs[i]["resource"])
	}
	assert.Contains(t, evs[2]["detail"], "check: edit refused for "+filepath.Join(root, "src", "a.go"))

	out, _, code = runGuard(t, root, state, "history", "--event", "refused", "--owner", "alice", "--limit", "1")
	assert.Equal(t, 0, code)
	assert.Regexp(t, `^\S+  refused    `+regexp.QuoteMeta(lock)+`  kind=exclusive  owner=alice  host=\S+  actor=carol  fence=\d+  \(lock: `, out)

	out, _, code = runGuard(t, root, state, "history", "--stats", "--json")
	require.Equal(t, 0, code)
	var st struct {
		Events     map[string]int `json:"events"`
		Contention float64        `json:"contention_rate"`
		Hold       struct {
			Count int `json:"count"`
		} `json:"hold_times"`
		RefusedBy map[string]int `json:"refused_by"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &st), out)
	assert.Equal(t, 1, st.Events["acquired"])
	assert.Equal(t, 2, st.Events["refused"])
	assert.InDelta(t, 2.0/3, st.Contention, 1e-9)
	assert.Equal(t, 1, st.Hold.Count)
	assert.Equal(t, map[string]int{"check": 1, "lock": 1}, st.RefusedBy)

	_, stderr, code = runGuard(t, root, state, "history", "--event", "aquired")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown event "aquired"`)
}

// A pruned lock's event carries the lock's fields, as every event does.
func TestHistoryPrunedEventNamesTheLock(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
	state := []string{"XDG_STATE_HOME=" + t.TempDir(), "TZ=UTC"}
	lock := filepath.Join(root, "src", "LOCK.docs.txt")
	require.NoError(t, os.WriteFile(lock, []byte("owner: bob\nhost: box7\ncreated: 2000-01-01T00:00:00Z\nexpires_after: 1h\nscope: docs\npurpose: old work\n"), 0o644))

	out, stderr, code := runGuard(t, root, state, "prune", root)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "removed "+lock+"\n", out)

	out, stderr, code = runGuard(t, root, state, "history", "--json", "--event", "pruned")
	require.Equal(t, 0, code, stderr)
	var evs []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &evs), out)
	require.Len(t, evs, 1, out)
	ev := evs[0]
	assert.Equal(t, "pruned", ev["event"])
	assert.Equal(t, lock, ev["path"])
	assert.Equal(t, "LOCK.docs.txt", ev["name"])
	assert.Equal(t, "exclusive", ev["kind"])
	assert.Equal(t, "docs", ev["scope"])
	assert.Equal(t, "bob", ev["owner"])
	assert.Equal(t, "box7", ev["host"])
	assert.Equal(t, "prune", ev["detail"])
}

// A claim that waits records one waiting event naming the lock it waits for.
func TestHistoryRecordsWaiting(t *testing.T) {
	root := t.TempDir()
	state := []string{"XDG_STATE_HOME=" + t.TempDir()}
	_, stderr, code := runGuard(t, root, state, "lock", "--owner", "bob", "--purpose", "nightly", root)
	require.Equal(t, 0, code, stderr)
	_, _, code = runGuard(t, root, state, "lock", "--owner", "alice", "--wait", "1s", root)
	require.Equal(t, 1, code)
	out, _, code := runGuard(t, root, state, "history", "--json", "--event", "waiting")
	require.Equal(t, 0, code)
	var evs []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &evs), out)
	require.Len(t, evs, 1, out)
	assert.Equal(t, filepath.Join(root, "LOCK.txt"), evs[0]["path"])
	assert.Equal(t, "bob", evs[0]["owner"])
	assert.Contains(t, evs[0]["detail"], "lock: waiting for "+filepath.Join(root, "LOCK.txt")+" held by bob")
}
