package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/execpath"
)

// agent-install registers `guard mcp` with each client in that client's own format
// (CONTRACT.md section 12), found in each client's documentation and tried with the
// real CLIs:
//
//   - Claude Code: a project's servers are in .mcp.json at its root ({"mcpServers":
//     {"guard": {"command", "args"}}}), run only once enabled, which the project's
//     settings do with "enabledMcpjsonServers": ["guard"]; a user's are in
//     ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json), a local (per-machine) one
//     under that file's "projects" entry for the project.
//   - Gemini CLI: "mcpServers" in the same settings.json as the hooks.
//   - Codex: a [mcp_servers.guard] table in config.toml (the project's
//     .codex/config.toml, read in a trusted project, or $CODEX_HOME/config.toml), with
//     env_vars passing GUARD_OWNER, GUARD_HOST and XDG_STATE_HOME: Codex gives an MCP server only a
//     few variables of its own environment otherwise; and --release-on-exit, for Codex
//     runs no session-end hook of guard's.

// MCPServerName is the name guard mcp is registered under in every client; its
// tools are mcp__guard__<tool> (Claude Code, Codex) or mcp_guard_<tool> (Gemini CLI).
const MCPServerName = "guard"

// guardProgram is how the settings name guard: "guard" when the environment's PATH
// finds a guard there, so that the committed settings work on every machine of a
// team; else the absolute path of this binary (onPath false: the caller warns).
func guardProgram(env *guard.Env) (prog string, onPath bool) {
	if p, err := execpath.Look("guard", env.Dir, env.Env("PATH")); err == nil && p != "" {
		return "guard", true
	}
	return env.Executable, false
}

// mcpServerValue is the entry that runs guard mcp.
func mcpServerValue(prog string) any {
	return struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}{prog, []string{"mcp"}}
}

// isGuardMCP recognises guard's own server entry: a command of one word (any path:
// guard, or a moved binary) with exactly the argument mcp. A user's own "guard"
// entry of another shape is not guard's to change or remove.
func isGuardMCP(raw json.RawMessage) bool {
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Command == "" || strings.ContainsAny(e.Command, " \t\n") {
		return false
	}
	return isGuardMCPArgs(e.Args)
}

// isGuardMCPArgs: exactly mcp, or mcp --release-on-exit (Codex's).
func isGuardMCPArgs(args []string) bool {
	return slices.Equal(args, []string{"mcp"}) || slices.Equal(args, []string{"mcp", "--release-on-exit"})
}

// addMCPServer puts guard's entry under servers[MCPServerName] of the object at key
// in root (creating it); an entry of the same name that is not guard's is an error
// (it is the user's: guard does not replace it).
func addMCPServer(root *object, key, prog string) (string, error) {
	servers, err := root.childObject(key)
	if err != nil {
		return "", err
	}
	want, err := marshal(mcpServerValue(prog))
	if err != nil {
		return "", err
	}
	action := "installed"
	if old, ok := servers.get(MCPServerName); ok {
		if !isGuardMCP(old) {
			return "", fmt.Errorf("%s.%s is a server of another command; rename it or remove it to register guard mcp", key, MCPServerName)
		}
		if sameJSON(old, want) {
			return "unchanged", nil
		}
		action = "updated"
	}
	servers.set(MCPServerName, want)
	return action, root.setValue(key, servers)
}

// removeMCPServer deletes guard's entry (only guard's) from the object at key, and
// the object when it is left empty.
func removeMCPServer(root *object, key string) (string, error) {
	if _, ok := root.get(key); !ok {
		return "absent", nil
	}
	servers, err := root.childObject(key)
	if err != nil {
		return "", err
	}
	old, ok := servers.get(MCPServerName)
	if !ok || !isGuardMCP(old) {
		return "absent", nil
	}
	servers.del(MCPServerName)
	if len(servers.keys) == 0 {
		root.del(key)
		return "removed", nil
	}
	return "removed", root.setValue(key, servers)
}

