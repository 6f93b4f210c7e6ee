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
	assert.Contains(t, stderr, `"aquired" is not acquired, renewed, released, expired, taken_over, pruned, waiting, refused, bypassed or pushed; did you mean acquired?`)
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

// An agent known only by its session id (no GUARD_OWNER) claims as that session, and
// the history records a refusal's actor as the identity the hook judged, in each
// client's hook protocol: the refused event names the session that was refused, and
// the lock's owner the session that claimed; the claiming session's own lease never
// refuses its own write.
func TestHistoryRecordsTheAgentSessionTheHookJudged(t *testing.T) {
	for _, agent := range []string{"claude", "gemini", "codex"} {
		t.Run(agent, func(t *testing.T) {
			repo := ctRepo(t, map[string]string{"src/a.go": "a\n"})
			env := []string{"XDG_STATE_HOME=" + t.TempDir()}
			file := filepath.Join(repo, "src", "a.go")
			write := func(session string) string {
				tool, event := "Write", "PreToolUse"
				if agent == "gemini" {
					tool, event = "write_file", "BeforeTool"
				}
				b, err := json.Marshal(map[string]any{"tool_name": tool, "tool_input": map[string]any{"file_path": file, "content": "x\n"},
					"cwd": repo, "session_id": session, "hook_event_name": event})
				require.NoError(t, err)
				out, errOut, code := ctRun(t, repo, env, string(b), "agent-hook", agent, "--claim")
				require.Equal(t, 0, code, errOut)
				return out
			}
			noObjection := map[string]string{"claude": "", "codex": "", "gemini": "{}\n"}[agent]

			assert.Equal(t, noObjection, write("sess-a"), "the first write claims src")
			assert.Equal(t, noObjection, write("sess-a"), "the claiming session's own lease does not refuse it")
			assert.Contains(t, write("sess-b"), "deny", "another session is refused")

			out, errOut, code := ctRun(t, repo, env, "", "history", "--json", "--event", "refused")
			require.Equal(t, 0, code, errOut)
			var evs []map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &evs), out)
			require.Len(t, evs, 1, out)
			assert.Equal(t, "sess-b", evs[0]["actor"], "the refused session, not GUARD_OWNER (unset)")
			assert.Contains(t, evs[0]["detail"], "agent-hook: deny ("+agent+"): ")

			out, errOut, code = ctRun(t, repo, env, "", "scan", "--json", repo)
			require.Equal(t, 0, code, errOut)
			locks := ctLocks(t, out)
			require.Len(t, locks, 1, out)
			assert.Equal(t, "sess-a", locks[0]["owner"], "the claim is the session's")
		})
	}
}

// One check over two repositories judges each path as its own repository's owner
// (.guard.toml), and each refusal's event names the owner that was judged there.
func TestHistoryRecordsEachRefusalAsTheOwnerJudged(t *testing.T) {
	ann := ctRepo(t, map[string]string{".guard.toml": "owner = \"ann\"\n", "src/a.go": "a\n"})
	ben := ctRepo(t, map[string]string{".guard.toml": "owner = \"ben\"\n", "src/b.go": "b\n"})
	ctWrite(t, ann, "src/LOCK.txt", "owner: carol\n"+ctLive)
	ctWrite(t, ben, "src/LOCK.txt", "owner: carol\n"+ctLive)
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}

	_, _, code := ctRun(t, ann, env, "", "check", filepath.Join(ann, "src", "a.go"), filepath.Join(ben, "src", "b.go"))
	require.Equal(t, 1, code)
	out, errOut, code := ctRun(t, ann, env, "", "history", "--json")
	require.Equal(t, 0, code, errOut)
	var evs []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &evs), out)
	actors := map[string]any{}
	for _, ev := range evs {
		actors[ev["path"].(string)] = ev["actor"]
	}
	assert.Equal(t, map[string]any{filepath.Join(ann, "src", "LOCK.txt"): "ann", filepath.Join(ben, "src", "LOCK.txt"): "ben"}, actors, out)
}
