package agent

import (
	"fmt"
	"strings"
)

// The shell reader below is deliberately small: it understands enough of POSIX sh
// (quotes, escapes, separators, redirections, here-documents, subshells, command
// substitution) to find the obvious write targets of an agent's command line. It is
// not an interpreter: whatever depends on a value only known when the command runs
// (a variable, a substitution's output) is marked dynamic, and the caller does not
// guess about it.

// maxShellDepth bounds the nesting of `sh -c` strings and command substitutions read
// recursively, so a hostile command cannot make the hook recurse without end.
const maxShellDepth = 8

// maxShellLen bounds the size of a command the hook reads (a tool call's command is a
// line or a script, never megabytes; a larger one is not judged).
const maxShellLen = 1 << 20

// shellWord is one word of a simple command after quote removal.
type shellWord struct {
	// Text is the word with quotes removed; expansions are left as written.
	Text string
	// Dynamic is set when the word holds an unquoted or double-quoted expansion
	// ($VAR, ${...}, $(...), `...`): its value is unknown until the command runs.
	Dynamic bool
	// Glob is set when the word holds an unquoted *, ? or [ (a pathname pattern).
	Glob bool
	// GlobAt is the byte offset in Text of the first unquoted glob character.
	GlobAt int
	// Tilde is set when the word starts with an unquoted ~.
	Tilde bool
}

// shellRedirect is one redirection of a simple command.
type shellRedirect struct {
	// Op is the operator without its file descriptor: >, >>, >|, &>, &>>, <, <<,
	// <<-, <<<, <>, >&, <&.
	Op string
	// Target is the file (or descriptor, or here-document delimiter) it names.
	Target shellWord
	// Heredoc indexes shellScript.Heredocs for << and <<- (-1 otherwise).
	Heredoc int
}

// Writes reports whether the redirection may create or change a file.
func (r shellRedirect) Writes() bool {
	switch r.Op {
	case ">", ">>", ">|", "&>", "&>>", "<>":
		return true
	case ">&":
		// >&file (not a descriptor number or -) is bash's spelling of &>file.
		t := r.Target.Text
		return !r.Target.Dynamic && t != "-" && strings.Trim(t, "0123456789") != ""
	}
	return false
}

// stepKind tells simple commands from the subshell markers between them.
type stepKind int

const (
	stepCommand stepKind = iota
	// stepEnter and stepLeave bracket a ( ... ) subshell: a cd inside it does not
	// change the directory of the commands after it.
	stepEnter
	stepLeave
)

// shellStep is one element of a parsed command line, in order.
type shellStep struct {
	Kind      stepKind
	Words     []shellWord
	Redirects []shellRedirect
}

// shellScript is a parsed command line.
type shellScript struct {
	Steps []shellStep
	// Nested holds the bodies of command substitutions ($(...) and `...`), which run
	// too and are read as scripts of their own.
	Nested []string
	// Heredocs holds the here-document bodies, in order (data, not commands; a few
	// commands such as apply_patch take their input from them).
	Heredocs []string
}

// parseShell splits src into simple commands. It fails on what it cannot read
// reliably (an unterminated quote or substitution): the caller then treats the whole
// command as one it cannot judge.
func parseShell(src string) (*shellScript, error) {
	if len(src) > maxShellLen {
		return nil, fmt.Errorf("command of %d bytes is too long to read", len(src))
	}
	p := &shellParser{src: src}
	if err := p.run(); err != nil {
		return nil, err
	}
	return &p.out, nil
}

type shellParser struct {
	src string
	i   int
	out shellScript

	cur     shellStep
	pending []string // here-document delimiters whose bodies start at the next newline
	pendTab []bool   // <<- (leading tabs stripped from the delimiter line)
}

func (p *shellParser) flush() {
	if len(p.cur.Words) > 0 || len(p.cur.Redirects) > 0 {
		p.out.Steps = append(p.out.Steps, p.cur)
	}
	p.cur = shellStep{}
}

func (p *shellParser) marker(k stepKind) {
	p.flush()
	p.out.Steps = append(p.out.Steps, shellStep{Kind: k})
}

func (p *shellParser) run() error {
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '\n':
			p.flush()
			p.i++
			if err := p.skipHeredocs(); err != nil {
				return err
			}
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '#' && p.atWordStart():
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == ';' || c == '|' || c == '&':
			if c == '&' && p.i+1 < len(p.src) && p.src[p.i+1] == '>' {
				if err := p.redirect(""); err != nil {
					return err
				}
				continue
			}
			p.flush()
			p.i++
			// ||, &&, ;;, |& are one operator; the second character needs no handling.
			if p.i < len(p.src) && (p.src[p.i] == c || (c == '|' && p.src[p.i] == '&')) {
				p.i++
			}
		case c == '(':
			p.marker(stepEnter)
			p.i++
		case c == ')':
			p.marker(stepLeave)
			p.i++
		case c == '<' || c == '>':
			if err := p.redirect(""); err != nil {
				return err
			}
		default:
			if err := p.wordOrRedirect(); err != nil {
				return err
			}
		}
	}
	p.flush()
	if len(p.pending) > 0 {
		return fmt.Errorf("here-document %q is not terminated", p.pending[0])
	}
	return nil
}

