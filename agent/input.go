package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/guard"
)

// Agents guard has a hook protocol for.
const (
	Claude = "claude"
	Gemini = "gemini"
	Codex  = "codex"
)

// Agents lists the supported agents, in the order help texts show them.
var Agents = []string{Claude, Gemini, Codex}

// Kind says what a tool call does, as far as guard judges it.
type Kind string

// The kinds of tool call.
const (
	// KindWrite creates, changes or deletes the files in Paths.
	KindWrite Kind = "write"
	// KindRead only reads Paths; only LOCK.permissions.json rules apply.
	KindRead Kind = "read"
	// KindShell runs Command in Cwd.
	KindShell Kind = "shell"
	// KindMCP calls an MCP server's tool; only permissions rules apply.
	KindMCP Kind = "mcp"
	// KindOther is any other tool (web search, todo lists, sub-agents): only explicit
	// permissions rules naming it apply.
	KindOther Kind = "other"
)

// Call is one tool call an agent is about to make, in agent-neutral form.
type Call struct {
	// Agent is the agent's name (claude, gemini): the name applies_to_agents uses.
	Agent string
	// SessionID identifies the agent's session (its identity without GUARD_OWNER).
	SessionID string
	// Cwd is the agent's working directory (absolute).
	Cwd string
	// Tool is the tool's name as the agent calls it.
	Tool string
	// Action is the tool word of LOCK.permissions.json rules for it: Write, Edit,
	// NotebookEdit, Read, Glob, Grep, Bash, the MCP tool's name, or Tool.
	Action string
	Kind   Kind
	// Paths are the absolute files or folders the call writes or reads.
	Paths []string
	// Pattern is the search pattern of Glob and Grep calls.
	Pattern string
	// Command is a shell call's command line.
	Command string
	// PermissionMode is the client's permission mode when it sent the call
	// (permission_mode: Claude Code's default, acceptEdits, plan, dontAsk,
	// bypassPermissions, auto; Codex's bypassPermissions for approval never, else
	// default; "" when absent).
	PermissionMode string
	// Input is tool_input as it came, its JSON text untouched: a
	// rewrite (updatedInput) changes one field and hands every other back as it was.
	Input json.RawMessage
}

// MalformedError is hook input guard cannot read: the hook denies the call (fail
// closed) and says why.
type MalformedError struct{ Reason string }

// Error says what is wrong with the input.
func (e *MalformedError) Error() string { return "malformed hook input: " + e.Reason }

func malformed(format string, args ...any) error {
	return &MalformedError{Reason: fmt.Sprintf(format, args...)}
}

// maxInput bounds the hook input read from stdin; a tool call with a larger payload
// (a Write of a huge file) is still judged by its path, so the content is skipped.
const maxInput = 64 << 20

// ReadCall reads one hook input of agent from r. dir stands in for a missing cwd.
func ReadCall(agent string, r io.Reader, dir string) (*Call, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, malformed("cannot read stdin: %v", err)
	}
	if len(data) > maxInput {
		return nil, malformed("more than %d bytes on stdin", maxInput)
	}
	switch agent {
	case Claude:
		return parseClaude(data, dir)
	case Gemini:
		return parseGemini(data, dir)
	case Codex:
		return parseCodex(data, dir)
	}
	return nil, fmt.Errorf("unknown agent %q (supported: %s)", agent, strings.Join(Agents, ", "))
}

// envelope is the part of the hook input both Claude Code and Gemini CLI send.
type envelope struct {
	SessionID, Cwd, Event, ToolName, PermissionMode *string
}

// decodeEnvelope reads the envelope, tool_input (decoded one level, and as its JSON
// text) and the absolute working directory.
func decodeEnvelope(data []byte, dir string, event string) (*envelope, map[string]json.RawMessage, json.RawMessage, string, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, nil, nil, "", malformed("no JSON on stdin")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		return nil, nil, nil, "", malformed("stdin is not a JSON object: %v", err)
	}
	var env envelope
	fields := []struct {
		key string
		dst **string
	}{{"hook_event_name", &env.Event}, {"tool_name", &env.ToolName}, {"session_id", &env.SessionID}, {"cwd", &env.Cwd}, {"permission_mode", &env.PermissionMode}}
	for _, f := range fields {
		key, dst := f.key, f.dst
		v, ok := raw[key]
		if !ok || string(v) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, nil, nil, "", malformed("%s is not a string", key)
		}
		*dst = &s
	}
	if env.Event != nil && *env.Event != event {
		return nil, nil, nil, "", malformed("hook_event_name is %q; this hook answers %s events only", *env.Event, event)
	}
	if env.ToolName == nil || strings.TrimSpace(*env.ToolName) == "" {
		return nil, nil, nil, "", malformed("tool_name is missing")
	}
	input := map[string]json.RawMessage{}
	rawInput := raw["tool_input"]
	if rawInput != nil && string(rawInput) != "null" {
		if err := json.Unmarshal(rawInput, &input); err != nil {
			return nil, nil, nil, "", malformed("tool_input is not a JSON object")
		}
	}
	cwd := dir
	if env.Cwd != nil && *env.Cwd != "" {
		cwd = *env.Cwd
	}
	if !filepath.IsAbs(cwd) {
		return nil, nil, nil, "", malformed("cwd %q is not an absolute path", cwd)
	}
	return &env, input, rawInput, filepath.Clean(cwd), nil
}

