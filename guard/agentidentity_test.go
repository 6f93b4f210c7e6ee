package guard

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

func TestAnAgentIsItsGuardOwnerElseItsSession(t *testing.T) {
	base := Identity{Owner: "dev@laptop", Host: "laptop"}
	tests := []struct {
		name, guardOwner, session, want, from string
	}{
		{"GUARD_OWNER wins over the session", "alice", "sess-1", "alice", FromGuardOwner},
		{"the session id without GUARD_OWNER", "", "sess-1", "sess-1", FromSession},
		{"guard's usual identity without either", "", "", "dev@laptop", FromUsual},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := &Env{Getenv: func(k string) string {
				if k == "GUARD_OWNER" {
					return tc.guardOwner
				}
				return ""
			}}
			id := AgentIdentity(env, tc.session, base)
			if tc.guardOwner != "" {
				// The caller resolved base from GUARD_OWNER already, as ResolveIdentity does.
				id = AgentIdentity(env, tc.session, Identity{Owner: tc.guardOwner, Host: "laptop"})
			}
			assert.Equal(t, Identity{Owner: tc.want, Host: "laptop"}, id)
			assert.Equal(t, tc.from, AgentSource(env, tc.session))
			if tc.want != base.Owner {
				assert.Equal(t, tc.want, AgentOwner(env, tc.session))
			} else {
				assert.Empty(t, AgentOwner(env, tc.session))
			}
		})
	}
}

// The agent hook and guard mcp of one client are both its children; the hook's
// record, keyed by the client's process, tells guard mcp the session the hook judges.
// Real processes: this test process plays the client, a real sh stands between it
// and the "hook" as Claude Code's sh -c does.
func TestGuardMCPFindsTheSessionItsClientsHookJudged(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process ancestry is read from /proc")
	}
	repo := t.TempDir()
	guardtest.InitRepo(t, repo)
	home := t.TempDir()
	vars := map[string]string{"HOME": home}
	env := &Env{Dir: repo, Getenv: func(k string) string { return vars[k] }}

	// The hook runs under sh -c, child of the client (this process).
	sh := exec.Command("sh", "-c", "sleep 30; true") // two commands: sh cannot exec sleep
	require.NoError(t, sh.Start())
	t.Cleanup(func() { _ = sh.Process.Kill(); _ = sh.Wait() })
	waitForComm(t, sh.Process.Pid, "sh")
	hook := *env
	hook.ParentPID = sh.Process.Pid
	server := *env
	server.ParentPID = os.Getpid()

	sid, how := ClientSession(&server)
	assert.Empty(t, sid, "no record yet: %s", how)
	RecordAgentSession(&hook, "gemini", "sess-7")
	sid, how = ClientSession(&server)
	assert.Equal(t, "sess-7", sid)
	assert.Contains(t, how, "gemini session the agent hook judged in client process "+strconv.Itoa(os.Getpid()))

	common := filepath.Join(home, ".local", "state", "guard", "agent-sessions", strconv.Itoa(os.Getpid()))
	data, err := os.ReadFile(common)
	require.NoError(t, err, "the record lives in guard's state directory, outside the project")
	assert.NoDirExists(t, filepath.Join(repo, ".git", "guard"), "nothing is added to the project or its git directory")
	rec, err := ParseSessionRecord(data)
	require.NoError(t, err)
	assert.Equal(t, os.Getpid(), rec.PID)
	assert.NotEmpty(t, rec.Start)

	// A record whose process start time differs is a reused process id: ignored.
	rec.Start = "1"
	require.NoError(t, os.WriteFile(common, []byte(formatSession(rec)), 0o600))
	sid, _ = ClientSession(&server)
	assert.Empty(t, sid)

	// Claude Code's own variable is the fallback.
	vars["CLAUDE_CODE_SESSION_ID"] = "claude-sess"
	sid, how = ClientSession(&server)
	assert.Equal(t, "claude-sess", sid)
	assert.Equal(t, "CLAUDE_CODE_SESSION_ID", how)
}

func TestAShellBetweenClientAndHookIsSkipped(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process ancestry is read from /proc")
	}
	// sh -c with two commands cannot exec the last one: sh stays the parent of sleep.
	sh := exec.Command("sh", "-c", "sleep 30; true")
	require.NoError(t, sh.Start())
	t.Cleanup(func() { _ = sh.Process.Kill(); _ = sh.Wait() })
	waitForComm(t, sh.Process.Pid, "sh")
	env := &Env{ParentPID: sh.Process.Pid, Getenv: func(string) string { return "" }}
	assert.Equal(t, os.Getpid(), ClientPID(env), "the shell is skipped: the client is its parent")
	env.Getenv = func(k string) string {
		if k == "CLAUDE_PID" {
			return "4242"
		}
		return ""
	}
	assert.Equal(t, 4242, ClientPID(env), "CLAUDE_PID, which Claude Code gives its hooks, wins")
}

func waitForComm(t *testing.T, pid int, comm string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if _, c, ok := procParent(pid); ok && c == comm {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func FuzzParseSessionRecord(f *testing.F) {
	f.Add([]byte(formatSession(SessionRecord{Agent: "claude", SessionID: "s-1", PID: 42, Start: "123"})))
	f.Add([]byte("agent: x\nsession: y\npid: 0\n"))
	f.Add([]byte("session: a\npid: 7\npid: 8\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseSessionRecord(data)
		if err != nil {
			return
		}
		// What parses is a record RecordAgentSession could have written, and reads back the same.
		again, err := ParseSessionRecord([]byte(formatSession(r)))
		if err == nil {
			assert.Equal(t, r, again)
		}
	})
}
