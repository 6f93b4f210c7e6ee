package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/guardlocks/guard/guard"
)

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
func hookStateHeader(key string) string { return "[hooks.state." + guard.QuoteTOML(key) + "]" }

// trustedHashLine is the trust record's line for hash, as guard writes it.
func trustedHashLine(hash string) string { return "trusted_hash = " + guard.QuoteTOML(hash) }

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
