package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/guardlocks/guard/guard"
)

// What Codex and Gemini CLI would ask about a rewritten command (sandbox.go): both
// judge the command they are handed, so guard rewrites only where they ask about no
// shell command at all and no rule of theirs could name the original.

// clientKeepsPrompts says why call's client could change its prompts (or lose a
// refusal) if its shell command were rewritten, "" when it cannot. args are the
// command lines of the hook's parent processes (HookOptions.ClientArgs).
func clientKeepsPrompts(env *guard.Env, call *Call, args [][]string) string {
	switch call.Agent {
	case Codex:
		if call.PermissionMode != "bypassPermissions" {
			return fmt.Sprintf("Codex asks for approval in this session (permission_mode %q), and it would judge the rewritten command, not the one proposed", call.PermissionMode)
		}
		argv := clientArgv(args, "codex")
		if argv == nil {
			return "guard cannot read how Codex was started (its sandbox mode)"
		}
		if !codexUnsandboxed(env, argv) {
			return "Codex runs commands in a sandbox of its own in this session, which guard sandbox does not start inside"
		}
		if f := codexRules(env, call.Cwd); f != "" {
			return "Codex's rules in " + f + " would judge the rewritten command, not the one proposed"
		}
	case Gemini:
		argv := clientArgv(args, "gemini")
		if argv == nil {
			return "guard cannot read how Gemini CLI was started (its approval mode)"
		}
		if !geminiYolo(argv) {
			return "Gemini CLI asks for approval in this session (not --approval-mode yolo), and its policy would judge the rewritten command, not the one proposed"
		}
		if f := geminiPolicy(env, call.Cwd); f != "" {
			return "Gemini CLI's policy in " + f + " would judge the rewritten command, not the one proposed"
		}
	}
	return ""
}

// clientArgv is the nearest command line among args that runs the client name (its
// binary, or node running its script), from the word after the program on.
func clientArgv(args [][]string, name string) []string {
	for _, argv := range args {
		for i, w := range argv {
			if i > 1 {
				break // node SCRIPT, or the binary itself
			}
			base := strings.ToLower(filepath.Base(w))
			if base == name || base == name+".js" || base == name+".exe" {
				return argv[i+1:]
			}
		}
	}
	return nil
}

// flagValue returns the value of a long option (--name V, --name=V) or its short
// form (-s V) in argv, and whether it is there; the last one wins.
func flagValue(argv []string, long, short string) (string, bool) {
	v, ok := "", false
	for i, w := range argv {
		switch {
		case w == "--":
			return v, ok
		case w == "--"+long || short != "" && w == "-"+short:
			if i+1 < len(argv) {
				v, ok = argv[i+1], true
			}
		case strings.HasPrefix(w, "--"+long+"="):
			v, ok = strings.TrimPrefix(w, "--"+long+"="), true
		}
	}
	return v, ok
}

func hasArg(argv []string, words ...string) bool {
	for _, w := range argv {
		if w == "--" {
			return false
		}
		for _, x := range words {
			if w == x {
				return true
			}
		}
	}
	return false
}

// codexUnsandboxed reports whether Codex runs commands without a sandbox of its own:
// --dangerously-bypass-approvals-and-sandbox (--yolo), --sandbox danger-full-access,
// or sandbox_mode = "danger-full-access" in its config.toml with no --sandbox, no -c
// and no --profile on the command line (guard does not read those).
func codexUnsandboxed(env *guard.Env, argv []string) bool {
	if hasArg(argv, "--dangerously-bypass-approvals-and-sandbox", "--yolo") {
		return true
	}
	if v, ok := flagValue(argv, "sandbox", "s"); ok {
		return v == "danger-full-access"
	}
	if _, ok := flagValue(argv, "config", "c"); ok {
		return false
	}
	if _, ok := flagValue(argv, "profile", "p"); ok {
		return false
	}
	var cfg struct {
		SandboxMode string `toml:"sandbox_mode"`
	}
	home, err := codexHome(env)
	if err != nil {
		return false
	}
	if _, err := toml.DecodeFile(filepath.Join(home, "config.toml"), &cfg); err != nil {
		return false
	}
	return cfg.SandboxMode == "danger-full-access"
}