// enableMCPJSON adds "guard" to Claude Code's enabledMcpjsonServers (a project's
// .mcp.json servers run only once enabled there), or removes it.
func enableMCPJSON(root *object, add bool) (string, error) {
	var list []string
	if raw, ok := root.get("enabledMcpjsonServers"); ok {
		if err := json.Unmarshal(raw, &list); err != nil {
			return "", errors.New(`"enabledMcpjsonServers" is not a list of names`)
		}
	}
	has := slices.Contains(list, MCPServerName)
	switch {
	case add && has, !add && !has:
		if add {
			return "unchanged", nil
		}
		return "absent", nil
	case add:
		return "installed", root.setValue("enabledMcpjsonServers", append(list, MCPServerName))
	}
	list = slices.DeleteFunc(list, func(s string) bool { return s == MCPServerName })
	if len(list) == 0 {
		root.del("enabledMcpjsonServers")
		return "removed", nil
	}
	return "removed", root.setValue("enabledMcpjsonServers", list)
}

// claudeUserConfig is Claude Code's own ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json
// when that is set), where user and local MCP servers are kept.
func claudeUserConfig(env *guard.Env) (string, error) {
	if d := env.Env("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json"), nil
	}
	home := env.Home()
	if home == "" {
		return "", errors.New("HOME is not set: cannot find ~/.claude.json")
	}
	return filepath.Join(home, ".claude.json"), nil
}

// editJSONFile applies edit to the JSON object in path (an absent or empty file is
// {}), and writes the result atomically when edit changed it. A file guard's edit
// leaves empty, and that held nothing before but what guard put there, is removed.
func editJSONFile(path string, edit func(root *object) (string, error)) (string, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	root := newObject()
	if len(bytes.TrimSpace(old)) > 0 {
		if root, err = parseObject(bytes.TrimPrefix(old, []byte("\xef\xbb\xbf"))); err != nil {
			return "", fmt.Errorf("%s: not a JSON object guard can edit (%v); nothing was changed", path, err)
		}
	}
	action, err := edit(root)
	if err != nil {
		return "", fmt.Errorf("%s: %v; nothing was changed", path, err)
	}
	if action != "installed" && action != "updated" && action != "removed" {
		return action, nil
	}
	if action == "removed" && len(root.keys) == 0 {
		return action, os.Remove(path)
	}
	data, err := root.render()
	if err != nil {
		return "", err
	}
	return action, writeFileAtomic(path, reindent(data, detectIndent(old)), fileMode(path))
}

// registerMCP adds (or removes) guard mcp in the client's own MCP configuration for
// the scope opts asks for. settingsRoot is the settings file being edited (Claude
// Code's enabledMcpjsonServers and Gemini CLI's mcpServers live there); the result
// names the file that holds the server entry.
func registerMCP(opts InstallOptions, settingsRoot *object, prog string, add bool) (file, action string, err error) {
	env := opts.Env
	switch opts.Agent {
	case Gemini:
		if add {
			action, err = addMCPServer(settingsRoot, "mcpServers", prog)
		} else {
			action, err = removeMCPServer(settingsRoot, "mcpServers")
		}
		return "", action, err
	case Claude:
		top := projectRoot(env.Dir)
		if !opts.User && !opts.Local {
			// .mcp.json beside the committed settings, enabled by them.
			if _, err := enableMCPJSON(settingsRoot, add); err != nil {
				return "", "", err
			}
			file = filepath.Join(top, ".mcp.json")
			action, err = editJSONFile(file, func(root *object) (string, error) {
				if add {
					return addMCPServer(root, "mcpServers", prog)
				}
				return removeMCPServer(root, "mcpServers")
			})
			return file, action, err
		}
		if file, err = claudeUserConfig(env); err != nil {
			return "", "", err
		}
		action, err = editJSONFile(file, func(root *object) (string, error) {
			if opts.User {
				if add {
					return addMCPServer(root, "mcpServers", prog)
				}
				return removeMCPServer(root, "mcpServers")
			}
			return editLocalProject(root, top, prog, add)
		})
		return file, action, err
	case Codex:
		if opts.User {
			home, err := codexHome(env)
			if err != nil {
				return "", "", err
			}
			file = filepath.Join(home, "config.toml")
		} else {
			file = filepath.Join(projectRoot(env.Dir), ".codex", "config.toml")
		}
		action, err = editCodexMCP(file, prog, add)
		return file, action, err
	}
	return "", "", fmt.Errorf("unknown agent %q", opts.Agent)
}

