package agent

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadCallNormalisesEveryToolKind(t *testing.T) {
	cases := []struct {
		name, agent, input string
		want               Call
	}{
		{"a Claude Write", Claude, `{"session_id":"s","cwd":"/w","tool_name":"Write","tool_input":{"file_path":"/w/a.go","content":"x"}}`,
			Call{Agent: Claude, SessionID: "s", Cwd: "/w", Tool: "Write", Action: "Write", Kind: KindWrite, Paths: []string{"/w/a.go"}}},
		{"a Claude MultiEdit is an Edit", Claude, `{"cwd":"/w","tool_name":"MultiEdit","tool_input":{"file_path":"b/../a.go","edits":[]}}`,
			Call{Agent: Claude, Cwd: "/w", Tool: "MultiEdit", Action: "Edit", Kind: KindWrite, Paths: []string{"/w/a.go"}}},
		{"a Claude NotebookEdit", Claude, `{"cwd":"/w","tool_name":"NotebookEdit","tool_input":{"notebook_path":"/n.ipynb"}}`,
			Call{Agent: Claude, Cwd: "/w", Tool: "NotebookEdit", Action: "NotebookEdit", Kind: KindWrite, Paths: []string{"/n.ipynb"}}},
		{"a Claude Grep without a path searches cwd", Claude, `{"cwd":"/w/","tool_name":"Grep","tool_input":{"pattern":"x"}}`,
			Call{Agent: Claude, Cwd: "/w", Tool: "Grep", Action: "Grep", Kind: KindRead, Paths: []string{"/w"}, Pattern: "x"}},
		{"a Claude MCP tool", Claude, `{"cwd":"/w","tool_name":"mcp__gh__x","tool_input":{}}`,
			Call{Agent: Claude, Cwd: "/w", Tool: "mcp__gh__x", Action: "mcp__gh__x", Kind: KindMCP}},
		{"a missing cwd is the current directory", Claude, `{"tool_name":"Bash","tool_input":{"command":"ls"}}`,
			Call{Agent: Claude, Cwd: "/here", Tool: "Bash", Action: "Bash", Kind: KindShell, Command: "ls"}},
		{"a Claude permission mode", Claude, `{"cwd":"/w","tool_name":"Bash","permission_mode":"acceptEdits","tool_input":{"command":"ls", "timeout": 5}}`,
			Call{Agent: Claude, Cwd: "/w", Tool: "Bash", Action: "Bash", Kind: KindShell, Command: "ls", PermissionMode: "acceptEdits"}},
		{"a Gemini shell command runs in its directory", Gemini, `{"cwd":"/w","tool_name":"run_shell_command","tool_input":{"command":"ls","directory":"sub"}}`,
			Call{Agent: Gemini, Cwd: "/w/sub", Tool: "run_shell_command", Action: "Bash", Kind: KindShell, Command: "ls"}},
		{"a Gemini read_many_files keeps plain paths", Gemini, `{"cwd":"/w","tool_name":"read_many_files","tool_input":{"paths":["a.md","src/*.go"]}}`,
			Call{Agent: Gemini, Cwd: "/w", Tool: "read_many_files", Action: "Read", Kind: KindRead, Paths: []string{"/w/a.md"}}},
		{"a Codex apply_patch writes every file it names", Codex, `{"cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a.go\n+x\n*** Update File: /abs/b.go\n*** Move to: c/d.go\n*** Delete File: a.go\n*** End Patch"}}`,
			Call{Agent: Codex, Cwd: "/w", Tool: "apply_patch", Action: "Edit", Kind: KindWrite, Paths: []string{"/w/a.go", "/abs/b.go", "/w/c/d.go"}}},
		{"a Codex Bash call is Claude Code's", Codex, `{"cwd":"/w","tool_name":"Bash","tool_input":{"command":"ls"}}`,
			Call{Agent: Codex, Cwd: "/w", Tool: "Bash", Action: "Bash", Kind: KindShell, Command: "ls"}},
		{"a Gemini web search is another tool", Gemini, `{"cwd":"/w","tool_name":"google_web_search","tool_input":{"query":"x"}}`,
			Call{Agent: Gemini, Cwd: "/w", Tool: "google_web_search", Action: "google_web_search", Kind: KindOther}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ReadCall(tc.agent, strings.NewReader(tc.input), "/here")
			require.NoError(t, err)
			if tc.agent == Claude {
				// tool_input's own text, for a rewrite to change one field of.
				var doc struct {
					ToolInput json.RawMessage `json:"tool_input"`
				}
				require.NoError(t, json.Unmarshal([]byte(tc.input), &doc))
				assert.Equal(t, string(doc.ToolInput), string(c.Input))
			}
			c.Input = nil
			assert.Equal(t, tc.want, *c)
		})
	}
}

