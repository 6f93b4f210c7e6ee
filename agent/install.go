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
		return "", guard.Fail(guard.BadInput, "unknown agent %q (supported: %s)", agent, strings.Join(Agents, ", "))
	}
	if local {
		if agent != Claude {
			return "", guard.Fail(guard.BadInput, "--local: %s has no per-machine project settings file (Claude Code's is .claude/settings.local.json); install for the project or --user", agent)
		}
		return filepath.Join(projectRoot(env.Dir), spec.dir, "settings.local.json"), nil
	}
	if user {
		if spec.envDir != "" && env.Env(spec.envDir) != "" {
			return filepath.Join(env.Env(spec.envDir), spec.file), nil
		}
		home := env.Env("HOME")
		if home == "" {
			return "", guard.Fail(guard.BadInput, "HOME is not set: cannot find the user's %s folder", spec.dir)
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
		return guard.Fail(guard.BadInput, "--user and --local exclude each other")
	}
	path, err := settingsPath(env, opts.Agent, opts.User, opts.Local)
	if err != nil {
		return err
	}
	prog, onPath := guardProgram(env)
	if prog == "" && add {
		return guard.Fail(guard.BadInput, "cannot tell where the guard binary is")
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
		return guard.Fail(guard.BadInput, "%w", err)
	}
	root := newObject()
	if exists && len(bytes.TrimSpace(old)) > 0 {
		if root, err = parseObject(bytes.TrimPrefix(old, []byte("\xef\xbb\xbf"))); err != nil {
			return guard.Fail(guard.BadInput, "%s: not a JSON object guard can edit (%v); nothing was changed", path, err)
		}
	}
	var changed bool
	res.Action, err = editSettings(root, opts, res, add)
	if err != nil {
		return guard.Fail(guard.BadInput, "%s: %v; nothing was changed", path, err)
	}
	// guard mcp's own registration: in this file (Gemini CLI), or in the client's MCP
	// file (Claude Code's .mcp.json, enabled here; ~/.claude.json; Codex's config.toml).
	var mcpAction string
	res.MCP, mcpAction, err = registerMCP(opts, root, prog, add)
	if err != nil {
		return guard.Fail(guard.BadInput, "%v", err)
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
				return guard.Fail(guard.BadInput, "%s: %w", path, err)
			}
		}
		if res.CodexConfig, res.Trusted, err = codexTrust(env, path, old, final, add); err != nil {
			return guard.Fail(guard.BadInput, "codex: %v; nothing was changed in %s", err, path)
		}
	}
	if changed {
		data, err := root.render()
		if err != nil {
			return guard.Fail(guard.BadInput, "%s: %w", path, err)
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
					return guard.Fail(guard.BadInput, "%w", err)
				}
				_ = os.Remove(filepath.Dir(path)) // only if empty
				return report(env, opts, res)
			}
		}
		if exists {
			backup := path + BackupSuffix
			if err := writeFileAtomic(backup, old, fileMode(path)); err != nil {
				return guard.Fail(guard.BadInput, "cannot keep a backup: %w; nothing was changed", err)
			}
			res.Backup = &backup
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return guard.Fail(guard.BadInput, "%w", err)
		}
		if err := writeFileAtomic(path, data, fileMode(path)); err != nil {
			return guard.Fail(guard.BadInput, "%w", err)
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