// stringField reads a string field of tool_input: missing is "" (ok false), any other
// type is malformed.
func stringField(input map[string]json.RawMessage, key string) (string, bool, error) {
	v, ok := input[key]
	if !ok || string(v) == "null" {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false, malformed("tool_input.%s is not a string", key)
	}
	return s, true, nil
}

// requiredPath reads a path field that must be present and non-empty, made absolute
// against cwd (Claude Code sends absolute paths; Gemini CLI may send relative ones).
func requiredPath(input map[string]json.RawMessage, cwd string, keys ...string) (string, error) {
	p, err := optionalPath(input, "", keys...)
	switch {
	case err != nil:
		return "", err
	case p == "":
		return "", malformed("tool_input.%s is missing", keys[0])
	}
	return absPath(p, cwd), nil
}

// optionalPath reads the first non-empty path field of keys, made absolute against
// cwd; without one it is cwd.
func optionalPath(input map[string]json.RawMessage, cwd string, keys ...string) (string, error) {
	for _, key := range keys {
		s, ok, err := stringField(input, key)
		if err != nil {
			return "", err
		}
		if ok && s != "" {
			return absPath(s, cwd), nil
		}
	}
	return cwd, nil
}

// absPath is p made absolute against cwd as the kernel reaches it (guard.KernelPath:
// a/link/../b lies above where link points). A path it cannot resolve (a loop of
// links) is kept as written, for the policy's own resolution to refuse.
func absPath(p, cwd string) string {
	if cwd == "" && !filepath.IsAbs(p) {
		return p // made absolute by the caller, which knows the folder
	}
	if r, err := guard.KernelPath(cwd, p); err == nil {
		return r
	}
	if !filepath.IsAbs(p) {
		p = cwd + string(filepath.Separator) + p
	}
	return p
}

func baseCall(agent string, env *envelope, cwd string) *Call {
	c := &Call{Agent: agent, Cwd: cwd, Tool: *env.ToolName}
	if env.SessionID != nil {
		c.SessionID = *env.SessionID
	}
	return c
}

// parseClaude reads Claude Code's PreToolUse input.
func parseClaude(data []byte, dir string) (*Call, error) {
	env, input, rawInput, cwd, err := decodeEnvelope(data, dir, "PreToolUse")
	if err != nil {
		return nil, err
	}
	c := baseCall(Claude, env, cwd)
	if env.PermissionMode != nil {
		c.PermissionMode = *env.PermissionMode
	}
	c.Input = rawInput
	return c, claudeTool(c, input, cwd)
}

// parseCodex reads Codex's PreToolUse input: Claude Code's wire format, with
// apply_patch (the patch text in tool_input.command) as its file-editing tool.
func parseCodex(data []byte, dir string) (*Call, error) {
	env, input, rawInput, cwd, err := decodeEnvelope(data, dir, "PreToolUse")
	if err != nil {
		return nil, err
	}
	c := baseCall(Codex, env, cwd)
	// Codex says bypassPermissions for approval never, default for every other
	// approval policy; a rewrite keeps the rest of tool_input as it came.
	if env.PermissionMode != nil {
		c.PermissionMode = *env.PermissionMode
	}
	c.Input = rawInput
	if c.Tool != "apply_patch" {
		return c, claudeTool(c, input, cwd)
	}
	c.Kind, c.Action = KindWrite, "Edit"
	var patch string
	for _, key := range []string{"command", "patch", "input"} {
		s, ok, err := stringField(input, key)
		if err != nil {
			return nil, err
		}
		if ok {
			patch = s
			break
		}
	}
	c.Paths = PatchPaths(patch, cwd)
	if len(c.Paths) == 0 {
		return nil, malformed("tool_input.command holds no patch with a file to add, update, delete or move")
	}
	return c, nil
}

// PatchPaths returns the files an apply_patch patch adds, updates, deletes or moves
// to (its `*** Add File:`, `*** Update File:`, `*** Delete File:` and `*** Move to:`
// lines), absolute against cwd, in order and without repeats.
func PatchPaths(patch, cwd string) []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				if rest = strings.TrimSpace(rest); rest != "" {
					p := absPath(rest, cwd)
					if !seen[p] {
						seen[p] = true
						out = append(out, p)
					}
				}
			}
		}
	}
	return out
}

