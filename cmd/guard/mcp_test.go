package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mcpClient is a real MCP client (the SDK's) connected to the built binary's `guard
// mcp`, started in dir with ctRun's pinned environment plus env.
type mcpClient struct {
	*sdk.ClientSession
	mu       sync.Mutex
	progress []*sdk.ProgressNotificationParams
	updates  chan string
}

func startMCP(t *testing.T, dir string, env []string, args ...string) *mcpClient {
	t.Helper()
	c := &mcpClient{updates: make(chan string, 16)}
	client := sdk.NewClient(&sdk.Implementation{Name: "guard-test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.progress = append(c.progress, r.Params)
		},
		ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
			c.updates <- r.Params.URI
		},
	})
	cmd := exec.Command(guardBin, append([]string{"mcp"}, args...)...)
	cmd.Dir = dir
	cmd.Env = ctEnv(t, env)
	cmd.Stderr = io.Discard
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	c.ClientSession = cs
	return c
}

// call calls a tool; it returns the exit code guard gives in the result's _meta, the
// text, and the structured content.
func (c *mcpClient) call(t *testing.T, tool string, args map[string]any) (int, string, map[string]any) {
	t.Helper()
	return c.callCtx(t, context.Background(), tool, args)
}

func (c *mcpClient) callCtx(t *testing.T, ctx context.Context, tool string, args map[string]any) (int, string, map[string]any) {
	t.Helper()
	params := &sdk.CallToolParams{Name: tool, Arguments: args}
	params.SetProgressToken("p-" + tool)
	res, err := c.CallTool(ctx, params)
	require.NoError(t, err, "a tool failure is a tool result, never a protocol error")
	var text []string
	for _, ct := range res.Content {
		if tc, ok := ct.(*sdk.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	code, ok := res.Meta["guard/exit_code"].(float64)
	require.True(t, ok, "every result carries guard's exit code: %v %v %v", args, res.Meta, text)
	assert.Equal(t, code > 1 || (code == 1 && tool != "check" && tool != "status" && tool != "wait"), res.IsError, "isError is set exactly for failures: %v", text)
	var doc map[string]any
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &doc))
	}
	return int(code), strings.Join(text, "\n"), doc
}

func jsonOf(t *testing.T, s string) map[string]any {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &doc), s)
	return doc
}

// The tools are guard's commands: each returns exactly the JSON the command prints
// (CONTRACT.md section 12), as structured content and as text.
func TestMCPToolsReturnTheCommandsJSON(t *testing.T) {
	repo := ctRepo(t, map[string]string{"locked/a.go": "package a\n", "free/x.txt": "x\n"})
	lock := ctWrite(t, repo, "locked/LOCK.txt", "owner: alice\npurpose: the parser rewrite\ncreated: 2026-11-01T09:00:00\nexpires_after: 100000d\n")
	env := []string{"GUARD_OWNER=bob"}
	c := startMCP(t, repo, env)

	tools, err := c.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		assert.NotEmpty(t, tl.Description, tl.Name)
	}
	assert.ElementsMatch(t, []string{"status", "check", "lock", "renew", "unlock", "wait", "history"}, names)

	cliOut, _, cliCode := ctRun(t, repo, env, "", "check", "--json", "locked/a.go")
	code, text, doc := c.call(t, "check", map[string]any{"path": "locked/a.go"})
	assert.Equal(t, 1, cliCode)
	assert.Equal(t, cliCode, code, "a refusal is a verdict: exit 1, not a tool error")
	assert.Equal(t, jsonOf(t, cliOut), doc, "check returns guard check --json")
	assert.Contains(t, text, lock)
	assert.Contains(t, text, "alice")

	cliOut, _, cliCode = ctRun(t, repo, env, "", "status", "--json", "free")
	code, _, doc = c.call(t, "status", map[string]any{"path": "free"})
	assert.Equal(t, 0, cliCode)
	assert.Equal(t, 0, code)
	assert.Equal(t, jsonOf(t, cliOut), doc)

	code, text, doc = c.call(t, "lock", map[string]any{"path": "free", "purpose": "the docs", "expires": "2h"})
	require.Equal(t, 0, code, text)
	assert.Equal(t, "created", doc["action"])
	assert.Equal(t, filepath.Join(repo, "free", "LOCK.txt"), doc["path"])
	body := ctRead(t, filepath.Join(repo, "free", "LOCK.txt"))
	assert.Contains(t, body, "owner: bob\n")
	assert.Contains(t, body, "purpose: the docs\n")

	code, text, doc = c.call(t, "renew", map[string]any{"path": "free"})
	require.Equal(t, 0, code, text)
	assert.Equal(t, filepath.Join(repo, "free", "LOCK.txt"), doc["path"])

	code, text, _ = c.call(t, "unlock", map[string]any{"path": "free"})
	require.Equal(t, 0, code, text)
	assert.NoFileExists(t, filepath.Join(repo, "free", "LOCK.txt"))
}