// editLocalProject edits the server entry of Claude Code's local scope: the project's
// entry under "projects" in ~/.claude.json.
func editLocalProject(root *object, top, prog string, add bool) (string, error) {
	projects, err := root.childObject("projects")
	if err != nil {
		return "", err
	}
	proj, err := projects.childObject(top)
	if err != nil {
		return "", err
	}
	var action string
	if add {
		action, err = addMCPServer(proj, "mcpServers", prog)
	} else {
		action, err = removeMCPServer(proj, "mcpServers")
	}
	if err != nil || (action != "installed" && action != "updated" && action != "removed") {
		return action, err
	}
	if err := projects.setValue(top, proj); err != nil {
		return "", err
	}
	return action, root.setValue("projects", projects)
}

// codexMCPHeader is guard mcp's table in Codex's config.toml.
const codexMCPHeader = "[mcp_servers." + MCPServerName + "]"

// codexMCPTable is the table agent-install writes.
// Codex runs no session-end hook of guard's, so the server releases its claims when
// Codex goes (--release-on-exit).
func codexMCPTable(prog string) []string {
	return []string{codexMCPHeader, "command = " + guard.QuoteTOML(prog), `args = ["mcp", "--release-on-exit"]`,
		`env_vars = ["GUARD_OWNER", "GUARD_HOST", "XDG_STATE_HOME"]`}
}

