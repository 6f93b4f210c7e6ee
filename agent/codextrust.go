package agent

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/guardlocks/guard/guard"
)

// Codex runs a hook from a hooks.json only once the user has trusted it: its review
// prompt records, in $CODEX_HOME/config.toml,
//
//	[hooks.state."<hooks.json path>:pre_tool_use:<group>:<index>"]
//	trusted_hash = "sha256:<hex>"
//
// and a hook whose hash is missing or differs is skipped without a word (codex exec has
// no prompt at all). The hash is Codex's own (codex-rs hooks discovery,
// command_hook_hash, 0.169 to 0.171): SHA-256 of the compact JSON, keys sorted, of
// {"event_name": "pre_tool_use", "matcher": M, "hooks": [H]} where H is the handler
// normalised: type, command, timeout (600 when absent), async, statusMessage when set.
// guard agent-install writes that record for guard's own entry, as the user's answer
// to Codex's prompt would; guard doctor reports it missing or stale.

// codexEvent is Codex's key label of the PreToolUse event.
const codexEvent = "pre_tool_use"

// codexHome is the folder holding Codex's config.toml: $CODEX_HOME, else ~/.codex.
func codexHome(env *guard.Env) (string, error) {
	if d := env.Env("CODEX_HOME"); d != "" {
		return filepath.Abs(d)
	}
	home := env.Env("HOME")
	if home == "" {
		return "", errors.New("HOME is not set: cannot find Codex's folder (~/.codex)")
	}
	return filepath.Join(home, ".codex"), nil
}

// CodexProblems reports what keeps Codex from running guard's hook in the hooks.json
// of a project (its repository top; "" for the user's, $CODEX_HOME/hooks.json): a
// trust record that is missing or stale, and, for a project, a project Codex does not
// trust (it then ignores the project's .codex folder). Nothing when there is no guard
// entry there.
func CodexProblems(env *guard.Env, top string) []string {
	var hooksPath string
	if top == "" {
		home, err := codexHome(env)
		if err != nil {
			return nil
		}
		hooksPath = filepath.Join(home, "hooks.json")
	} else {
		hooksPath = filepath.Join(top, ".codex", "hooks.json")
	}
	if real, err := filepath.EvalSymlinks(hooksPath); err == nil {
		hooksPath = real
	}
	data, err := os.ReadFile(hooksPath)
	if err != nil {
		return nil
	}
	entries, err := codexEntries(hooksPath, data)
	if err != nil {
		return []string{fmt.Sprintf("codex hooks: %v", err)}
	}
	if len(entries) == 0 {
		return nil
	}
	home, err := codexHome(env)
	if err != nil {
		return []string{fmt.Sprintf("codex hook in %s: %v", hooksPath, err)}
	}
	config := filepath.Join(home, "config.toml")
	st, _, err := readCodexState(config)
	if err != nil {
		return []string{fmt.Sprintf("codex hook in %s: cannot read its trust record: %v", hooksPath, err)}
	}
	var out []string
	for _, e := range entries {
		s, ok := st.Hooks.State[e.Key]
		switch {
		case !ok || s.TrustedHash == nil:
			out = append(out, fmt.Sprintf("codex hook in %s is not trusted in %s, so Codex skips it without a word (run `guard agent-install codex%s`)", hooksPath, config, userFlag(top)))
		case *s.TrustedHash != e.Hash:
			out = append(out, fmt.Sprintf("codex hook in %s changed since it was trusted (%s records %s, the hook is %s), so Codex skips it (run `guard agent-install codex%s`)", hooksPath, config, *s.TrustedHash, e.Hash, userFlag(top)))
		}
		if s.Enabled != nil && !*s.Enabled {
			out = append(out, fmt.Sprintf("codex hook in %s is disabled in %s (enabled = false), so Codex does not run it", hooksPath, config))
		}
	}
	if top != "" && !codexTrustsProject(st, top) {
		out = append(out, fmt.Sprintf("codex loads %s only in a trusted project, and %s is not trusted in %s (trust it when Codex asks, or install the hook for every project: `guard agent-install codex --user`)", hooksPath, top, config))
	}
	return out
}

func userFlag(top string) string {
	if top == "" {
		return " --user"
	}
	return ""
}

