package agent

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// bashRuleContent returns what a Bash rule says inside its parentheses ("" for a bare
// Bash, which matches every command); ok is false for a rule of another tool.
func bashRuleContent(rule string) (string, bool) {
	rule = strings.TrimSpace(rule)
	if rule == "Bash" {
		return "", true
	}
	inner, ok := strings.CutPrefix(rule, "Bash(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return "", false
	}
	return inner[:len(inner)-1], true
}

// bashRuleMatches matches a Bash rule's content against one command as Claude Code's
// documentation describes: "" and "*" match everything; a legacy "prefix:*" matches
// the prefix and the prefix followed by a space and more; a "*" anywhere matches any
// run of characters (a rule ending in " *" with no other wildcard also matches the
// command without arguments, so "ls *" matches "ls" but not "lsof"); "\*" is a literal
// star; anything else must equal the command. loose widens the match where a wider
// match can only add a prompt or a refusal (deny and ask rules): a legacy prefix
// matches without a word boundary and "*" crosses line breaks.
func bashRuleMatches(content, command string, loose bool) bool {
	if content == "" || content == "*" {
		return true
	}
	if prefix, ok := strings.CutSuffix(content, ":*"); ok {
		if loose {
			return strings.HasPrefix(command, prefix)
		}
		return command == prefix || strings.HasPrefix(command, prefix+" ")
	}
	if !hasWildcard(content) {
		if loose {
			return strings.TrimSpace(command) == strings.TrimSpace(unescapeStars(content))
		}
		return command == unescapeStars(content)
	}
	if !utf8.ValidString(content) {
		// Settings are JSON text, whose strings never hold invalid UTF-8.
		return false
	}
	return wildcardRE(content, loose).MatchString(command)
}

// hasWildcard reports whether content holds a "*" that is not escaped.
func hasWildcard(content string) bool {
	for i := 0; i < len(content); i++ {
		switch content[i] {
		case '\\':
			i++
		case '*':
			return true
		}
	}
	return false
}

func unescapeStars(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\*`, "*"), `\\`, `\`)
}

// wildcardRE compiles a wildcard rule into an anchored expression.
func wildcardRE(content string, loose bool) *regexp.Regexp {
	var b strings.Builder
	if loose {
		b.WriteString("(?s)")
	}
	b.WriteString("^")
	stars := 0
	for i := 0; i < len(content); i++ {
		if content[i] == '*' {
			stars++
		}
		if content[i] == '\\' && i+1 < len(content) {
			i++
		}
	}
	body := content
	optionalTail := stars == 1 && strings.HasSuffix(content, " *") && !strings.HasSuffix(content, `\ *`)
	if optionalTail {
		body = content[:len(content)-2]
	}
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\' && i+1 < len(body):
			i++
			b.WriteString(regexp.QuoteMeta(body[i : i+1]))
		case c == '*':
			b.WriteString(".*")
		default:
			b.WriteString(regexp.QuoteMeta(body[i : i+1]))
		}
	}
	if optionalTail {
		b.WriteString("( .*)?")
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// looseForms are the spellings deny and ask rules are tried on: the whole command,
// each of its parts as written, and every simple command guard's reader finds in it
// (inside substitutions, subshells and sh -c too), as written and without its
// wrappers (sudo, timeout, nohup, env, ...). parts are strictParts(command).
func looseForms(command string, parts []string, segments []Segment) []string {
	forms := []string{strings.TrimSpace(command)}
	for _, p := range parts {
		forms = appendNew(forms, p)
	}
	for _, seg := range segments {
		forms = appendNew(forms, seg.Full)
		forms = appendNew(forms, seg.Text)
	}
	return forms
}

// strictParts splits a command into the parts allow rules must each name: the simple
// commands joined by &&, ||, ;, | and line breaks, as written (their source text, with
// their redirections). ok is false when the command holds anything else (a subshell,
// a block, a loop, a function, a substitution or expansion, an assignment, a
// background job, a redirection to a file): Claude Code judges those by its own means,
// which guard does not reproduce, so they are never allowed here without a prompt.
func strictParts(command string) (parts []string, ok bool) {
	f, err := parseShell(command)
	if err != nil || f == nil {
		return nil, false
	}
	var walk func(s *syntax.Stmt) bool
	walk = func(s *syntax.Stmt) bool {
		if s.Negated || s.Background || s.Coprocess {
			return false
		}
		switch c := s.Cmd.(type) {
		case *syntax.BinaryCmd:
			if len(s.Redirs) > 0 {
				return false
			}
			return walk(c.X) && walk(c.Y)
		case *syntax.CallExpr:
			if len(c.Assigns) > 0 || len(c.Args) == 0 || !plainRedirects(s.Redirs) {
				return false
			}
			for _, w := range c.Args {
				if !plainWord(w) {
					return false
				}
			}
			start, end := s.Pos().Offset(), s.End().Offset()
			if int(end) > len(command) || start > end {
				return false
			}
			text := strings.TrimRight(strings.TrimSpace(command[start:end]), ";")
			parts = append(parts, strings.TrimSpace(text))
			return true
		}
		return false
	}
	for _, s := range f.Stmts {
		if !walk(s) {
			return nil, false
		}
	}
	return parts, true
}

// plainWord reports whether w holds only literal text and quotes (no expansion of any
// kind: the text allow rules are matched on is then what runs).
func plainWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// plainRedirects reports whether every redirection only joins descriptors (2>&1) or
// discards into /dev/null: none writes a file a rule would have to name.
func plainRedirects(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		if r.Word == nil || r.Hdoc != nil || !plainWord(r.Word) {
			return false
		}
		target := r.Word.Lit()
		switch r.Op {
		case syntax.DplOut, syntax.DplIn:
			if target != "-" && strings.Trim(target, "0123456789") != "" {
				return false
			}
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut, syntax.RdrIn:
			if target != "/dev/null" {
				return false
			}
		default:
			return false
		}
	}
	return true
}
