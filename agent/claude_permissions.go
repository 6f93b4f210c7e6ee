package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/guard"
)

// Claude Code's own permission rules, as far as the sandbox rewrite needs them. Once a
// hook rewrites a Bash command, Claude judges the rewritten command, which none of the
// user's rules name: so guard asks Claude's rules about the original first, and answers
// allow (no prompt) only where they would have run it without one, ask otherwise, and
// deny where they deny it. Every doubt falls on the side of a prompt: the rules are
// matched strictly for allow (no wrapper stripped, nothing expanded, every part of a
// compound command named) and loosely for deny and ask.

// ClaudeRuleSource is one settings file whose permissions apply.
type ClaudeRuleSource struct {
	// Path is the settings file.
	Path string
	// Scope is managed, local, project or user.
	Scope string
}

// ClaudeSettingsFiles returns the settings files Claude Code reads permissions from,
// highest precedence first: the managed policy file (managed, "" for none), the
// project's .claude/settings.local.json and .claude/settings.json, and the user's
// settings.json ($CLAUDE_CONFIG_DIR, else ~/.claude). The project is
// $CLAUDE_PROJECT_DIR (Claude Code sets it for its hooks), else the repository that
// holds cwd, else cwd.
func ClaudeSettingsFiles(env *guard.Env, cwd, managed string) []ClaudeRuleSource {
	var out []ClaudeRuleSource
	if managed != "" {
		out = append(out, ClaudeRuleSource{Path: managed, Scope: "managed"})
	}
	project := env.Env("CLAUDE_PROJECT_DIR")
	if project == "" || !filepath.IsAbs(project) {
		project = projectRoot(cwd)
	}
	out = append(out,
		ClaudeRuleSource{Path: filepath.Join(project, ".claude", "settings.local.json"), Scope: "local"},
		ClaudeRuleSource{Path: filepath.Join(project, ".claude", "settings.json"), Scope: "project"})
	if user, err := SettingsPath(env, Claude, true); err == nil {
		out = append(out, ClaudeRuleSource{Path: user, Scope: "user"})
	}
	return out
}

// claudeRule is one permission rule and the file it came from.
type claudeRule struct {
	text, file string
}

// ClaudeRules are the permission rules of every settings file, merged as Claude Code
// merges them (a rule in any file counts), and the default mode of the file with the
// highest precedence that sets one.
type ClaudeRules struct {
	allow, ask, deny []claudeRule
	// DefaultMode is permissions.defaultMode; ModeFile the file that set it.
	DefaultMode, ModeFile string
}

