package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

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

// codexEntry is one guard entry of a hooks.json as Codex identifies it.
type codexEntry struct {
	Key  string // the hooks.state key
	Hash string // what trusted_hash must be
}

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

// codexEntries finds guard's entries in the hooks.json text data, read from path.
func codexEntries(path string, data []byte) ([]codexEntry, error) {
	var doc struct {
		Hooks map[string][]struct {
			Matcher *string                      `json:"matcher"`
			Hooks   []map[string]json.RawMessage `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []codexEntry
	for gi, g := range doc.Hooks[hookSpecs[Codex].event] {
		for hi, h := range g.Hooks {
			var cmd, typ string
			_ = json.Unmarshal(h["command"], &cmd)
			_ = json.Unmarshal(h["type"], &typ)
			if typ != "command" || !isGuardHook(cmd, Codex) {
				continue
			}
			hash, err := codexHookHash(g.Matcher, h)
			if err != nil {
				return nil, fmt.Errorf("%s: hooks.%s[%d].hooks[%d]: %w", path, hookSpecs[Codex].event, gi, hi, err)
			}
			out = append(out, codexEntry{Key: fmt.Sprintf("%s:%s:%d:%d", path, codexEvent, gi, hi), Hash: hash})
		}
	}
	return out, nil
}

// codexHookHash is Codex's trust hash of one command handler in a group with matcher.
func codexHookHash(matcher *string, h map[string]json.RawMessage) (string, error) {
	var cmd string
	if err := json.Unmarshal(h["command"], &cmd); err != nil {
		return "", fmt.Errorf("command: %w", err)
	}
	handler := map[string]any{"type": "command", "command": cmd, "timeout": uint64(600), "async": false}
	if raw, ok := h["timeout"]; ok && string(raw) != "null" {
		var t uint64
		if err := json.Unmarshal(raw, &t); err != nil {
			return "", fmt.Errorf("timeout: %w", err)
		}
		handler["timeout"] = max(t, 1)
	}
	if raw, ok := h["async"]; ok && string(raw) != "null" {
		var a bool
		if err := json.Unmarshal(raw, &a); err != nil {
			return "", fmt.Errorf("async: %w", err)
		}
		handler["async"] = a
	}
	if raw, ok := h["statusMessage"]; ok && string(raw) != "null" {
		var m string
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", fmt.Errorf("statusMessage: %w", err)
		}
		handler["statusMessage"] = m
	}
	identity := map[string]any{"event_name": codexEvent, "hooks": []any{handler}}
	// An absent matcher and "*" both mean every tool; Codex hashes what the file says
	// (TOML has no null, so an absent one is no key at all).
	if matcher != nil {
		identity["matcher"] = *matcher
	}
	var b bytes.Buffer
	canonicalJSON(&b, identity)
	sum := sha256.Sum256(b.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// canonicalJSON writes v compactly with sorted keys and strings escaped as serde_json
// escapes them (only quote, backslash and control characters), which Codex hashes.
func canonicalJSON(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			jsonString(b, k)
			b.WriteByte(':')
			canonicalJSON(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			canonicalJSON(b, e)
		}
		b.WriteByte(']')
	case string:
		jsonString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case uint64:
		b.WriteString(strconv.FormatUint(x, 10))
	}
}

func jsonString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case r == utf8.RuneError:
			b.WriteString("\ufffd")
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// codexState reads the trusted_hash values and trusted projects of a config.toml.
type codexState struct {
	Hooks struct {
		State map[string]struct {
			TrustedHash *string `toml:"trusted_hash"`
			Enabled     *bool   `toml:"enabled"`
		} `toml:"state"`
	} `toml:"hooks"`
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
}

func readCodexState(path string) (codexState, []byte, error) {
	var st codexState
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil, nil
	}
	if err != nil {
		return st, nil, err
	}
	if _, err := toml.Decode(string(data), &st); err != nil {
		return st, data, fmt.Errorf("%s: %w", path, err)
	}
	return st, data, nil
}

// trustCodexHooks records in config.toml that guard's entries in the hooks.json at
// hooksPath (whose new text is data) are trusted. It returns the config.toml path when
// it changed it, or an error naming exactly what the user must trust by hand.
func trustCodexHooks(env *guard.Env, hooksPath string, data []byte) (string, bool, error) {
	home, err := codexHome(env)
	if err != nil {
		return "", false, err
	}
	config := filepath.Join(home, "config.toml")
	if real, err := filepath.EvalSymlinks(config); err == nil {
		config = real
	}
	entries, err := codexEntries(hooksPath, data)
	if err != nil {
		return config, false, err
	}
	st, old, err := readCodexState(config)
	if err != nil {
		return config, false, fmt.Errorf("%w; guard edits only a config.toml it can read", err)
	}
	text := string(old)
	if inlineHookState(text) {
		return config, false, fmt.Errorf("%s: hooks.state is written as an inline table or dotted keys, which guard does not edit; add the trust record by hand: %s", config, trustRecords(entries))
	}
	changed := false
	for _, e := range entries {
		if s, ok := st.Hooks.State[e.Key]; ok && s.TrustedHash != nil && *s.TrustedHash == e.Hash {
			continue
		}
		text = setTrustedHash(text, e.Key, e.Hash)
		changed = true
	}
	if !changed {
		return config, false, nil
	}
	// The edit is textual (a TOML library would lose the user's comments and layout):
	// read it back, and write it only if Codex will read exactly the records meant.
	var check codexState
	if _, err := toml.Decode(text, &check); err != nil {
		return config, false, fmt.Errorf("%s: cannot add the trust record without breaking the file (%v); add it by hand: %s", config, err, trustRecords(entries))
	}
	for _, e := range entries {
		if s := check.Hooks.State[e.Key]; s.TrustedHash == nil || *s.TrustedHash != e.Hash {
			return config, false, fmt.Errorf("%s: cannot add the trust record (hooks.state is written in a form guard does not edit); add it by hand: %s", config, trustRecords(entries))
		}
	}
	if old != nil {
		if err := writeFileAtomic(config+BackupSuffix, old, fileMode(config)); err != nil {
			return config, false, fmt.Errorf("cannot keep a backup of %s: %w", config, err)
		}
	}
	if err := writeFileAtomic(config, []byte(text), fileMode(config)); err != nil {
		return config, false, err
	}
	return config, true, nil
}

func trustRecords(entries []codexEntry) string {
	var parts []string
	for _, e := range entries {
		parts = append(parts, hookStateHeader(e.Key)+" "+trustedHashLine(e.Hash))
	}
	return strings.Join(parts, "; ")
}

// setTrustedHash sets trusted_hash in the table [hooks.state."key"] of a TOML text,
// adding the table at the end when it is not there.
func setTrustedHash(text, key, hash string) string {
	header, line := hookStateHeader(key), trustedHashLine(hash)
	lines := strings.SplitAfter(text, "\n")
	if i, end := tomlTable(lines, header); i >= 0 {
		// Within the table, replace the key or add it first.
		for j := i + 1; j < end; j++ {
			k, _, ok := strings.Cut(strings.TrimSpace(lines[j]), "=")
			if ok && strings.TrimSpace(k) == "trusted_hash" {
				lines[j] = line + "\n"
				return strings.Join(lines, "")
			}
		}
		lines[i] = strings.TrimRight(lines[i], "\n") + "\n" + line + "\n"
		return strings.Join(lines, "")
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	return text + header + "\n" + line + "\n"
}

// removeTrustedHash drops the table [hooks.state."key"] that guard added, when it holds
// nothing but trusted_hash = hash (anything else there is the user's).
func removeTrustedHash(text, key, hash string) string {
	want := trustedHashLine(hash)
	lines := strings.SplitAfter(text, "\n")
	i, end := tomlTable(lines, hookStateHeader(key))
	if i < 0 {
		return text
	}
	var body []string
	for _, b := range lines[i+1 : end] {
		if strings.TrimSpace(b) != "" {
			body = append(body, strings.TrimSpace(b))
		}
	}
	if len(body) != 1 || body[0] != want {
		return text
	}
	start := i
	if start > 0 && strings.TrimSpace(lines[start-1]) == "" {
		start-- // the blank line guard wrote before it
	}
	return strings.Join(append(lines[:start:start], lines[end:]...), "")
}

// hookStateHeader is the header of Codex's trust record for the hook key.
func hookStateHeader(key string) string { return "[hooks.state." + tomlString(key) + "]" }

// trustedHashLine is the trust record's line for hash, as guard writes it.
func trustedHashLine(hash string) string { return "trusted_hash = " + tomlString(hash) }

// tomlTable finds the first table of a TOML text (split after each newline) whose
// header line is header: the header's index and the index past its body (the next
// header, or the end); -1, -1 when there is none.
func tomlTable(lines []string, header string) (start, end int) {
	for i, l := range lines {
		if strings.TrimSpace(l) != header {
			continue
		}
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[end]), "[") {
			end++
		}
		return i, end
	}
	return -1, -1
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
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
