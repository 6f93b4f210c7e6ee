package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/atomicfile"
	"github.com/guardlocks/guard/internal/gitrun"
)

// InstallOptions are the inputs of `guard agent-install` and `guard agent-uninstall`.
type InstallOptions struct {
	Env *guard.Env
	// Agent is claude or gemini.
	Agent string
	// User edits the user's settings (~/.claude/settings.json); otherwise the
	// project's, at the repository root (or the current directory outside one).
	User bool
	JSON bool
	// Sandbox installs the hook with --sandbox ([agent] sandbox = true): every shell
	// command it lets through runs under guard sandbox, and one it cannot rewrite
	// there (no exact sandbox, a client mode that would lose a prompt) is refused.
	Sandbox bool
	// Local edits the per-machine project settings that are not committed (Claude
	// Code's .claude/settings.local.json; guard mcp then in the project's entry of
	// ~/.claude.json). Gemini CLI and Codex have no such file.
	Local bool
}

// InstallResult is what agent-install and agent-uninstall report (--json).
type InstallResult struct {
	Agent    string `json:"agent"`
	Settings string `json:"settings"`
	// Action is installed, updated (an older guard command replaced), unchanged,
	// removed, or absent (nothing of guard's to remove).
	Action  string  `json:"action"`
	Command string  `json:"command"`
	Backup  *string `json:"backup"`
	// CodexConfig is Codex's config.toml, where the hook's trust record is kept;
	// Trusted whether guard changed that record this time (codex only).
	CodexConfig string `json:"codex_config,omitempty"`
	Trusted     bool   `json:"trusted,omitempty"`
	// Release is the session-end hook's command (agent-release), "" where the
	// client has no session-end event guard can use (Codex).
	Release string `json:"release,omitempty"`
	// MCP is the file that registers guard mcp with the client, MCPAction what
	// happened to that entry (as Action), MCPCommand the command it runs.
	MCP        string `json:"mcp,omitempty"`
	MCPAction  string `json:"mcp_action,omitempty"`
	MCPCommand string `json:"mcp_command,omitempty"`
	// onPath is whether the settings name guard by its name on PATH.
	onPath bool
}

// BackupSuffix is appended to a settings file's name for the copy kept before guard
// changes it.
const BackupSuffix = ".guard-backup"

// hookSpec is where and how an agent runs a pre-tool hook.
type hookSpec struct {
	dir     string // the settings folder name (.claude, .gemini, .codex)
	file    string // the file in it that holds the hooks
	envDir  string // an environment variable that moves the user's folder
	event   string
	matcher string
	// endEvent is the session-end event that runs agent-release ("" where guard does
	// not install one: Codex runs a hooks.json entry only with a trust record whose
	// format guard knows for PreToolUse alone).
	endEvent string
}

var hookSpecs = map[string]hookSpec{
	// Claude Code: "*" matches every tool, so LOCK.permissions.json rules reach MCP
	// and other tools too.
	Claude: {dir: ".claude", file: "settings.json", envDir: "CLAUDE_CONFIG_DIR", event: "PreToolUse", matcher: "*", endEvent: "SessionEnd"},
	// Gemini CLI: the matcher is a regular expression over tool names.
	Gemini: {dir: ".gemini", file: "settings.json", event: "BeforeTool", matcher: ".*", endEvent: "SessionEnd"},
	// Codex: hooks.json in Claude Code's layout; the matcher is a regular expression
	// (Bash, apply_patch and mcp__server__tool reach PreToolUse).
	Codex: {dir: ".codex", file: "hooks.json", envDir: "CODEX_HOME", event: "PreToolUse", matcher: ".*"},
}