// LoadClaudeRules reads the permissions of the settings files (absent files are
// skipped). A file that cannot be read or is not valid is an error naming it: guard
// cannot tell what it allows or denies.
func LoadClaudeRules(files []ClaudeRuleSource) (*ClaudeRules, error) {
	r := &ClaudeRules{}
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("Claude Code settings %s: %w", f.Path, err)
		}
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		var doc struct {
			Permissions *struct {
				Allow       []string `json:"allow"`
				Ask         []string `json:"ask"`
				Deny        []string `json:"deny"`
				DefaultMode string   `json:"defaultMode"`
			} `json:"permissions"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("Claude Code settings %s: not settings guard can read: %w", f.Path, err)
		}
		p := doc.Permissions
		if p == nil {
			continue
		}
		for _, list := range []struct {
			dst  *[]claudeRule
			from []string
		}{{&r.allow, p.Allow}, {&r.ask, p.Ask}, {&r.deny, p.Deny}} {
			for _, text := range list.from {
				*list.dst = append(*list.dst, claudeRule{text: text, file: f.Path})
			}
		}
		if p.DefaultMode != "" && r.DefaultMode == "" {
			r.DefaultMode, r.ModeFile = p.DefaultMode, f.Path
		}
	}
	return r, nil
}

// AddCommandLine adds the rules of the command line Claude Code was started with
// (argv after the program; nil for none): --allowedTools and --disallowedTools
// (either spelling, each value a list split at commas and spaces outside
// parentheses) and the settings --settings names (a file, or JSON text). A --settings
// guard cannot read is an error: it may deny what guard would allow.
func (r *ClaudeRules) AddCommandLine(argv []string) error {
	for i := 0; i < len(argv); i++ {
		name, value, glued := strings.Cut(argv[i], "=")
		var dst *[]claudeRule
		switch name {
		case "--allowedTools", "--allowed-tools":
			dst = &r.allow
		case "--disallowedTools", "--disallowed-tools":
			dst = &r.deny
		case "--settings":
			if !glued {
				if i+1 >= len(argv) {
					return fmt.Errorf("claude --settings without a value")
				}
				i++
				value = argv[i]
			}
			if err := r.addSettings(value); err != nil {
				return err
			}
			continue
		default:
			continue
		}
		// The option takes every word up to the next option.
		values := []string{}
		if glued {
			values = append(values, value)
		} else {
			for i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				i++
				values = append(values, argv[i])
			}
		}
		for _, v := range values {
			for _, rule := range splitToolList(v) {
				*dst = append(*dst, claudeRule{text: rule, file: "Claude Code's command line (" + name + ")"})
			}
		}
	}
	return nil
}

// addSettings adds the permissions of --settings VALUE: JSON text, or a file.
func (r *ClaudeRules) addSettings(value string) error {
	if strings.HasPrefix(strings.TrimSpace(value), "{") {
		dir, err := os.MkdirTemp("", "guard-claude-settings")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		f := filepath.Join(dir, "settings.json")
		if err := os.WriteFile(f, []byte(value), 0o600); err != nil {
			return err
		}
		more, err := LoadClaudeRules([]ClaudeRuleSource{{Path: f, Scope: "flag"}})
		if err != nil {
			return fmt.Errorf("claude --settings: %w", err)
		}
		r.merge(more, "Claude Code's --settings")
		return nil
	}
	if _, err := os.Stat(value); err != nil {
		return fmt.Errorf("claude --settings %s: %w", value, err)
	}
	more, err := LoadClaudeRules([]ClaudeRuleSource{{Path: value, Scope: "flag"}})
	if err != nil {
		return err
	}
	r.merge(more, "")
	return nil
}

// merge adds more's rules (named from, when not "").
func (r *ClaudeRules) merge(more *ClaudeRules, from string) {
	for _, list := range []struct{ dst, src *[]claudeRule }{{&r.allow, &more.allow}, {&r.ask, &more.ask}, {&r.deny, &more.deny}} {
		for _, rule := range *list.src {
			if from != "" {
				rule.file = from
			}
			*list.dst = append(*list.dst, rule)
		}
	}
}

// splitToolList splits a --allowedTools value at commas and spaces outside
// parentheses ("Bash(git log:*) Edit" is two rules).
func splitToolList(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case (c == ',' || c == ' ') && depth == 0:
			if t := strings.TrimSpace(s[start:i]); t != "" {
				out = append(out, t)
			}
			start = i + 1
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// ClaudeAnswer is what Claude Code's own rules would do with a Bash command.
type ClaudeAnswer struct {
	// Decision is Allow (it runs without a prompt), Ask (Claude would prompt) or Deny.
	Decision Decision
	// Why says which rule or mode decided, for the reason the agent is shown.
	Why string
	// Rule is set when a rule (or a settings file guard cannot read) decided, not the
	// absence of one.
	Rule bool
}

// JudgeBash answers how Claude Code's permission rules and mode would treat command
// run in cwd (mode is the call's permission_mode, "" for the settings' default);
// segments are the simple commands guard's reader found in it (nil: read here). Deny rules are
// tried first, then ask, then allow, as Claude Code evaluates them; what no rule
// allows is asked about, except in bypassPermissions mode (it runs) and dontAsk mode
// (it is refused).
func (r *ClaudeRules) JudgeBash(command, cwd, mode string, segments []Segment) ClaudeAnswer {
	if mode == "" {
		mode = r.DefaultMode
	}
	if segments == nil {
		segments = analyzeBash(command, cwd, shellEnv{}, nil).Segments
	}
	// The command is split once: deny and ask rules try its parts, allow rules must
	// name each of them.
	parts, plain := strictParts(command)
	loose := looseForms(command, parts, segments)
	for _, list := range []struct {
		rules []claudeRule
		d     Decision
	}{{r.deny, Deny}, {r.ask, Ask}} {
		for _, rule := range list.rules {
			content, ok := bashRuleContent(rule.text)
			if !ok {
				continue
			}
			for _, form := range loose {
				if bashRuleMatches(content, form, true) {
					return ClaudeAnswer{Decision: list.d, Rule: true, Why: fmt.Sprintf("Claude Code's %s rule %q in %s matches %s", list.d, rule.text, rule.file, quoteCmd(form))}
				}
			}
		}
	}
	switch mode {
	case "bypassPermissions":
		return ClaudeAnswer{Decision: Allow, Why: "Claude Code runs in bypassPermissions mode"}
	case "plan":
		return ClaudeAnswer{Decision: Ask, Rule: true, Why: "Claude Code is in plan mode"}
	}
	if why, ok := r.allowed(command, parts, plain); ok {
		return ClaudeAnswer{Decision: Allow, Why: why}
	}
	if mode == "dontAsk" {
		return ClaudeAnswer{Decision: Deny, Why: "Claude Code is in dontAsk mode and no allow rule in its settings names this command, so Claude Code would refuse it"}
	}
	return ClaudeAnswer{Decision: Ask, Why: "no allow rule in Claude Code's settings names every part of this command"}
}

// allowed reports whether allow rules name the command: the whole of it exactly, or
// each of its parts (a simple command with no expansion and no redirection other than
// to /dev/null or between descriptors), each by a rule of its own.
// parts and plain are strictParts(command).
func (r *ClaudeRules) allowed(command string, parts []string, plain bool) (string, bool) {
	for _, rule := range r.allow {
		if content, ok := bashRuleContent(rule.text); ok && (content == "" || content == "*") {
			return fmt.Sprintf("Claude Code's allow rule %q in %s allows every command", rule.text, rule.file), true
		}
	}
	trimmed := strings.TrimSpace(command)
	for _, rule := range r.allow {
		if content, ok := bashRuleContent(rule.text); ok && content == trimmed && !strings.Contains(content, "*") {
			return fmt.Sprintf("Claude Code's allow rule %q in %s", rule.text, rule.file), true
		}
	}
	if !plain || len(parts) == 0 {
		return "", false
	}
	var used []string
	for _, part := range parts {
		found := ""
		for _, rule := range r.allow {
			if content, ok := bashRuleContent(rule.text); ok && bashRuleMatches(content, part, false) {
				found = fmt.Sprintf("%q in %s", rule.text, rule.file)
				break
			}
		}
		if found == "" {
			return "", false
		}
		used = appendNew(used, found)
	}
	return "Claude Code's allow rule " + strings.Join(used, ", "), true
}
