package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"
)

// codexEntry is one guard entry of a hooks.json as Codex identifies it.
type codexEntry struct {
	Key  string // the hooks.state key
	Hash string // what trusted_hash must be
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