// HookCommand is the command line an agent's settings run: the guard binary's
// absolute path (quoted for the shell when needed) and `agent-hook <agent>`.
func HookCommand(exe, agent string) string {
	return shellQuote(exe) + " agent-hook " + agent
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == '@' || r == ',' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isGuardHook recognises guard's own entry by the shape agent-install writes: one
// program word (bare, or quoted as HookCommand quotes it) followed by exactly
// `agent-hook <agent>`, optionally followed by --claim (claim on write, which
// agent-install turns on) and --sandbox (agent-install --sandbox). The program's name does not matter (guard may be installed as guard-1.4,
// gd, or a go run binary), so a moved or renamed binary, or a --sandbox added or
// dropped, is updated in place rather than added twice, and agent-uninstall finds it.
// A command line of more words (a user's wrapper, `sh -c ...`, a flag guard does not
// write) is not guard's.
func isGuardHook(cmd, agent string) bool {
	line := strings.TrimSpace(cmd)
	for _, flag := range []string{" --sandbox", " --claim", " --sandbox"} {
		if rest, ok := strings.CutSuffix(line, flag); ok {
			line = strings.TrimSpace(rest)
		}
	}
	return isGuardCommand(line, " agent-hook "+agent)
}

// isGuardRelease recognises guard's session-end entry as isGuardHook does its
// pre-tool one: one program word followed by exactly `agent-release --hook <agent>`.
func isGuardRelease(cmd, agent string) bool {
	return isGuardCommand(strings.TrimSpace(cmd), " "+releaseArgs(agent))
}

func releaseArgs(agent string) string { return "agent-release --hook " + agent }

// isGuardCommand reports whether line is one program word followed by rest.
func isGuardCommand(line, rest string) bool {
	prog, ok := strings.CutSuffix(line, rest)
	if !ok {
		return false
	}
	return oneShellWord(strings.TrimSpace(prog))
}

// oneShellWord reports whether s is a single shell word with no expansion: a bare
// path, a single-quoted one (an apostrophe inside written as shellQuote writes it:
// close the quote, a backslash-escaped apostrophe, open again), or a double-quoted one
// without $, backquote or backslash.
func oneShellWord(s string) bool {
	switch {
	case s == "":
		return false
	case s[0] == '\'':
		rest := s
		for rest != "" {
			if rest[0] != '\'' {
				return false
			}
			end := strings.IndexByte(rest[1:], '\'')
			if end < 0 {
				return false
			}
			rest = rest[end+2:]
			if rest == "" {
				return true
			}
			if !strings.HasPrefix(rest, `\'`) {
				return false
			}
			rest = rest[2:]
		}
		return true
	case s[0] == '"':
		return len(s) >= 2 && s[len(s)-1] == '"' && !strings.ContainsAny(s[1:len(s)-1], "\"$`\\")
	}
	return !strings.ContainsAny(s, " \t\n;&|<>()$`\\\"'*?[]{}~#=")
}

// SettingsPath returns the settings file agent-install edits: the project's or the
// user's.
func SettingsPath(env *guard.Env, agent string, user bool) (string, error) {
	return settingsPath(env, agent, user, false)
}

// settingsPath is SettingsPath with local: the project's per-machine settings
// (Claude Code only).
func settingsPath(env *guard.Env, agent string, user, local bool) (string, error) {
	spec, ok := hookSpecs[agent]
	if !ok {
		return "", guard.Exitf(guard.ExitUsage, "unknown agent %q (supported: %s)", agent, strings.Join(Agents, ", "))
	}
	if local {
		if agent != Claude {
			return "", guard.Exitf(guard.ExitUsage, "--local: %s has no per-machine project settings file (Claude Code's is .claude/settings.local.json); install for the project or --user", agent)
		}
		return filepath.Join(projectRoot(env.Dir), spec.dir, "settings.local.json"), nil
	}
	if user {
		if spec.envDir != "" && env.Env(spec.envDir) != "" {
			return filepath.Join(env.Env(spec.envDir), spec.file), nil
		}
		home := env.Env("HOME")
		if home == "" {
			return "", guard.Exitf(guard.ExitUsage, "HOME is not set: cannot find the user's %s folder", spec.dir)
		}
		return filepath.Join(home, spec.dir, spec.file), nil
	}
	return filepath.Join(projectRoot(env.Dir), spec.dir, spec.file), nil
}

// projectRoot is the repository root holding dir, or dir itself outside one.
func projectRoot(dir string) string {
	if top := gitrun.RepoTop(dir); top != "" {
		return top
	}
	return dir
}

// RunInstall adds guard's hook to the agent's settings.
func RunInstall(opts InstallOptions) error {
	return runSettings(opts, true)
}

// RunUninstall removes guard's hook (and only it) from the agent's settings.
func RunUninstall(opts InstallOptions) error {
	return runSettings(opts, false)
}

func runSettings(opts InstallOptions, add bool) error {
	env := opts.Env
	if opts.User && opts.Local {
		return guard.Exitf(guard.ExitUsage, "--user and --local exclude each other")
	}
	path, err := settingsPath(env, opts.Agent, opts.User, opts.Local)
	if err != nil {
		return err
	}
	prog, onPath := guardProgram(env)
	if prog == "" && add {
		return guard.Exitf(guard.ExitUsage, "cannot tell where the guard binary is")
	}
	// A settings file that is a symbolic link (dotfiles) is edited where it points.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	// Claim on write is on: a write into a free area claims it for the session, and
	// the session-end hook releases it (agent-release).
	res := InstallResult{Agent: opts.Agent, Settings: path, Command: HookCommand(prog, opts.Agent) + " --claim", onPath: onPath}
	if opts.Sandbox {
		res.Command += " --sandbox"
	}
	if hookSpecs[opts.Agent].endEvent != "" {
		res.Release = shellQuote(prog) + " " + releaseArgs(opts.Agent)
	}
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return guard.Exitf(guard.ExitUsage, "%w", err)
	}
	root := newObject()
	if exists && len(bytes.TrimSpace(old)) > 0 {
		if root, err = parseObject(bytes.TrimPrefix(old, []byte("\xef\xbb\xbf"))); err != nil {
			return guard.Exitf(guard.ExitUsage, "%s: not a JSON object guard can edit (%v); nothing was changed", path, err)
		}
	}
	var changed bool
	res.Action, err = editSettings(root, opts, res, add)
	if err != nil {
		return guard.Exitf(guard.ExitUsage, "%s: %v; nothing was changed", path, err)
	}
	// guard mcp's own registration: in this file (Gemini CLI), or in the client's MCP
	// file (Claude Code's .mcp.json, enabled here; ~/.claude.json; Codex's config.toml).
	var mcpAction string
	res.MCP, mcpAction, err = registerMCP(opts, root, prog, add)
	if err != nil {
		return guard.Exitf(guard.ExitUsage, "%v", err)
	}
	if res.MCP == "" {
		res.MCP = path
		res.Action = combineActions(add, res.Action, mcpAction)
	} else if !opts.User && !opts.Local && opts.Agent == Claude {
		// enabledMcpjsonServers is in this file: count it as this file's change.
		if mcpAction == "installed" || mcpAction == "updated" || mcpAction == "removed" {
			res.Action = combineActions(add, res.Action, "updated")
		}
	}
	res.MCPAction = mcpAction
	if add {
		res.MCPCommand = prog + " mcp"
	}
	changed = res.Action == "installed" || res.Action == "updated" || res.Action == "removed"
	if opts.Agent == Codex {
		// Codex runs the hook only once its trust record is in config.toml: written
		// before the hook itself, so that a record guard cannot write leaves nothing
		// half-installed. An unchanged hooks.json still gets a missing record back.
		final := old
		if changed {
			if final, err = root.render(); err != nil {
				return guard.Exitf(guard.ExitUsage, "%s: %w", path, err)
			}
		}
		if res.CodexConfig, res.Trusted, err = codexTrust(env, path, old, final, add); err != nil {
			return guard.Exitf(guard.ExitUsage, "codex: %v; nothing was changed in %s", err, path)
		}
	}
	if changed {
		data, err := root.render()
		if err != nil {
			return guard.Exitf(guard.ExitUsage, "%s: %w", path, err)
		}
		data = reindent(data, detectIndent(old))
		if res.Action == "removed" {
			switch prev, err := os.ReadFile(path + BackupSuffix); {
			case err == nil && sameJSON(prev, data):
				// Nothing else changed since guard installed: put back the very bytes
				// the file had before, formatting included.
				data = prev
			case err != nil && len(root.keys) == 0:
				// guard created the file and its entry was all there was in it.
				if err := os.Remove(path); err != nil {
					return guard.Exitf(guard.ExitUsage, "%w", err)
				}
				_ = os.Remove(filepath.Dir(path)) // only if empty
				return report(env, opts, res)
			}
		}
		if exists {
			backup := path + BackupSuffix
			if err := writeFileAtomic(backup, old, fileMode(path)); err != nil {
				return guard.Exitf(guard.ExitUsage, "cannot keep a backup: %w; nothing was changed", err)
			}
			res.Backup = &backup
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return guard.Exitf(guard.ExitUsage, "%w", err)
		}
		if err := writeFileAtomic(path, data, fileMode(path)); err != nil {
			return guard.Exitf(guard.ExitUsage, "%w", err)
		}
	}
	if add && (!opts.User || primesForUser(env)) {
		// The hook's first search for a lock near a command it cannot read would
		// list the whole project while the agent waits; do it now instead (for a
		// user-wide install, in the repository it was run from, if any).
		PrimeNear(env, env.Dir)
	}
	return report(env, opts, res)
}