// atWordStart reports whether a '#' at p.i begins a comment (it does only at the start
// of a word).
func (p *shellParser) atWordStart() bool {
	if p.i == 0 {
		return true
	}
	switch p.src[p.i-1] {
	case ' ', '\t', '\n', ';', '&', '|', '(', ')':
		return true
	}
	return false
}

// wordOrRedirect reads a word; a word of digits directly followed by < or > is a file
// descriptor number that belongs to a redirection.
func (p *shellParser) wordOrRedirect() error {
	j := p.i
	for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
		j++
	}
	if j > p.i && j < len(p.src) && (p.src[j] == '<' || p.src[j] == '>') {
		fd := p.src[p.i:j]
		p.i = j
		return p.redirect(fd)
	}
	w, err := p.word()
	if err != nil {
		return err
	}
	p.cur.Words = append(p.cur.Words, w)
	return nil
}

var redirectOps = []string{"&>>", "<<<", "<<-", "&>", ">>", ">|", "<<", "<>", ">&", "<&", ">", "<"}

func (p *shellParser) redirect(fd string) error {
	var op string
	for _, o := range redirectOps {
		if strings.HasPrefix(p.src[p.i:], o) {
			op = o
			break
		}
	}
	p.i += len(op)
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
	if p.i >= len(p.src) || strings.IndexByte(";|&()<>\n", p.src[p.i]) >= 0 {
		return fmt.Errorf("redirection %s%s has no target", fd, op)
	}
	w, err := p.word()
	if err != nil {
		return err
	}
	r := shellRedirect{Op: op, Target: w, Heredoc: -1}
	if op == "<<" || op == "<<-" {
		p.pending = append(p.pending, w.Text)
		p.pendTab = append(p.pendTab, op == "<<-")
		r.Heredoc = len(p.out.Heredocs) + len(p.pending) - 1
	}
	p.cur.Redirects = append(p.cur.Redirects, r)
	return nil
}

