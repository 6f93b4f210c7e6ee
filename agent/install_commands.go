package agent

import "strings"

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