func TestATargetBelowAFileIsJudgedWithoutFailing(t *testing.T) {
	root := fixtureTree(t)
	in := `{"session_id":"s","cwd":"` + root + `/repo","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + root + `/repo/locked/sub/file.go/x"}}`
	env, out, _ := fixtureEnv(root, in, nil)
	require.NoError(t, RunHook(HookOptions{Env: env, Agent: Claude}))
	assert.Contains(t, out.String(), "held by alice", "the lock above still stops it")
	assert.NotContains(t, out.String(), "permissions file")
}

func FuzzReadCall(f *testing.F) {
	for _, s := range []string{
		`{"session_id":"s","cwd":"/w","tool_name":"Write","tool_input":{"file_path":"a"}}`,
		`{"tool_name":"Bash","tool_input":{"command":1}}`, `{"tool_name":"run_shell_command","tool_input":{"command":"x","dir_path":"../.."}}`,
		`{"tool_name":"read_many_files","tool_input":{"paths":[1]}}`, `null`, `{}`, `{"cwd":"rel","tool_name":"X"}`,
		`{"tool_name":"Glob","tool_input":{"pattern":"**","path":""}}`, `{"hook_event_name":"Stop","tool_name":"x"}`,
	} {
		f.Add(Claude, s)
		f.Add(Gemini, s)
		f.Add(Codex, s)
	}
	for _, s := range []string{
		`{"tool_name":"apply_patch","tool_input":{"command":"*** Update File: a\n*** Move to: \n"}}`,
		`{"tool_name":"apply_patch","tool_input":{"patch":"*** Add File: ../../x"}}`,
	} {
		f.Add(Codex, s)
	}
	f.Fuzz(func(t *testing.T, agent, input string) {
		c, err := ReadCall(agent, strings.NewReader(input), "/here")
		if err != nil {
			return
		}
		if !filepath.IsAbs(c.Cwd) || c.Tool == "" || c.Kind == "" {
			t.Fatalf("incomplete call %+v from %q", c, input)
		}
		for _, p := range c.Paths {
			if !filepath.IsAbs(p) {
				t.Fatalf("relative path %q from %q", p, input)
			}
		}
	})
}

func FuzzSettingsObject(f *testing.F) {
	for _, s := range []string{existingClaudeSettings, `{}`, `{"hooks":{"PreToolUse":[{"hooks":[{"command":"guard agent-hook claude"}]}]}}`, `{"a":1,"a":2}`, `[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := parseObject([]byte(s))
		if err != nil {
			return
		}
		if _, err := addHook(o, Claude, "/g/guard agent-hook claude"); err != nil {
			return
		}
		out, err := o.render()
		if err != nil {
			t.Fatalf("render: %v", err)
		}
		back, err := parseObject(out)
		if err != nil {
			t.Fatalf("rendered settings do not parse: %v\n%s", err, out)
		}
		if action, err := addHook(back, Claude, "/g/guard agent-hook claude"); err != nil || action != "unchanged" {
			t.Fatalf("second install: %q %v\n%s", action, err, out)
		}
		if action, err := removeHook(back, Claude); err != nil || action != "removed" {
			t.Fatalf("uninstall: %q %v", action, err)
		}
	})
}