// skipHeredocs skips the bodies of the here-documents opened on the line just ended:
// their text is data, not commands.
func (p *shellParser) skipHeredocs() error {
	for k, delim := range p.pending {
		found := false
		var body strings.Builder
		for p.i < len(p.src) {
			end := strings.IndexByte(p.src[p.i:], '\n')
			var line string
			if end < 0 {
				line, p.i = p.src[p.i:], len(p.src)
			} else {
				line, p.i = p.src[p.i:p.i+end], p.i+end+1
			}
			if p.pendTab[k] {
				line = strings.TrimLeft(line, "\t")
			}
			if strings.TrimSuffix(line, "\r") == delim {
				found = true
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
		if !found {
			return fmt.Errorf("here-document %q is not terminated", delim)
		}
		p.out.Heredocs = append(p.out.Heredocs, body.String())
	}
	p.pending, p.pendTab = nil, nil
	return nil
}

// word reads one word starting at p.i, removing quotes and noting expansions.
func (p *shellParser) word() (shellWord, error) {
	var b strings.Builder
	w := shellWord{GlobAt: -1}
	start := p.i
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch c {
		case ' ', '\t', '\n', '\r', ';', '|', '&', '(', ')', '<', '>':
			if c == '(' && p.i > start && p.extglob() {
				// ksh/bash extended glob such as !(x) or +(a|b): keep it in the word.
				if err := p.balanced(&b, '(', ')'); err != nil {
					return w, err
				}
				w.markGlob(b.Len())
				continue
			}
			return w.done(b.String()), nil
		case '\\':
			if p.i+1 < len(p.src) {
				if p.src[p.i+1] != '\n' { // backslash-newline is a line continuation
					b.WriteByte(p.src[p.i+1])
				}
				p.i += 2
				continue
			}
			p.i++
		case '\'':
			end := strings.IndexByte(p.src[p.i+1:], '\'')
			if end < 0 {
				return w, fmt.Errorf("unterminated single quote at byte %d", p.i)
			}
			b.WriteString(p.src[p.i+1 : p.i+1+end])
			p.i += end + 2
		case '"':
			if err := p.doubleQuoted(&b, &w); err != nil {
				return w, err
			}
		case '$':
			if err := p.dollar(&b, &w); err != nil {
				return w, err
			}
		case '`':
			if err := p.backquote(&b); err != nil {
				return w, err
			}
			w.Dynamic = true
		case '*', '?', '[':
			w.markGlob(b.Len())
			b.WriteByte(c)
			p.i++
		case '~':
			if p.i == start {
				w.Tilde = true
			}
			b.WriteByte(c)
			p.i++
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return w.done(b.String()), nil
}

func (w *shellWord) markGlob(at int) {
	if !w.Glob {
		w.Glob, w.GlobAt = true, at
	}
}

func (w shellWord) done(text string) shellWord {
	w.Text = text
	return w
}

// extglob reports whether the '(' at p.i follows one of ?*+@! (an extended glob).
func (p *shellParser) extglob() bool {
	return strings.IndexByte("?*+@!", p.src[p.i-1]) >= 0
}

func (p *shellParser) doubleQuoted(b *strings.Builder, w *shellWord) error {
	open := p.i
	p.i++
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch c {
		case '"':
			p.i++
			return nil
		case '\\':
			if p.i+1 < len(p.src) && strings.IndexByte("$`\"\\\n", p.src[p.i+1]) >= 0 {
				if p.src[p.i+1] != '\n' {
					b.WriteByte(p.src[p.i+1])
				}
				p.i += 2
				continue
			}
			b.WriteByte(c)
			p.i++
		case '$':
			if err := p.dollar(b, w); err != nil {
				return err
			}
		case '`':
			if err := p.backquote(b); err != nil {
				return err
			}
			w.Dynamic = true
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return fmt.Errorf("unterminated double quote at byte %d", open)
}

// dollar reads an expansion starting at '$'. A lone '$' (before a space, a quote or
// the end) is a literal dollar sign.
func (p *shellParser) dollar(b *strings.Builder, w *shellWord) error {
	if p.i+1 >= len(p.src) {
		b.WriteByte('$')
		p.i++
		return nil
	}
	next := p.src[p.i+1]
	switch {
	case next == '(':
		start := p.i
		if strings.HasPrefix(p.src[p.i:], "$((") {
			// Arithmetic: its value is a number, nothing runs.
			p.i++
			if err := p.balanced(b, '(', ')'); err != nil {
				return err
			}
			w.Dynamic = true
			return nil
		}
		p.i++
		var inner strings.Builder
		if err := p.balanced(&inner, '(', ')'); err != nil {
			return err
		}
		body := inner.String()
		p.out.Nested = append(p.out.Nested, body[1:len(body)-1])
		b.WriteString(p.src[start:p.i])
		w.Dynamic = true
	case next == '{':
		start := p.i
		p.i++
		var inner strings.Builder
		if err := p.balanced(&inner, '{', '}'); err != nil {
			return err
		}
		b.WriteString(p.src[start:p.i])
		w.Dynamic = true
	case next == '\'':
		// $'...' ANSI-C quoting: the text is literal once escapes are applied; we keep
		// it, marked dynamic when it holds escapes we do not decode.
		end := p.i + 2
		for end < len(p.src) && p.src[end] != '\'' {
			if p.src[end] == '\\' {
				w.Dynamic = true
				end++
			}
			end++
		}
		if end >= len(p.src) {
			return fmt.Errorf("unterminated $' quote at byte %d", p.i)
		}
		b.WriteString(p.src[p.i+2 : end])
		p.i = end + 1
	case next == '_' || next == '@' || next == '*' || next == '#' || next == '?' || next == '-' ||
		next == '$' || next == '!' || (next >= '0' && next <= '9') ||
		(next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z'):
		start := p.i
		p.i += 2
		if next == '_' || (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') {
			for p.i < len(p.src) && isNameByte(p.src[p.i]) {
				p.i++
			}
		}
		b.WriteString(p.src[start:p.i])
		w.Dynamic = true
	default:
		b.WriteByte('$')
		p.i++
	}
	return nil
}

func isNameByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// balanced copies from the opening bracket at p.i to its matching close (inclusive)
// into b, skipping over quotes so that a bracket inside them does not count.
func (p *shellParser) balanced(b *strings.Builder, open, close byte) error {
	start := p.i
	depth := 0
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch c {
		case '\\':
			p.i += 2
			continue
		case '\'':
			end := strings.IndexByte(p.src[p.i+1:], '\'')
			if end < 0 {
				return fmt.Errorf("unterminated single quote at byte %d", p.i)
			}
			p.i += end + 2
			continue
		case '"':
			var discard strings.Builder
			var w shellWord
			if err := p.doubleQuoted(&discard, &w); err != nil {
				return err
			}
			continue
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				p.i++
				b.WriteString(p.src[start:p.i])
				return nil
			}
		}
		p.i++
	}
	if p.i > len(p.src) {
		p.i = len(p.src)
	}
	return fmt.Errorf("unterminated %c at byte %d", open, start)
}

func (p *shellParser) backquote(b *strings.Builder) error {
	start := p.i
	p.i++
	var inner strings.Builder
	for p.i < len(p.src) {
		c := p.src[p.i]
		if c == '\\' && p.i+1 < len(p.src) {
			inner.WriteByte(p.src[p.i+1])
			p.i += 2
			continue
		}
		if c == '`' {
			p.i++
			p.out.Nested = append(p.out.Nested, inner.String())
			b.WriteString(p.src[start:p.i])
			return nil
		}
		inner.WriteByte(c)
		p.i++
	}
	return fmt.Errorf("unterminated backquote at byte %d", start)
}
