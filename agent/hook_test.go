package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
)

// fixtureNow is the moment every fixture is judged at.
var fixtureNow = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// fixtureTree builds the tree the recorded hook inputs refer to as {{ROOT}}:
//
//	repo/.git/
//	repo/locked/LOCK.txt              alice's live lock
//	repo/mine/LOCK.txt                the agent's own lock (owner sess-1)
//	repo/soft/LOCK.txt                a soft lock (warns only)
//	repo/pushonly/LOCK.txt            blocks push only
//	repo/expired/LOCK.txt             expired an hour ago
//	repo/guarded/LOCK.permissions.json
//	repo/broken/LOCK.permissions.json  not JSON
//	repo/teamhere/LOCK.team.laptop.txt   a team lock of this host (laptop)
//	repo/teamthere/LOCK.team.desktop.txt another host's team lock
//	repo/private/PRIVATE.txt
//	repo/public/PUBLIC.txt
//	repo/free/
func fixtureTree(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	write := func(rel, body string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "repo", ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "repo", "free", "deep", "er"), 0o755))
	write("repo/locked/LOCK.txt", "owner: alice\ncreated: 2026-11-29T09:30:00\nhost: laptop\nexpires_after: 2h\nmode: hard\npurpose: refactoring the parser\nscope: project\n")
	write("repo/locked/sub/file.go", "package sub\n")
	write("repo/mine/LOCK.txt", "owner: sess-1\ncreated: 2026-11-29T09:30:00\nhost: laptop\nexpires_after: 2h\n")
	write("repo/soft/LOCK.txt", "owner: bob\ncreated: 2026-11-29T09:30:00\nexpires_after: 2h\nmode: soft\npurpose: just looking\n")
	write("repo/pushonly/LOCK.txt", "owner: carol\ncreated: 2026-11-29T09:30:00\nexpires_after: 2h\noperations: push\npurpose: release freeze\n")
	write("repo/expired/LOCK.txt", "owner: dave\ncreated: 2026-11-29T07:00:00\nexpires_after: 2h\n")
	write("repo/guarded/LOCK.permissions.json", `{
  "format": "lock-permissions-v1",
  "default": "allow",
  "rules": {
    "allow": ["Read(**)", "Bash(python:*)"],
    "deny": ["Bash(rm:*)", "Write(**/CREDENTIALS/**)", "Read(**/.env)", "mcp__*__delete*"],
    "ask": ["Write(docs/**)", "Bash(git push:*)", "WebFetch"]
  },
  "applies_to_agents": ["*"]
}
`)
	write("repo/broken/LOCK.permissions.json", "{ not json")
	write("repo/teamhere/LOCK.team.laptop.txt", "owner: lead\ncreated: 2026-11-29T08:00:00\nhost: laptop\nexpires_after: 8h\npurpose: this host's agents share it\n")
	write("repo/teamthere/LOCK.team.desktop.txt", "owner: other-lead\ncreated: 2026-11-29T08:00:00\nhost: desktop\nexpires_after: 8h\npurpose: the desktop's agents work here\n")
	write("repo/private/PRIVATE.txt", "Not before the security review.\n")
	write("repo/public/PUBLIC.txt", "approved: 2026-11-01 by the maintainers\n")
	return root
}

func fixtureEnv(root, stdin string, getenv map[string]string) (*guard.Env, *bytes.Buffer, *bytes.Buffer) {
	e := envtest.New(envtest.Stdin(stdin), envtest.At(fixtureNow), envtest.Identity("tester", "laptop"),
		envtest.Dir(filepath.Join(root, "repo")), envtest.Vars(getenv), envtest.Executable("/usr/local/bin/guard"))
	return e.Env, e.Out, e.Err
}

// fakeClassify stands in for the publish package's classifier.
func fakeClassify(args []string, dir string) (string, []string, bool, error) {
	if len(args) >= 2 && args[0] == "npm" && args[1] == "publish" {
		for _, a := range args[2:] {
			if a == "--dry-run" {
				return "registry-upload", []string{dir}, true, nil
			}
		}
		return "registry-upload", []string{dir}, false, nil
	}
	return "", nil, false, nil
}

// TestRecordedHookInputs feeds every testdata/agent/<agent>-*.json (a hook input as the
// agent sends it, with {{ROOT}} for the fixture tree) to the hook and compares the exact
// stdout and exit code with <name>.golden ("exit N" on the first line, then stdout).
func TestRecordedHookInputs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "agent", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		agentName, _, _ := strings.Cut(name, "-")
		t.Run(name, func(t *testing.T) {
			root := fixtureTree(t)
			raw, err := os.ReadFile(file)
			require.NoError(t, err)
			input := strings.ReplaceAll(string(raw), "{{ROOT}}", root)
			env, out, _ := fixtureEnv(root, input, map[string]string{"HOME": filepath.Join(root, "home")})
			// The recorded inputs test the reading of calls: no sandbox rewrite
			// (sandbox_test.go and auto_test.go test it).
			err = RunHook(HookOptions{Env: env, Agent: agentName, Classify: fakeClassify, Sandbox: guard.SandboxOff})
			got := "exit " + strconv.Itoa(exitcode.Of(err)) + "\n" + strings.ReplaceAll(out.String(), root, "{{ROOT}}")
			golden := strings.TrimSuffix(file, ".json") + ".golden"
			guardtest.Golden(t, golden, got)
		})
	}
}

