package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

func writeCall(root, session, rel string) string {
	in := map[string]any{
		"session_id": session, "cwd": filepath.Join(root, "repo"), "hook_event_name": "PreToolUse",
		"tool_name": "Write", "tool_input": map[string]any{"file_path": filepath.Join(root, "repo", rel), "content": "x"},
	}
	data, _ := json.Marshal(in)
	return string(data)
}

// runClaimHook runs the hook with --claim at the given moment.
func runClaimHook(t *testing.T, root, session, rel string, at time.Time) (stdout, stderr string) {
	t.Helper()
	env, out, errb := fixtureEnv(root, writeCall(root, session, rel), nil)
	env.Clock = lockcore.FixedClock(at)
	require.NoError(t, RunHook(HookOptions{Env: env, Agent: Claude, Claim: true}))
	return out.String(), errb.String()
}

func TestClaimOnWriteLeasesTheTopLevelFolderUntilReleased(t *testing.T) {
	root := fixtureTree(t)
	lease := filepath.Join(root, "repo", "free", "LOCK.txt")

	out, errb := runClaimHook(t, root, "sess-1", "free/deep/er/new.go", fixtureNow)
	assert.Empty(t, out, "the write itself is let through")
	assert.Contains(t, errb, "guard: claimed "+lease+" (created, expires after 30m)")
	l, err := lockcore.ReadLock(lease, time.UTC)
	require.NoError(t, err)
	assert.Equal(t, "sess-1", l.Owner)
	assert.Equal(t, "laptop", l.Host)
	assert.Equal(t, 30*time.Minute, l.ExpiresAfter)
	assert.Equal(t, fixtureNow, l.Created)
	assert.True(t, strings.HasPrefix(l.Purpose, LeasePurpose+": claude session sess-1"), l.Purpose)

	t.Run("another agent is now kept out of the area", func(t *testing.T) {
		out, _ := runClaimHook(t, root, "sess-2", "free/other.go", fixtureNow.Add(time.Minute))
		assert.Contains(t, out, `"permissionDecision":"deny"`)
		assert.Contains(t, out, "held by sess-1")
		assert.Contains(t, out, "purpose: "+LeasePurpose)
	})

	t.Run("a write soon after leaves the lease as it is", func(t *testing.T) {
		_, errb := runClaimHook(t, root, "sess-1", "free/a.go", fixtureNow.Add(5*time.Minute))
		assert.NotContains(t, errb, "claimed")
		l, err := lockcore.ReadLock(lease, time.UTC)
		require.NoError(t, err)
		assert.Equal(t, fixtureNow, l.Created)
	})

	t.Run("a write after a quarter of the lifetime renews it", func(t *testing.T) {
		at := fixtureNow.Add(10 * time.Minute)
		_, errb := runClaimHook(t, root, "sess-1", "free/a.go", at)
		assert.Contains(t, errb, "guard: claimed "+lease+" (renewed)")
		l, err := lockcore.ReadLock(lease, time.UTC)
		require.NoError(t, err)
		assert.Equal(t, at, l.Created)
	})

	t.Run("agent-release removes the lease of its identity only", func(t *testing.T) {
		env, out, _ := fixtureEnv(root, "", nil)
		err := RunRelease(t.Context(), ReleaseOptions{Env: env, Owner: "sess-2"})
		require.NoError(t, err)
		assert.Empty(t, out.String())
		assert.FileExists(t, lease)

		env, out, _ = fixtureEnv(root, `{"session_id":"sess-1","cwd":"`+root+`/repo/free","hook_event_name":"SessionEnd","reason":"exit"}`, nil)
		require.NoError(t, RunRelease(t.Context(), ReleaseOptions{Env: env, Hook: Claude}))
		assert.Equal(t, "released "+lease+"\n", out.String())
		assert.NoFileExists(t, lease)
		assert.FileExists(t, filepath.Join(root, "repo", "mine", "LOCK.txt"), "a lock the identity took by hand is not a lease")
	})
}

// Agents sharing one GUARD_OWNER claim as it, and each session's end releases the
// leases that session took, not the other's.
func TestAgentReleaseOfASharedOwnerFreesItsOwnSessionsLeases(t *testing.T) {
	root := fixtureTree(t)
	lease := filepath.Join(root, "repo", "free", "LOCK.txt")
	shared := map[string]string{"GUARD_OWNER": "team"}
	env, _, errb := fixtureEnv(root, writeCall(root, "sess-a", "free/a.go"), shared)
	require.NoError(t, RunHook(HookOptions{Env: env, Agent: Claude, Claim: true}))
	require.Contains(t, errb.String(), "guard: claimed "+lease)
	l, err := lockcore.ReadLock(lease, time.UTC)
	require.NoError(t, err)
	assert.Equal(t, "team", l.Owner)

	end := func(session string) string {
		env, out, _ := fixtureEnv(root, `{"session_id":"`+session+`","cwd":"`+root+`/repo","hook_event_name":"SessionEnd"}`, shared)
		require.NoError(t, RunRelease(t.Context(), ReleaseOptions{Env: env, Hook: Claude}))
		return out.String()
	}
	assert.Empty(t, end("sess-b"), "another session of the same owner leaves it")
	assert.FileExists(t, lease)
	assert.Equal(t, "released "+lease+"\n", end("sess-a"))
	assert.NoFileExists(t, lease)
}