// codexRules is the first exec-policy rules file Codex may read (CODEX_HOME/rules,
// /etc/codex/rules, .codex/rules from cwd up to the project root), "" for none. A
// folder guard cannot list counts as holding one.
func codexRules(env *guard.Env, cwd string) string {
	home, err := codexHome(env)
	if err != nil {
		return "CODEX_HOME (" + err.Error() + ")"
	}
	dirs := []string{filepath.Join(home, "rules"), "/etc/codex/rules"}
	root := projectRoot(cwd)
	for d := cwd; ; d = filepath.Dir(d) {
		dirs = append(dirs, filepath.Join(d, ".codex", "rules"))
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	return firstFile(dirs, ".rules")
}

// geminiYolo reports whether Gemini CLI was started in yolo mode (--yolo, -y,
// --approval-mode yolo).
func geminiYolo(argv []string) bool {
	if v, ok := flagValue(argv, "approval-mode", ""); ok {
		return v == "yolo"
	}
	return hasArg(argv, "--yolo", "-y")
}

// geminiHeadless reports whether Gemini CLI was started without its interface
// (`-p`/`--prompt` without `-i`/`--prompt-interactive`): there a hook's ask stops
// the tool and, while an MCP server is connected, Gemini CLI 0.61 never exits.
func geminiHeadless(argv []string) bool {
	if _, ok := flagValue(argv, "prompt-interactive", "i"); ok {
		return false
	}
	_, ok := flagValue(argv, "prompt", "p")
	return ok
}

// geminiPolicy is the first policy file or tools setting of Gemini CLI's that could
// name a shell command (policies folders of the user, the project, the system and
// the user's extensions; tools.core, tools.exclude and tools.allowed in a settings
// file), "" for none. What guard cannot read counts as one.
func geminiPolicy(env *guard.Env, cwd string) string {
	home := env.Env("HOME")
	project := env.Env("GEMINI_PROJECT_DIR")
	if !filepath.IsAbs(project) {
		project = projectRoot(cwd)
	}
	dirs := []string{filepath.Join(home, ".gemini", "policies"), filepath.Join(project, ".gemini", "policies"), "/etc/gemini-cli/policies"}
	if exts, err := os.ReadDir(filepath.Join(home, ".gemini", "extensions")); err == nil {
		for _, e := range exts {
			dirs = append(dirs, filepath.Join(home, ".gemini", "extensions", e.Name(), "policies"))
		}
	}
	if f := firstFile(dirs, ".toml"); f != "" {
		return f
	}
	settings := []string{filepath.Join(home, ".gemini", "settings.json"), filepath.Join(project, ".gemini", "settings.json"),
		"/etc/gemini-cli/settings.json", "/etc/gemini-cli/system-defaults.json"}
	for _, name := range []string{"GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"} {
		if p := env.Env(name); p != "" {
			settings = append(settings, p)
		}
	}
	for _, f := range settings {
		data, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var doc struct {
			Tools struct {
				Core, Exclude, Allowed []string
			} `json:"tools"`
		}
		if err != nil || json.Unmarshal(data, &doc) != nil {
			return f + " (which guard cannot read)"
		}
		if len(doc.Tools.Core)+len(doc.Tools.Exclude)+len(doc.Tools.Allowed) > 0 {
			return f
		}
	}
	return ""
}

// firstFile is the first file named *ext in dirs ("" for none); a folder that exists
// but cannot be listed is returned itself.
func firstFile(dirs []string, ext string) string {
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return d
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ext) {
				return filepath.Join(d, e.Name())
			}
		}
	}
	return ""
}
