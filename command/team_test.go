package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/lockcore"
)

func teamDir(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		body := "owner: lead\ncreated: 2026-11-29T11:00:00\nhost: " + lockcore.TeamLockHost(n) + "\n" + lockcore.TeamSectionsTemplate()
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(body), 0o644))
	}
	return dir
}

func runTeam(t *testing.T, dir string, o TeamOptions) (int, string, string) {
	t.Helper()
	env, out, errb := checkEnv(dir, map[string]string{"GUARD_HOST": "LAPTOP"})
	o.Env = env
	err := RunTeam(o)
	if err != nil {
		errb.WriteString(err.Error())
	}
	return exitcode.Of(err), out.String(), errb.String()
}

func TestRunTeamEditsTheHostsTeamLock(t *testing.T) {
	dir := teamDir(t, "LOCK.team.LAPTOP.txt", "LOCK.team.OTHER.txt")
	lock := filepath.Join(dir, "LOCK.team.LAPTOP.txt")

	code, out, _ := runTeam(t, dir, TeamOptions{Action: "checkin", Agent: "agent-1", Role: "writer", Task: "docs"})
	require.Equal(t, 0, code)
	assert.Contains(t, out, lock)
	code, _, _ = runTeam(t, dir, TeamOptions{Action: "claim", Agent: "agent-1", Resources: []string{"src", "docs"}})
	require.Equal(t, 0, code)

	before, _ := os.ReadFile(lock)
	code, _, errs := runTeam(t, dir, TeamOptions{Action: "claim", Agent: "agent-2", Resources: []string{"src/a.go"}})
	assert.Equal(t, 1, code, "a conflict is exit 1")
	assert.Contains(t, errs, "agent-1")
	after, _ := os.ReadFile(lock)
	assert.Equal(t, string(before), string(after))

	code, out, _ = runTeam(t, dir, TeamOptions{Action: "claim", Agent: "agent-2", Resources: []string{"src/a.go"}, Queue: true, JSON: true})
	require.Equal(t, 0, code)
	var res TeamResultJSON
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.True(t, res.Waiting)
	assert.True(t, res.OK)

	code, _, _ = runTeam(t, dir, TeamOptions{Action: "claim", Agent: "agent-2", Tools: []string{"MCP::Server"}})
	require.Equal(t, 0, code)
	code, _, _ = runTeam(t, dir, TeamOptions{Action: "message", Agent: "agent-2", Msg: "db is slow today"})
	require.Equal(t, 0, code)

	code, out, _ = runTeam(t, dir, TeamOptions{Action: "show", JSON: true})
	require.Equal(t, 0, code)
	var show TeamShowJSON
	require.NoError(t, json.Unmarshal([]byte(out), &show))
	assert.Equal(t, lock, show.Path)
	require.Len(t, show.Presence, 1)
	assert.Equal(t, "agent-1", show.Presence[0].Agent)
	assert.Equal(t, []TeamBundleJSON{
		{Agent: "agent-1", State: "EDITING", Order: 1, Resources: []string{"src", "docs"}},
		{Agent: "agent-2", State: "WAITING", Order: 2, Resources: []string{"src/a.go"}},
	}, show.FileClaims)
	assert.Equal(t, []TeamBundleJSON{{Agent: "agent-2", State: "USING", Order: 1, Resources: []string{"mcp::server"}}}, show.ToolClaims)
	require.Len(t, show.Messages, 1)
	assert.Equal(t, "db is slow today", show.Messages[0].Text)

	code, out, _ = runTeam(t, dir, TeamOptions{Action: "show"})
	require.Equal(t, 0, code)
	assert.Contains(t, out, "agent-2 WAITING order=000002: src/a.go")

	code, out, _ = runTeam(t, dir, TeamOptions{Action: "checkout", Agent: "agent-1"})
	require.Equal(t, 0, code)
	assert.Contains(t, out, "team lock removed")
	assert.NoFileExists(t, lock, "the presence log was empty after the checkout")
	assert.FileExists(t, lock+".guard")
	assert.FileExists(t, filepath.Join(dir, "LOCK.team.OTHER.txt"))

	code, _, errs = runTeam(t, dir, TeamOptions{Action: "show"})
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "no team lock of host LAPTOP")
}