// primesForUser reports whether a user-wide install runs in a project to list: a
// repository, but not a home folder kept in git (dotfiles), which is no project.
func primesForUser(env *guard.Env) bool {
	top := gitrun.RepoTop(env.Dir)
	return top != "" && filepath.Clean(top) != filepath.Clean(env.Home())
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

func report(env *guard.Env, opts InstallOptions, res InstallResult) error {
	path := res.Settings
	if opts.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(res)
	}
	switch res.Action {
	case "installed", "updated":
		fmt.Fprintf(env.Stdout, "%s %s\n", res.Action, path)
		fmt.Fprintf(env.Stderr, "guard: %s hook runs %s before every tool call\n", hookSpecs[opts.Agent].event, res.Command)
		if res.Release != "" {
			fmt.Fprintf(env.Stderr, "guard: %s hook runs %s (releases the session's claims)\n", hookSpecs[opts.Agent].endEvent, res.Release)
		}
		if res.MCP != "" {
			fmt.Fprintf(env.Stderr, "guard: guard mcp is registered in %s (%s)\n", res.MCP, res.MCPAction)
		}
		if !res.onPath {
			fmt.Fprintf(env.Stderr, "guard: note: guard is not on PATH here, so the settings name %s, which other machines of a team may not have: put guard on PATH and run agent-install again\n", env.Executable)
		}
		if strings.Contains(env.Executable, string(filepath.Separator)+"go-build") {
			fmt.Fprintf(env.Stderr, "guard: warning: %s is a temporary binary of `go run`; install guard (go install) and run agent-install again\n", env.Executable)
		}
	case "removed":
		fmt.Fprintf(env.Stdout, "removed %s\n", path)
	case "unchanged":
		fmt.Fprintf(env.Stdout, "unchanged %s\n", path)
		fmt.Fprintf(env.Stderr, "guard: the hook is already installed\n")
	case "absent":
		fmt.Fprintf(env.Stdout, "absent %s\n", path)
		fmt.Fprintf(env.Stderr, "guard: no guard hook to remove\n")
	}
	if res.Backup != nil {
		fmt.Fprintf(env.Stderr, "guard: the previous settings are kept in %s\n", *res.Backup)
	}
	if opts.Agent == Codex {
		reportCodex(env, opts, res)
	}

	if opts.Agent == Gemini && !opts.User && !opts.JSON && res.Action != "removed" && res.Action != "absent" {
		top := filepath.Dir(filepath.Dir(res.Settings))
		if ok, trusted := geminiTrusts(env, top); !ok {
			fmt.Fprintf(env.Stderr, "guard: warning: Gemini CLI reads %s only in a folder it trusts, and %s is not trusted in %s (`gemini --skip-trust` runs without guard's hook there): trust it when Gemini CLI asks, or install for every folder with `guard agent-install gemini --user`\n", res.Settings, top, trusted)
		}
	}
	return nil
}