// editCodexMCP adds or removes guard mcp's table in a config.toml, as text (a TOML
// library would lose the user's comments and layout), and writes the file only if it
// still parses with the table exactly as meant.
func editCodexMCP(path, prog string, add bool) (string, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string   `toml:"command"`
			Args    []string `toml:"args"`
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(old), &doc); err != nil {
		return "", fmt.Errorf("%s: %v; guard edits only a config.toml it can read, nothing was changed", path, err)
	}
	cur, has := doc.MCPServers[MCPServerName]
	lines := strings.Split(strings.TrimRight(string(old), "\n"), "\n")
	if len(old) == 0 {
		lines = nil
	}
	start, end := tomlTable(lines, codexMCPHeader)
	for start >= 0 && end > start+1 && strings.TrimSpace(lines[end-1]) == "" {
		end-- // the blank lines before the next table are not the table's
	}
	if has && (start < 0 || !isGuardMCPArgs(cur.Args)) {
		// Written another way (inline, dotted keys) or the user's own server.
		if add || isGuardMCPArgs(cur.Args) {
			return "", fmt.Errorf("%s: mcp_servers.%s is written in a form guard does not edit, or runs another command; edit it by hand: %s", path, MCPServerName, strings.Join(codexMCPTable(prog), "; "))
		}
		return "absent", nil
	}
	action := "installed"
	switch {
	case !add && !has:
		return "absent", nil
	case !add:
		lines = append(lines[:start:start], lines[end:]...)
		action = "removed"
	case has:
		if strings.Join(lines[start:end], "\n") == strings.Join(codexMCPTable(prog), "\n") {
			return "unchanged", nil
		}
		lines = append(append(lines[:start:start], codexMCPTable(prog)...), lines[end:]...)
		action = "updated"
	default:
		if len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) != "" {
			lines = append(lines, "")
		}
		lines = append(lines, codexMCPTable(prog)...)
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	text := strings.Join(lines, "\n")
	if text != "" {
		text += "\n"
	}
	var check struct {
		MCPServers map[string]map[string]any `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(text, &check); err != nil || (add && check.MCPServers[MCPServerName]["command"] != prog) || (!add && check.MCPServers[MCPServerName] != nil) {
		return "", fmt.Errorf("%s: cannot edit mcp_servers.%s without breaking the file; edit it by hand: %s", path, MCPServerName, strings.Join(codexMCPTable(prog), "; "))
	}
	if text == "" && action == "removed" {
		err := os.Remove(path)
		_ = os.Remove(filepath.Dir(path)) // only if empty
		return action, err
	}
	return action, writeFileAtomic(path, []byte(text), fileMode(path))
}

// InstallProblems is what guard doctor reports of the parts agent-install sets up
// beside each agent's hook in a project (top; "" for the user's settings): the
// session-end release and guard mcp's registration. A project without guard's hook
// for an agent has nothing to report for it.
func InstallProblems(env *guard.Env, top string) []string {
	var out []string
	for _, agent := range Agents {
		user := top == ""
		e := *env
		if !user {
			e.Dir = top
		}
		path, err := SettingsPath(&e, agent, user)
		if err != nil || !hasGuardHook(path, agent) {
			continue
		}
		scope := ""
		if user {
			scope = " --user"
		}
		fix := "run `guard agent-install " + agent + scope + "`"
		data, _ := os.ReadFile(path)
		root, err := parseObject(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
		if err != nil {
			continue // the hook check reports an unreadable file
		}
		if ev := hookSpecs[agent].endEvent; ev != "" {
			if a, _ := removeRelease(root, agent); a != "removed" {
				out = append(out, fmt.Sprintf("%s: %s has guard's hook but no %s hook releasing the session's claims (guard agent-release --hook %s): %s", agent, path, ev, agent, fix))
			}
			root, _ = parseObject(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
		}
		file, registered := mcpRegistered(&e, agent, user, root)
		if !registered {
			out = append(out, fmt.Sprintf("%s: guard mcp is not registered in %s, so the agent cannot claim, wait or release through guard's tools: %s", agent, file, fix))
		}
	}
	return out
}

// mcpRegistered reports whether guard mcp is registered for agent in the scope, and
// in which file it is looked for.
func mcpRegistered(env *guard.Env, agent string, user bool, settings *object) (string, bool) {
	has := func(root *object, key string) bool {
		servers, err := root.childObject(key)
		if err != nil {
			return false
		}
		raw, ok := servers.get(MCPServerName)
		return ok && isGuardMCP(raw)
	}
	readObj := func(path string) *object {
		data, err := os.ReadFile(path)
		if err != nil {
			return newObject()
		}
		o, err := parseObject(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
		if err != nil {
			return newObject()
		}
		return o
	}
	switch agent {
	case Gemini:
		path, _ := SettingsPath(env, agent, user)
		return path, has(settings, "mcpServers")
	case Claude:
		if user {
			path, err := claudeUserConfig(env)
			return path, err == nil && has(readObj(path), "mcpServers")
		}
		path := filepath.Join(projectRoot(env.Dir), ".mcp.json")
		var enabled []string
		if raw, ok := settings.get("enabledMcpjsonServers"); ok {
			_ = json.Unmarshal(raw, &enabled)
		}
		return path + " (enabled by enabledMcpjsonServers)", has(readObj(path), "mcpServers") && slices.Contains(enabled, MCPServerName)
	case Codex:
		path := filepath.Join(projectRoot(env.Dir), ".codex", "config.toml")
		if user {
			home, err := codexHome(env)
			if err != nil {
				return "config.toml", false
			}
			path = filepath.Join(home, "config.toml")
		}
		data, _ := os.ReadFile(path)
		var doc struct {
			MCPServers map[string]struct {
				Args []string `toml:"args"`
			} `toml:"mcp_servers"`
		}
		_, err := toml.Decode(string(data), &doc)
		return path, err == nil && isGuardMCPArgs(doc.MCPServers[MCPServerName].Args)
	}
	return "", false
}