// claudeTool reads tool_input of Claude Code's tools (also Codex's, which shares them).
func claudeTool(c *Call, input map[string]json.RawMessage, cwd string) error {
	var err error
	c.Action = c.Tool
	switch c.Tool {
	case "Write", "Edit", "MultiEdit":
		c.Kind = KindWrite
		if c.Tool == "MultiEdit" {
			c.Action = "Edit"
		}
		p, err := requiredPath(input, cwd, "file_path")
		if err != nil {
			return err
		}
		c.Paths = []string{p}
	case "NotebookEdit":
		c.Kind = KindWrite
		p, err := requiredPath(input, cwd, "notebook_path")
		if err != nil {
			return err
		}
		c.Paths = []string{p}
	case "Bash":
		c.Kind = KindShell
		cmd, ok, err := stringField(input, "command")
		if err != nil {
			return err
		}
		if !ok {
			return malformed("tool_input.command is missing")
		}
		c.Command = cmd
	case "Read", "NotebookRead":
		c.Kind = KindRead
		p, err := requiredPath(input, cwd, "file_path", "notebook_path")
		if err != nil {
			return err
		}
		c.Paths = []string{p}
	case "Glob", "Grep", "LS":
		c.Kind = KindRead
		if c.Pattern, _, err = stringField(input, "pattern"); err != nil {
			return err
		}
		p, err := optionalPath(input, cwd, "path")
		if err != nil {
			return err
		}
		c.Paths = []string{p}
	default:
		c.Kind = KindOther
		if strings.HasPrefix(c.Tool, "mcp__") {
			c.Kind = KindMCP
		}
	}
	return nil
}

// geminiActions maps Gemini CLI's built-in tools to the tool words of permissions
// rules, so one LOCK.permissions.json speaks to every agent.
var geminiActions = map[string]string{
	"write_file": "Write", "replace": "Edit", "run_shell_command": "Bash",
	"read_file": "Read", "read_many_files": "Read", "list_directory": "Read",
	"glob": "Glob", "search_file_content": "Grep", "grep_search": "Grep",
}

// parseGemini reads Gemini CLI's BeforeTool input.
func parseGemini(data []byte, dir string) (*Call, error) {
	env, input, rawInput, cwd, err := decodeEnvelope(data, dir, "BeforeTool")
	if err != nil {
		return nil, err
	}
	c := baseCall(Gemini, env, cwd)
	// Gemini CLI builds the tool again from a rewritten tool_input alone: every field
	// must come back.
	c.Input = rawInput
	c.Action = c.Tool
	if a, ok := geminiActions[c.Tool]; ok {
		c.Action = a
	}
	switch c.Tool {
	case "write_file", "replace":
		c.Kind = KindWrite
		p, err := requiredPath(input, cwd, "file_path", "absolute_path")
		if err != nil {
			return nil, err
		}
		c.Paths = []string{p}
	case "run_shell_command":
		c.Kind = KindShell
		cmd, ok, err := stringField(input, "command")
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, malformed("tool_input.command is missing")
		}
		c.Command = cmd
		// The command runs in directory (dir_path in newer versions), relative to
		// the project root.
		if c.Cwd, err = optionalPath(input, cwd, "dir_path", "directory"); err != nil {
			return nil, err
		}
	case "read_file":
		c.Kind = KindRead
		p, err := requiredPath(input, cwd, "absolute_path", "file_path")
		if err != nil {
			return nil, err
		}
		c.Paths = []string{p}
	case "read_many_files":
		c.Kind = KindRead
		var paths []string
		if v, ok := input["paths"]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, &paths); err != nil {
				return nil, malformed("tool_input.paths is not a list of strings")
			}
		}
		for _, p := range paths {
			if p != "" && !strings.ContainsAny(p, "*?[") {
				c.Paths = append(c.Paths, absPath(p, cwd))
			}
		}
		if len(c.Paths) == 0 {
			c.Paths = []string{cwd}
		}
	case "glob", "search_file_content", "grep_search", "list_directory":
		c.Kind = KindRead
		if c.Pattern, _, err = stringField(input, "pattern"); err != nil {
			return nil, err
		}
		p, err := optionalPath(input, cwd, "dir_path", "path")
		if err != nil {
			return nil, err
		}
		c.Paths = []string{p}
	default:
		c.Kind = KindOther
		if strings.HasPrefix(c.Tool, "mcp__") {
			c.Kind = KindMCP
		}
	}
	return c, nil
}

// IsMalformed reports whether err is unreadable hook input.
func IsMalformed(err error) bool {
	var m *MalformedError
	return errors.As(err, &m)
}