// editSettings adds (or removes) guard's entries in the settings object: the pre-tool
// hook, and the session-end release where the client has that event. It returns the
// file's action: installed when the pre-tool hook is new, updated when any entry
// changed, unchanged; removed or absent.
func editSettings(root *object, opts InstallOptions, res InstallResult, add bool) (string, error) {
	if !add {
		a, err := removeHook(root, opts.Agent)
		if err != nil {
			return "", err
		}
		b, err := removeRelease(root, opts.Agent)
		if err != nil {
			return "", err
		}
		return combineActions(false, a, b), nil
	}
	a, err := addHook(root, opts.Agent, res.Command)
	if err != nil {
		return "", err
	}
	if res.Release == "" {
		return a, nil
	}
	b, err := addRelease(root, opts.Agent, res.Release)
	if err != nil {
		return "", err
	}
	return combineActions(true, a, b), nil
}

// combineActions folds the actions of a file's parts into the file's: the first
// part's when it changed the file, else updated when any other part changed it.
func combineActions(add bool, first string, rest ...string) string {
	if first == "installed" || first == "removed" {
		return first
	}
	for _, a := range rest {
		switch a {
		case "installed", "updated":
			return "updated"
		case "removed":
			return "removed"
		}
	}
	_ = add
	return first
}

