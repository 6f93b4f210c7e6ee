package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/guard"
)

// Gemini CLI reads a project's .gemini/settings.json, guard's hook included, only in a
// folder the user trusts (security.folderTrust.enabled, on by default). Headless it
// refuses to start in an untrusted folder, but `gemini --skip-trust` runs there without
// the project's settings, and so without guard's hook (0.61). guard does not trust a
// folder for the user (that grants the project's settings everything they ask); it
// says so at install and guard doctor reports it. A hook in the user's settings runs
// in every folder.

// geminiHome is the folder holding Gemini CLI's user files: $GEMINI_CLI_HOME/.gemini,
// else ~/.gemini.
func geminiHome(env *guard.Env) string {
	home := env.Env("GEMINI_CLI_HOME")
	if home == "" {
		home = env.Env("HOME")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".gemini")
}

// geminiTrusts reports whether Gemini CLI trusts dir: folder trust turned off in the
// user's settings, or the longest matching rule of trustedFolders.json is TRUST_FOLDER
// (the path itself and below) or TRUST_PARENT (its parent folder and below).
func geminiTrusts(env *guard.Env, dir string) (bool, string) {
	gh := geminiHome(env)
	if gh == "" {
		return false, "HOME is not set"
	}
	var settings struct {
		Security struct {
			FolderTrust struct {
				Enabled *bool `json:"enabled"`
			} `json:"folderTrust"`
		} `json:"security"`
	}
	if data, err := os.ReadFile(filepath.Join(gh, "settings.json")); err == nil {
		_ = json.Unmarshal(stripJSONComments(data), &settings)
	}
	if e := settings.Security.FolderTrust.Enabled; e != nil && !*e {
		return true, ""
	}
	path := env.Env("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
	if path == "" {
		path = filepath.Join(gh, "trustedFolders.json")
	}
	// In the file's order: of two rules of the same length the first wins, as in
	// Gemini CLI.
	var rules []struct{ path, level string }
	if data, err := os.ReadFile(path); err == nil {
		if o, err := parseObject(stripJSONComments(data)); err == nil {
			for _, k := range o.keys {
				var l string
				if json.Unmarshal(o.vals[k], &l) == nil {
					rules = append(rules, struct{ path, level string }{k, l})
				}
			}
		}
	}
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	loc := real(dir)
	best, level := -1, ""
	for _, r := range rules {
		rule, l := r.path, r.level
		eff := rule
		if l == "TRUST_PARENT" {
			eff = filepath.Dir(rule)
		}
		eff = real(eff)
		if (loc == eff || strings.HasPrefix(loc, strings.TrimSuffix(eff, string(filepath.Separator))+string(filepath.Separator))) && len(rule) > best {
			best, level = len(rule), l
		}
	}
	return level == "TRUST_FOLDER" || level == "TRUST_PARENT", path
}

// stripJSONComments blanks // and /* */ comments outside strings (Gemini CLI's files
// may hold them), keeping offsets.
func stripJSONComments(data []byte) []byte {
	out := append([]byte(nil), data...)
	inStr, esc := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inStr:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			for ; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i+1 < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return out
}

// GeminiProblems reports a project (its repository top) whose .gemini/settings.json
// holds guard's hook in a folder Gemini CLI does not trust. "" (the user's settings)
// has none: those hooks run everywhere.
func GeminiProblems(env *guard.Env, top string) []string {
	if top == "" {
		return nil
	}
	settings := filepath.Join(top, ".gemini", "settings.json")
	if !hasGuardHook(settings, Gemini) {
		return nil
	}
	if ok, trusted := geminiTrusts(env, top); !ok {
		return []string{fmt.Sprintf("gemini reads %s only in a trusted folder, and %s is not trusted in %s: `gemini --skip-trust` would run there without guard's hook (trust the folder in Gemini CLI, or install the hook for every folder: `guard agent-install gemini --user`)", settings, top, trusted)}
	}
	return nil
}

// hasGuardHook reports whether the settings file at path holds guard's entry for agent.
func hasGuardHook(path, agent string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return false
	}
	for _, g := range doc.Hooks[hookSpecs[agent].event] {
		for _, h := range g.Hooks {
			if isGuardHook(h.Command, agent) {
				return true
			}
		}
	}
	return false
}

// AgentProblems is what guard doctor reports about the agents' hooks of a project
// (its repository top), or of the user's settings when top is "".
func AgentProblems(env *guard.Env, top string) []string {
	return append(append(CodexProblems(env, top), GeminiProblems(env, top)...), InstallProblems(env, top)...)
}