func TestRunTeamInputErrors(t *testing.T) {
	cases := []struct {
		name  string
		names []string
		o     TeamOptions
		code  int
		msg   string
	}{
		{"no team lock of this host is exit 1", []string{"LOCK.team.OTHER.txt"}, TeamOptions{Action: "show"}, 1, "no team lock of host LAPTOP"},
		{"two team locks of this host need --lock-name", []string{"LOCK.team.LAPTOP.txt", "LOCK.team.docs.LAPTOP.txt"}, TeamOptions{Action: "show"}, 2, "--lock-name"},
		{"--lock-name picks one of them", []string{"LOCK.team.LAPTOP.txt", "LOCK.team.docs.LAPTOP.txt"}, TeamOptions{Action: "show", LockName: "LOCK.team.docs.LAPTOP.txt"}, 0, ""},
		{"a lock name outside DIR is refused", []string{"LOCK.team.LAPTOP.txt"}, TeamOptions{Action: "show", LockName: "../LOCK.team.LAPTOP.txt"}, 2, "not a team lock name"},
		{"a check-in needs role and task", []string{"LOCK.team.LAPTOP.txt"}, TeamOptions{Action: "checkin", Agent: "a"}, 2, "--role and --task"},
		{"a claim needs a resource", []string{"LOCK.team.LAPTOP.txt"}, TeamOptions{Action: "claim", Agent: "a"}, 2, "--resource or --tool"},
		{"a claim of files and tools at once is refused", []string{"LOCK.team.LAPTOP.txt"}, TeamOptions{Action: "claim", Agent: "a", Resources: []string{"x"}, Tools: []string{"y"}}, 2, "not both"},
		{"a release with --queue is refused", []string{"LOCK.team.LAPTOP.txt"}, TeamOptions{Action: "release", Agent: "a", Resources: []string{"x"}, Queue: true}, 2, "--queue"},
		{"a path leaving the project is refused", []string{"LOCK.team.LAPTOP.txt"}, TeamOptions{Action: "claim", Agent: "a", Resources: []string{"../outside"}}, 2, "segments"},
		{"an agent with a newline is refused", []string{"LOCK.team.LAPTOP.txt"}, TeamOptions{Action: "checkout", Agent: "a\nb"}, 2, "agent"},
		{"a message needs text", []string{"LOCK.team.LAPTOP.txt"}, TeamOptions{Action: "message", Agent: "a"}, 2, "--msg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := teamDir(t, c.names...)
			snapshot := map[string]string{}
			for _, n := range c.names {
				b, _ := os.ReadFile(filepath.Join(dir, n))
				snapshot[n] = string(b)
			}
			code, _, errs := runTeam(t, dir, c.o)
			assert.Equal(t, c.code, code, errs)
			assert.Contains(t, errs, c.msg)
			for n, want := range snapshot {
				b, _ := os.ReadFile(filepath.Join(dir, n))
				assert.Equal(t, want, string(b), "%s must be unchanged", n)
			}
		})
	}
}

func TestRunTeamDefaultsTheAgentToTheOwnerIdentity(t *testing.T) {
	dir := teamDir(t, "LOCK.team.LAPTOP.txt")
	env, _, errb := checkEnv(dir, map[string]string{"GUARD_HOST": "LAPTOP", "GUARD_OWNER": "session-42"})
	err := RunTeam(TeamOptions{Env: env, Action: "checkin", Role: "r", Task: "t"})
	require.NoError(t, err, errb.String())
	b, err := os.ReadFile(filepath.Join(dir, "LOCK.team.LAPTOP.txt"))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(b), "[loop-01] | [session-42] | r | t | 2026-11-29T12:00:00+00:00"), string(b))
}

func TestRunTeamLockNameMatchesTheFileIgnoringCase(t *testing.T) {
	dir := teamDir(t, "LOCK.team.laptop.txt")
	code, out, errs := runTeam(t, dir, TeamOptions{Action: "checkin", LockName: "LOCK.team.LAPTOP.txt", Agent: "agent-1", Role: "writer", Task: "docs"})
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, filepath.Join(dir, "LOCK.team.laptop.txt"))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotEqual(t, "LOCK.team.LAPTOP.txt", e.Name(), "no second spelling of the lock")
	}
}