// codexTrustsProject reports whether config.toml trusts the project at top. Codex
// (0.171, confirmed by TestRealCodexTrustsOnlyTheProjectItself) reads the entry of
// the folder it runs in, else of its git root; an entry for a folder above the
// project does not make it trusted, so only top's own entry counts here.
func codexTrustsProject(st codexState, top string) bool {
	if p, ok := st.Projects[top]; ok {
		return p.TrustLevel == "trusted"
	}
	if real, err := filepath.EvalSymlinks(top); err == nil && real != top {
		if p, ok := st.Projects[real]; ok {
			return p.TrustLevel == "trusted"
		}
	}
	return false
}

// codexTrust keeps the trust records of guard's entries in step with the hooks.json at
// path going from old to final: recorded for every entry on install, removed with the
// entries on uninstall. It returns the config.toml path and whether it changed.
func codexTrust(env *guard.Env, path string, old, final []byte, add bool) (string, bool, error) {
	if add {
		return trustCodexHooks(env, path, final)
	}
	home, err := codexHome(env)
	if err != nil || len(bytes.TrimSpace(old)) == 0 {
		return "", false, nil // nothing guard recorded can be found: nothing to remove
	}
	config := filepath.Join(home, "config.toml")
	if real, err := filepath.EvalSymlinks(config); err == nil {
		config = real
	}
	before, err := codexEntries(path, old)
	if err != nil {
		return config, false, nil
	}
	after, _ := codexEntries(path, final)
	data, err := os.ReadFile(config)
	if err != nil {
		return config, false, nil
	}
	text := string(data)
	for _, e := range before {
		if !containsTrust(after, e) {
			text = removeTrustedHash(text, e.Key, e.Hash)
		}
	}
	if text == string(data) {
		return config, false, nil
	}
	if _, err := toml.Decode(text, new(codexState)); err != nil {
		return config, false, nil // leave the user's file as it is rather than break it
	}
	if err := writeFileAtomic(config, []byte(text), fileMode(config)); err != nil {
		return config, false, err
	}
	return config, true, nil
}

func containsTrust(list []codexEntry, e codexEntry) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

// reportCodex tells what Codex needs besides the hook: its trust record (written by
// guard) and, for a project's hooks.json, the user's trust in the project.
func reportCodex(env *guard.Env, opts InstallOptions, res InstallResult) {
	if opts.JSON || res.CodexConfig == "" {
		return
	}
	if res.Trusted && (res.Action == "removed" || res.Action == "absent") {
		fmt.Fprintf(env.Stderr, "guard: removed the hook's trust record from %s\n", res.CodexConfig)
		return
	}
	if res.Trusted {
		fmt.Fprintf(env.Stderr, "guard: recorded the hook as trusted in %s (hooks.state), as Codex's own review would; Codex skips a hook it has no record of\n", res.CodexConfig)
	}
	if res.Action == "removed" || res.Action == "absent" || opts.User {
		return
	}
	st, _, err := readCodexState(res.CodexConfig)
	top := filepath.Dir(filepath.Dir(res.Settings))
	if err == nil && !codexTrustsProject(st, top) {
		fmt.Fprintf(env.Stderr, "guard: warning: Codex loads %s only in a project it trusts, and %s is not trusted in %s: trust it when Codex asks, or install for every project with `guard agent-install codex --user`\n", res.Settings, top, res.CodexConfig)
	}
}

// inlineHookState reports whether a TOML text defines hooks or hooks.state other than
// by table headers (an inline table or dotted keys): a [hooks.state."..."] table added
// after it would be a second definition, which Codex's TOML reader refuses.
func inlineHookState(text string) bool {
	table := ""
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") {
			table = strings.ReplaceAll(strings.Trim(l, "[] \t"), " ", "")
			continue
		}
		key, _, ok := strings.Cut(l, "=")
		if !ok || strings.HasPrefix(l, "#") {
			continue
		}
		key = strings.ReplaceAll(strings.TrimSpace(key), " ", "")
		switch {
		case table == "" && (key == "hooks" || strings.HasPrefix(key, "hooks.") || strings.HasPrefix(key, `"hooks"`)):
			return true
		case table == "hooks" && (key == "state" || strings.HasPrefix(key, "state.") || strings.HasPrefix(key, `"state"`)):
			return true
		}
	}
	return false
}