// hookGroup is one entry of an event's list in the settings: a matcher and its hooks.
// Groups are edited as ordered objects so that keys guard does not know survive.

// eventGroups reads the settings' "hooks" object (empty when there is none) and its
// list of groups for event.
func eventGroups(root *object, event string) (*object, []json.RawMessage, error) {
	hooks, err := root.childObject("hooks")
	if err != nil {
		return nil, nil, err
	}
	groups, err := hooks.childArray(event)
	if err != nil {
		return nil, nil, fmt.Errorf("hooks.%s: %w", event, err)
	}
	return hooks, groups, nil
}

// addHook makes sure the agent's pre-tool event list has exactly one guard entry
// running command. It returns installed, updated or unchanged.
func addHook(root *object, agent, command string) (string, error) {
	spec := hookSpecs[agent]
	return addEntry(root, agent, spec.event, spec.matcher, func(cmd string) bool { return isGuardHook(cmd, agent) }, command)
}

// addRelease makes sure the agent's session-end event list has exactly one guard
// entry running command (agent-release).
func addRelease(root *object, agent, command string) (string, error) {
	return addEntry(root, agent, hookSpecs[agent].endEvent, "", func(cmd string) bool { return isGuardRelease(cmd, agent) }, command)
}

// addEntry makes sure event's list has exactly one entry that ours recognises, running
// command, in a group with matcher ("" for none: events without tools).
func addEntry(root *object, agent, event, matcher string, ours func(string) bool, command string) (string, error) {
	hooks, groups, err := eventGroups(root, event)
	if err != nil {
		return "", err
	}
	found, action := false, "unchanged"
	for gi, graw := range groups {
		g, err := parseObject(graw)
		if err != nil {
			continue // not ours to judge; kept as it is
		}
		list, err := g.childArray("hooks")
		if err != nil {
			continue
		}
		var kept []json.RawMessage
		groupChanged := false
		for _, hraw := range list {
			h, err := parseObject(hraw)
			cmd := ""
			if err == nil {
				if c, ok := h.get("command"); ok {
					_ = json.Unmarshal(c, &cmd)
				}
			}
			if err != nil || !ours(cmd) {
				kept = append(kept, hraw)
				continue
			}
			if found {
				groupChanged, action = true, "updated" // a duplicate: dropped
				continue
			}
			found = true
			if cmd != command {
				if err := h.setValue("command", command); err != nil {
					return "", err
				}
				hraw, err = h.MarshalJSON()
				if err != nil {
					return "", err
				}
				groupChanged, action = true, "updated"
			}
			kept = append(kept, hraw)
		}
		if groupChanged {
			if err := g.setValue("hooks", nonNil(kept)); err != nil {
				return "", err
			}
			if groups[gi], err = g.MarshalJSON(); err != nil {
				return "", err
			}
		}
	}
	if !found {
		entry := newObject()
		if err := entry.setValue("type", "command"); err != nil {
			return "", err
		}
		if err := entry.setValue("command", command); err != nil {
			return "", err
		}
		if agent == Gemini && event == hookSpecs[agent].endEvent {
			_ = entry.setValue("name", "guard-release")
			_ = entry.setValue("description", "releases the session's claims (guard agent-release)")
		} else if agent == Gemini {
			_ = entry.setValue("name", "guard")
			_ = entry.setValue("description", "LOCK-SYSTEM locks and LOCK.permissions.json (guard agent-hook)")
		}
		g := newObject()
		if matcher != "" {
			_ = g.setValue("matcher", matcher)
		}
		_ = g.setValue("hooks", []*object{entry})
		raw, err := g.MarshalJSON()
		if err != nil {
			return "", err
		}
		groups = append(groups, raw)
		action = "installed"
	}
	if action == "unchanged" {
		return action, nil
	}
	if err := hooks.setValue(event, groups); err != nil {
		return "", err
	}
	if err := root.setValue("hooks", hooks); err != nil {
		return "", err
	}
	return action, nil
}