func TestIdentityIsGuardOwnerElseTheSessionID(t *testing.T) {
	root := fixtureTree(t)
	call := &Call{SessionID: "sess-9"}
	env, _, _ := fixtureEnv(root, "", map[string]string{})
	assert.Equal(t, guard.Identity{Owner: "sess-9", Host: "laptop"}, Identity(env, call, subjectOf(t, env, root)))
	env, _, _ = fixtureEnv(root, "", map[string]string{"GUARD_OWNER": "alice", "GUARD_HOST": "ci"})
	assert.Equal(t, guard.Identity{Owner: "alice", Host: "ci"}, Identity(env, call, subjectOf(t, env, root)))
	env, _, _ = fixtureEnv(root, "", map[string]string{})
	assert.Equal(t, guard.Identity{Owner: "tester@laptop", Host: "laptop"}, Identity(env, &Call{}, subjectOf(t, env, root)))
}

func TestAnUnknownAgentIsAUsageError(t *testing.T) {
	root := fixtureTree(t)
	env, out, _ := fixtureEnv(root, "{}", nil)
	err := RunHook(HookOptions{Env: env, Agent: "vim"})
	assert.Equal(t, exitcode.Usage, exitcode.Of(err))
	assert.EqualError(t, err, `agent-hook: unknown agent "vim" (supported: claude, gemini, codex)`)
	assert.Empty(t, out.String())
}

func TestTheOwnerOfALockWritesThroughIt(t *testing.T) {
	root := fixtureTree(t)
	in := `{"session_id":"x","cwd":"` + root + `/repo","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + root + `/repo/locked/a.go","content":""}}`
	env, out, _ := fixtureEnv(root, in, map[string]string{"GUARD_OWNER": "alice"})
	require.NoError(t, RunHook(HookOptions{Env: env, Agent: Claude}))
	assert.Empty(t, out.String())
}

func TestSoftLocksWarnOnStderrOnly(t *testing.T) {
	root := fixtureTree(t)
	in := `{"session_id":"x","cwd":"` + root + `/repo","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"` + root + `/repo/soft/a.go"}}`
	env, out, errb := fixtureEnv(root, in, nil)
	require.NoError(t, RunHook(HookOptions{Env: env, Agent: Claude}))
	assert.Empty(t, out.String())
	assert.Contains(t, errb.String(), "guard: warning: soft lock "+root+"/repo/soft/LOCK.txt (owner bob)")
}

func TestAgentHookAtATerminalExplainsItselfInsteadOfWaiting(t *testing.T) {
	root := fixtureTree(t)
	env, out, _ := fixtureEnv(root, "", nil)
	env.StdinTTY = true
	err := RunHook(HookOptions{Env: env, Agent: Claude})
	assert.Equal(t, exitcode.Usage, exitcode.Of(err))
	assert.EqualError(t, err, "agent-hook: reads the claude hook's JSON on stdin; see guard agent-install to let the agent run it")
	assert.Empty(t, out.String())
}

func TestAPanicWhileDecidingIsADenial(t *testing.T) {
	root := fixtureTree(t)
	in := `{"session_id":"s","cwd":"` + root + `/repo","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm publish"}}`
	env, out, _ := fixtureEnv(root, in, nil)
	boom := func([]string, string) (string, []string, bool, error) { panic("classifier bug") }
	require.NoError(t, RunHook(HookOptions{Env: env, Agent: Claude, Classify: boom}))
	assert.Equal(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"guard: internal error (classifier bug); guard refuses when it cannot decide (fail closed). Please report it."}}`+"\n", out.String())
}

func TestWritingAMarkerInAnyCaseAsksForApproval(t *testing.T) {
	// On a case-insensitive file system public.txt is PUBLIC.txt: an agent must not
	// approve a publication by spelling the marker in lower case.
	cases := []struct{ name, file, want string }{
		{"PUBLIC.txt asks", "PUBLIC.txt", "approves publishing"},
		{"public.txt asks as PUBLIC.txt does", "public.txt", "approves publishing"},
		{"Private.TXT asks as PRIVATE.txt does", "Private.TXT", "keeps this project from being published"},
		{".Claude/Settings.json asks as .claude/settings.json does", ".Claude/Settings.json", "an agent's settings file"},
		{".guard.toml asks: it says what a scoped lock covers", ".guard.toml", "guard's configuration"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := fixtureTree(t)
			env, _, _ := fixtureEnv(root, "", map[string]string{})
			p := filepath.Join(root, "repo", "free", tc.file)
			call := &Call{Agent: Claude, SessionID: "sess-1", Cwd: filepath.Join(root, "repo"), Tool: "Write", Action: "Write", Kind: KindWrite, Paths: []string{p}}
			v, err := Decide(env, call, DecideOptions{})
			require.NoError(t, err)
			assert.Equal(t, Ask, v.Decision)
			assert.Contains(t, v.Reason, tc.want)
		})
	}
}

func TestRemovingAnAgentsSettingsFolderAsksForApproval(t *testing.T) {
	cases := []struct{ name, command string }{
		{"rm -rf .claude takes the hook's settings along", "rm -rf .claude"},
		{"mv .gemini away takes the hook's settings along", "mv .gemini /tmp/x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := fixtureTree(t)
			env, _, _ := fixtureEnv(root, "", map[string]string{})
			call := &Call{Agent: Claude, SessionID: "sess-1", Cwd: filepath.Join(root, "repo", "free"), Tool: "Bash", Action: "Bash", Kind: KindShell, Command: tc.command}
			v, err := Decide(env, call, DecideOptions{})
			require.NoError(t, err)
			assert.Equal(t, Ask, v.Decision)
			assert.Contains(t, v.Reason, "an agent's settings")
		})
	}
}

func subjectOf(t *testing.T, env *guard.Env, dir string) *guard.Subject {
	t.Helper()
	s, err := guard.ResolveSubject(env, dir, guard.Identity{})
	require.NoError(t, err)
	return s
}