func TestClaimOnWriteLeavesHeldAndRootAreasAlone(t *testing.T) {
	cases := []struct {
		name, rel string
	}{
		{"a file in the repository root", "README.md"},
		{"an area under the agent's own lock", "mine/a.go"},
		{"an area under a soft lock of someone else", "soft/a.go"},
		{"a folder that does not exist yet", "newdir/a.go"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := fixtureTree(t)
			before := lockFiles(t, root)
			out, errb := runClaimHook(t, root, "sess-1", tc.rel, fixtureNow)
			assert.Empty(t, out)
			assert.NotContains(t, errb, "claimed")
			assert.Equal(t, before, lockFiles(t, root))
		})
	}
}

func lockFiles(t *testing.T, root string) []string {
	var out []string
	require.NoError(t, filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && lockcore.IsLockName(info.Name()) {
			data, _ := os.ReadFile(p)
			out = append(out, p+"\n"+string(data))
		}
		return nil
	}))
	return out
}

func TestClaimOnWriteChecksIntoTheTeamLockOfItsHost(t *testing.T) {
	root := fixtureTree(t)
	area := filepath.Join(root, "repo", "team")
	require.NoError(t, os.MkdirAll(filepath.Join(area, "src"), 0o755))
	got, err := lockcore.Acquire(lockcore.Spec{Dir: area, Kind: lockcore.Team, TeamHost: "laptop", Owner: "lead", Host: "laptop", Expires: "8h"},
		lockcore.AcquireOptions{Now: fixtureNow.Add(-time.Hour)})
	require.NoError(t, err)

	_, errb := runClaimHook(t, root, "sess-1", "team/src/a.go", fixtureNow)
	assert.Contains(t, errb, "guard: claimed src/a.go in "+got.Path+" (team file claim)")
	tl, err := lockcore.ReadTeamLock(got.Path)
	require.NoError(t, err)
	require.Len(t, tl.FileClaims, 1)
	assert.Equal(t, "sess-1", tl.FileClaims[0].Agent)
	assert.Equal(t, []string{"src/a.go"}, tl.FileClaims[0].Resources)

	out, _ := runClaimHook(t, root, "sess-2", "team/src/a.go", fixtureNow)
	assert.Contains(t, out, `"permissionDecision":"deny"`, "the team's other agent is stopped by the claim")
	assert.Contains(t, out, "claimed by agent sess-1")

	env, stdout, _ := fixtureEnv(root, "", map[string]string{"GUARD_OWNER": "sess-1"})
	env.Dir = filepath.Join(area, "src")
	require.NoError(t, RunRelease(t.Context(), ReleaseOptions{Env: env, JSON: true}))
	var res ReleaseResult
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &res))
	assert.Equal(t, ReleaseResult{Owner: "sess-1", Released: []string{}, TeamClaims: []ReleasedTeamLock{{Lock: got.Path, Resources: []string{"src/a.go"}}}, Errors: []string{}}, res)
	tl, err = lockcore.ReadTeamLock(got.Path)
	require.NoError(t, err)
	assert.Empty(t, tl.FileClaims)
}

func TestAgentReleaseNeedsAnIdentity(t *testing.T) {
	root := fixtureTree(t)
	var out bytes.Buffer
	env, _, _ := fixtureEnv(root, "", nil)
	env.Stdout = &out
	err := RunRelease(t.Context(), ReleaseOptions{Env: env})
	assert.Equal(t, exitcode.Usage, exitcode.Of(err))
	assert.ErrorContains(t, err, "whose leases?")
}

// The lease is claimed on guard lock's own path (a lockcore Handle through
// Policy.ClaimRequest): the file on disk carries the fence that the handle reports,
// and a second claim of the held area is refused by RESPECT as guard lock would be.
func TestClaimLeaseCarriesTheFenceItsHandleReports(t *testing.T) {
	root := fixtureTree(t)
	env, _, _ := fixtureEnv(root, "", nil)
	id := guard.Identity{Owner: "sess-1", Host: "laptop"}
	d := &decider{env: env, id: id, policy: guard.NewPolicy(env, id)}
	area := filepath.Join(root, "repo", "free")
	h, err := d.lease(lockcore.Spec{Dir: area, Kind: lockcore.Exclusive, Owner: "sess-1", Host: "laptop", Expires: "30m", Purpose: LeasePurpose})
	require.NoError(t, err)
	assert.Equal(t, lockcore.Created, h.Acquired().Action)
	assert.Equal(t, filepath.Join(area, "LOCK.txt"), h.Path())
	require.Positive(t, h.Fence())
	l, err := lockcore.ReadLock(h.Path(), time.UTC)
	require.NoError(t, err)
	fence, ok := l.Fence()
	require.True(t, ok, "a lease carries a fence")
	assert.Equal(t, h.Fence(), fence)
	assert.Equal(t, "sess-1", l.Owner)

	other := &decider{env: env, id: guard.Identity{Owner: "sess-2", Host: "laptop"}, policy: guard.NewPolicy(env, guard.Identity{Owner: "sess-2", Host: "laptop"})}
	_, err = other.lease(lockcore.Spec{Dir: filepath.Join(area, "deep"), Kind: lockcore.Exclusive, Owner: "sess-2", Host: "laptop", Expires: "30m", Purpose: LeasePurpose})
	var conflict *lockcore.ConflictError
	require.ErrorAs(t, err, &conflict, "RESPECT: the lease above covers the folder below")
	assert.Equal(t, h.Path(), conflict.Lock.Path)
}