func nonNil(list []json.RawMessage) []json.RawMessage {
	if list == nil {
		return []json.RawMessage{}
	}
	return list
}

// removeHook deletes guard's pre-tool entries; a group, event list or hooks object
// left empty by that goes too. It returns removed or absent.
func removeHook(root *object, agent string) (string, error) {
	return removeEntries(root, hookSpecs[agent].event, func(cmd string) bool { return isGuardHook(cmd, agent) })
}

// removeRelease deletes guard's session-end entries.
func removeRelease(root *object, agent string) (string, error) {
	if hookSpecs[agent].endEvent == "" {
		return "absent", nil
	}
	return removeEntries(root, hookSpecs[agent].endEvent, func(cmd string) bool { return isGuardRelease(cmd, agent) })
}

// removeEntries deletes the entries of event that ours recognises.
func removeEntries(root *object, event string, ours func(string) bool) (string, error) {
	if _, ok := root.get("hooks"); !ok {
		return "absent", nil
	}
	hooks, groups, err := eventGroups(root, event)
	if err != nil {
		return "", err
	}
	removed := false
	var keptGroups []json.RawMessage
	for _, graw := range groups {
		g, err := parseObject(graw)
		if err != nil {
			keptGroups = append(keptGroups, graw)
			continue
		}
		list, err := g.childArray("hooks")
		if err != nil {
			keptGroups = append(keptGroups, graw)
			continue
		}
		var kept []json.RawMessage
		for _, hraw := range list {
			var h struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(hraw, &h) == nil && ours(h.Command) {
				removed = true
				continue
			}
			kept = append(kept, hraw)
		}
		if len(kept) == len(list) {
			keptGroups = append(keptGroups, graw)
			continue
		}
		if len(kept) == 0 {
			continue
		}
		if err := g.setValue("hooks", kept); err != nil {
			return "", err
		}
		raw, err := g.MarshalJSON()
		if err != nil {
			return "", err
		}
		keptGroups = append(keptGroups, raw)
	}
	if !removed {
		return "absent", nil
	}
	if len(keptGroups) == 0 {
		hooks.del(event)
	} else if err := hooks.setValue(event, keptGroups); err != nil {
		return "", err
	}
	if len(hooks.keys) == 0 {
		root.del("hooks")
	} else if err := root.setValue("hooks", hooks); err != nil {
		return "", err
	}
	return "removed", nil
}

// detectIndent returns the indentation of the first indented line of a JSON text
// (two spaces when there is none), so that an edited file keeps its style.
func detectIndent(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return "  "
}

func reindent(data []byte, indent string) []byte {
	if indent == "  " {
		return data
	}
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimSpace(data), "", indent); err != nil {
		return data
	}
	b.WriteByte('\n')
	return b.Bytes()
}

func fileMode(path string) fs.FileMode {
	if st, err := os.Stat(path); err == nil {
		return st.Mode().Perm()
	}
	return 0o644
}

// writeFileAtomic replaces path with data atomically, creating its folder, so that
// an agent reading its settings never sees half a file.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, data, mode)
}