// A failure is a tool result with isError, guard's reason and what to do now; the
// server answers bad input and goes on (CONTRACT.md section 12).
func TestMCPFailuresAreToolErrorsAndTheServerGoesOn(t *testing.T) {
	repo := ctRepo(t, map[string]string{"locked/a.go": "package a\n"})
	lock := ctWrite(t, repo, "locked/LOCK.txt", "owner: alice\npurpose: the parser rewrite\n"+ctLive)
	c := startMCP(t, repo, []string{"GUARD_OWNER=bob"})

	code, text, _ := c.call(t, "lock", map[string]any{"path": "locked", "purpose": "mine now"})
	assert.Equal(t, 1, code)
	assert.Contains(t, text, lock)
	assert.Contains(t, text, "alice")
	assert.Contains(t, text, "what now: call wait with this path")
	assert.Contains(t, ctRead(t, lock), "owner: alice", "the lock is untouched")

	code, text, _ = c.call(t, "unlock", map[string]any{"path": "locked"})
	assert.Equal(t, 1, code, "never another's lock")
	assert.Contains(t, text, "alice")
	assert.FileExists(t, lock)

	for _, bad := range []map[string]any{
		{"path": "x", "kind": "user"},
		{"path": "x", "kind": "condition"},
		{"path": "x", "scope": "../up"},
		{"path": "x", "expires": "soon"},
		{"path": "x", "resource": "db://a"},
	} {
		code, text, _ = c.call(t, "lock", bad)
		assert.Equal(t, 2, code, "%v: %s", bad, text)
		assert.True(t, strings.HasPrefix(text, "guard: "), text)
	}
	code, _, _ = c.call(t, "check", map[string]any{})
	assert.Equal(t, 2, code)
	code, _, _ = c.call(t, "wait", map[string]any{"path": "locked", "timeout": 3601})
	assert.Equal(t, 2, code, "at most an hour")

	// Raw lines that are no request are answered, and the session goes on.
	cmd := exec.Command(guardBin, "mcp")
	cmd.Dir, cmd.Env = repo, ctEnv(t, nil)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
not json at all
[1,2]
{"jsonrpc":"1.0","id":7}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"status","arguments":{"path":"locked"}}}
`)
	out, err := cmd.Output()
	require.NoError(t, err, "the server ends cleanly when its input does")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	assert.Contains(t, string(out), `"code":-32700`)
	assert.Contains(t, string(out), `"id":7`)
	assert.Contains(t, lines[len(lines)-1]+string(out), `"id":2,"result"`, "the call after the bad lines is answered:\n%s", out)
}

// An agent's claim through guard mcp is owned by the identity the agent hook judges
// that agent's calls as, so its own lock never refuses its own write, another
// session's write is refused, and agent-release at the session's end releases it.
func TestMCPClaimsAsTheSessionTheAgentHookJudges(t *testing.T) {
	// The hook and the server share the session's HOME, as a client's children do.
	home := t.TempDir()
	write := func(t *testing.T, repo, agent, session, file string) string {
		tool := map[string]string{"claude": "Write", "gemini": "write_file"}[agent]
		in := map[string]any{"session_id": session, "cwd": repo, "hook_event_name": map[string]string{"claude": "PreToolUse", "gemini": "BeforeTool"}[agent],
			"tool_name": tool, "tool_input": map[string]any{"file_path": file, "content": "x\n"}}
		data, err := json.Marshal(in)
		require.NoError(t, err)
		out, errOut, code := ctRun(t, repo, []string{"HOME=" + home}, string(data), "agent-hook", agent)
		require.Equal(t, 0, code, errOut)
		return out
	}
	t.Run("claude passes CLAUDE_CODE_SESSION_ID to the servers it starts", func(t *testing.T) {
		repo := ctRepo(t, map[string]string{"src/a.go": "package a\n"})
		c := startMCP(t, repo, []string{"HOME=" + home, "CLAUDE_CODE_SESSION_ID=sess-c1"})
		code, text, _ := c.call(t, "lock", map[string]any{"path": "src", "purpose": "refactor"})
		require.Equal(t, 0, code, text)
		assert.Contains(t, ctRead(t, filepath.Join(repo, "src", "LOCK.txt")), "owner: sess-c1\n")
		assert.Empty(t, write(t, repo, "claude", "sess-c1", filepath.Join(repo, "src", "a.go")), "its own claim never refuses its write")
		assert.Contains(t, write(t, repo, "claude", "sess-other", filepath.Join(repo, "src", "a.go")), `"permissionDecision":"deny"`)

		out, errOut, code := ctRun(t, repo, []string{"HOME=" + home}, `{"session_id":"sess-c1","cwd":"`+repo+`","hook_event_name":"SessionEnd"}`, "agent-release", "--hook", "claude")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, "released "+filepath.Join(repo, "src", "LOCK.txt")+"\n", out)
		assert.NoFileExists(t, filepath.Join(repo, "src", "LOCK.txt"))
	})
	t.Run("gemini tells its servers nothing: the hook's session record links them", func(t *testing.T) {
		// This test process is the client: the hook and the server are both its children.
		repo := ctRepo(t, map[string]string{"src/a.go": "package a\n"})
		c := startMCP(t, repo, []string{"HOME=" + home})
		assert.NotContains(t, write(t, repo, "gemini", "sess-g1", filepath.Join(repo, "free.txt")), "deny")
		code, text, _ := c.call(t, "lock", map[string]any{"path": "src", "purpose": "refactor"})
		require.Equal(t, 0, code, text)
		assert.Contains(t, ctRead(t, filepath.Join(repo, "src", "LOCK.txt")), "owner: sess-g1\n")
		assert.NotContains(t, write(t, repo, "gemini", "sess-g1", filepath.Join(repo, "src", "a.go")), `"deny"`)
		assert.Contains(t, write(t, repo, "gemini", "sess-g2", filepath.Join(repo, "src", "a.go")), `"deny"`)
		_, errOut, code := ctRun(t, repo, []string{"HOME=" + home}, `{"session_id":"sess-g2","cwd":"`+repo+`","hook_event_name":"SessionEnd"}`, "agent-release", "--hook", "gemini")
		require.Equal(t, 0, code, errOut)
		assert.FileExists(t, filepath.Join(repo, "src", "LOCK.txt"), "another session's end leaves it")
		_, errOut, code = ctRun(t, repo, []string{"HOME=" + home}, `{"session_id":"sess-g1","cwd":"`+repo+`","hook_event_name":"SessionEnd"}`, "agent-release", "--hook", "gemini")
		require.Equal(t, 0, code, errOut)
		assert.NoFileExists(t, filepath.Join(repo, "src", "LOCK.txt"))
	})
	t.Run("agents sharing one GUARD_OWNER end their sessions apart", func(t *testing.T) {
		repo := ctRepo(t, map[string]string{"src/a.go": "package a\n", "docs/d.md": "d\n"})
		home := t.TempDir() // no session record: each server knows its session from Claude Code
		env := func(session string) []string {
			return []string{"HOME=" + home, "GUARD_OWNER=team", "CLAUDE_CODE_SESSION_ID=" + session}
		}
		for session, dir := range map[string]string{"sess-a": "src", "sess-b": "docs"} {
			c := startMCP(t, repo, env(session))
			code, text, _ := c.call(t, "lock", map[string]any{"path": dir})
			require.Equal(t, 0, code, text)
			assert.Contains(t, ctRead(t, filepath.Join(repo, dir, "LOCK.txt")), "owner: team\n")
		}
		out, errOut, code := ctRun(t, repo, env("sess-a"), `{"session_id":"sess-a","cwd":"`+repo+`","hook_event_name":"SessionEnd"}`, "agent-release", "--hook", "claude")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, "released "+filepath.Join(repo, "src", "LOCK.txt")+"\n", out)
		assert.FileExists(t, filepath.Join(repo, "docs", "LOCK.txt"), "the other session's claim stays")
		out, errOut, code = ctRun(t, repo, env("sess-b"), `{"session_id":"sess-b","cwd":"`+repo+`","hook_event_name":"SessionEnd"}`, "agent-release", "--hook", "claude")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, "released "+filepath.Join(repo, "docs", "LOCK.txt")+"\n", out)
	})
	t.Run("--owner wins", func(t *testing.T) {
		repo := ctRepo(t, map[string]string{"src/a.go": "package a\n"})
		c := startMCP(t, repo, []string{"CLAUDE_CODE_SESSION_ID=sess-c1"}, "--owner", "carol")
		code, text, _ := c.call(t, "lock", map[string]any{"path": "src"})
		require.Equal(t, 0, code, text)
		assert.Contains(t, ctRead(t, filepath.Join(repo, "src", "LOCK.txt")), "owner: carol\n")
	})
}

// wait returns as soon as the lock that refused the path goes, reporting progress
// while it waits; at its limit it says timed_out; a cancelled call stops waiting.
func TestMCPWaitReturnsWhenTheAreaIsFree(t *testing.T) {
	repo := ctRepo(t, map[string]string{"locked/a.go": "package a\n"})
	lock := ctWrite(t, repo, "locked/LOCK.txt", "owner: alice\npurpose: the parser rewrite\n"+ctLive)
	c := startMCP(t, repo, []string{"GUARD_OWNER=bob"})

	code, text, doc := c.call(t, "wait", map[string]any{"path": "locked/a.go", "timeout": 1})
	require.Equal(t, 1, code, text)
	assert.Equal(t, true, doc["timed_out"])
	assert.Equal(t, false, doc["allowed"])

	go func() {
		time.Sleep(6 * time.Second) // past one progress tick
		_ = os.Remove(lock)
	}()
	start := time.Now()
	code, text, doc = c.call(t, "wait", map[string]any{"path": "locked/a.go", "timeout": 60})
	require.Equal(t, 0, code, text)
	assert.Equal(t, false, doc["timed_out"])
	assert.Equal(t, true, doc["allowed"])
	assert.Less(t, time.Since(start), 9*time.Second, "woken by the removal, not by a poll at the limit")
	c.mu.Lock()
	var msgs []string
	for _, p := range c.progress {
		if p.ProgressToken == "p-wait" {
			msgs = append(msgs, p.Message)
		}
	}
	c.mu.Unlock()
	require.NotEmpty(t, msgs, "progress notifications while waiting")
	assert.Contains(t, msgs[0], lock+" held by alice (the parser rewrite)")

	ctWrite(t, repo, "locked/LOCK.txt", "owner: alice\n"+ctLive)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start = time.Now()
	_, err := c.CallTool(ctx, &sdk.CallToolParams{Name: "wait", Arguments: map[string]any{"path": "locked/a.go", "timeout": 600}})
	assert.Error(t, err, "cancelled")
	assert.Less(t, time.Since(start), 5*time.Second)
	code, _, _ = c.call(t, "status", map[string]any{"path": "locked"})
	assert.Equal(t, 1, code, "the server goes on after a cancelled wait")
}

// guard://locks lists the project's active locks; a subscriber hears of each claim
// and release, from the watcher guard watch uses.
func TestMCPLocksResourceNotifiesSubscribers(t *testing.T) {
	repo := ctRepo(t, map[string]string{"a/x.txt": "x\n", "b/y.txt": "y\n"})
	first := ctWrite(t, repo, "a/LOCK.txt", "owner: alice\n"+ctLive)
	c := startMCP(t, repo, []string{"GUARD_OWNER=bob"})
	res, err := c.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "guard://locks"})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	doc := jsonOf(t, res.Contents[0].Text)
	assert.Equal(t, repo, doc["dir"])
	assert.Equal(t, true, doc["locked"])
	locks := doc["locks"].([]any)
	require.Len(t, locks, 1)
	assert.Equal(t, first, locks[0].(map[string]any)["path"])

	require.NoError(t, c.Subscribe(context.Background(), &sdk.SubscribeParams{URI: "guard://locks"}))
	_, errOut, code := ctRun(t, repo, []string{"GUARD_OWNER=carol"}, "", "lock", "b", "--no-contest")
	require.Equal(t, 0, code, errOut)
	select {
	case uri := <-c.updates:
		assert.Equal(t, "guard://locks", uri)
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/resources/updated after a claim")
	}
	res, err = c.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "guard://locks"})
	require.NoError(t, err)
	assert.Len(t, jsonOf(t, res.Contents[0].Text)["locks"].([]any), 2)
	for len(c.updates) > 0 {
		<-c.updates
	}
	_, errOut, code = ctRun(t, repo, []string{"GUARD_OWNER=carol"}, "", "unlock", "b")
	require.Equal(t, 0, code, errOut)
	select {
	case <-c.updates:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/resources/updated after a release")
	}
}

// LOCK.permissions.json rules on guard mcp's own tools are honoured: the clients send
// mcp__guard__* (Claude Code) and mcp_guard_* (Gemini CLI) calls through the hook.
func TestPermissionsRulesOnGuardMCPToolsAreHonoured(t *testing.T) {
	repo := ctRepo(t, nil)
	ctWrite(t, repo, "LOCK.permissions.json", `{"format": "lock-permissions-v1", "default": "allow",
		"rules": {"deny": ["mcp__guard__unlock", "mcp_guard_unlock"], "ask": ["mcp__guard__lock"]}}`)
	hook := func(agent, tool string) string {
		event := map[string]string{"claude": "PreToolUse", "gemini": "BeforeTool"}[agent]
		in := `{"session_id":"s-1","cwd":"` + repo + `","hook_event_name":"` + event + `","tool_name":"` + tool + `","tool_input":{"path":"src"}}`
		out, errOut, code := ctRun(t, repo, nil, in, "agent-hook", agent)
		require.Equal(t, 0, code, errOut)
		return out
	}
	assert.Contains(t, hook("claude", "mcp__guard__unlock"), `"permissionDecision":"deny"`)
	assert.Contains(t, hook("claude", "mcp__guard__lock"), `"permissionDecision":"ask"`)
	assert.Empty(t, hook("claude", "mcp__guard__check"))
	assert.Contains(t, hook("gemini", "mcp_guard_unlock"), `"decision":"deny"`)
}

// With --release-on-exit (agent-install registers Codex's server so: Codex runs no
// session-end hook of guard's) the server releases its own claims when its client goes,
// and leaves the locks it did not make.
func TestMCPReleasesItsClaimsWhenTheClientGoes(t *testing.T) {
	repo := ctRepo(t, map[string]string{"src/a.go": "package a\n", "other/b.go": "package b\n"})
	other := ctWrite(t, repo, "other/LOCK.txt", "owner: bob\n"+ctLive)
	c := startMCP(t, repo, []string{"GUARD_OWNER=bob"}, "--release-on-exit")
	code, text, _ := c.call(t, "lock", map[string]any{"path": "src"})
	require.Equal(t, 0, code, text)
	assert.FileExists(t, filepath.Join(repo, "src", "LOCK.txt"))
	require.NoError(t, c.Close())
	assert.NoFileExists(t, filepath.Join(repo, "src", "LOCK.txt"), "released when the client went")
	assert.FileExists(t, other, "a lock of the same owner it did not make stays")

	c = startMCP(t, repo, []string{"GUARD_OWNER=bob"})
	code, text, _ = c.call(t, "lock", map[string]any{"path": "src"})
	require.Equal(t, 0, code, text)
	require.NoError(t, c.Close())
	assert.FileExists(t, filepath.Join(repo, "src", "LOCK.txt"), "without the flag the claim outlives the server (agent-release frees it)")
}
