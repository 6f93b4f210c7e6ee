package agent

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// Commands are parsed with mvdan.cc/sh's bash parser (the one behind shfmt), so that
// the whole bash grammar is read as bash reads it. The parser is not an interpreter:
// whatever depends on a value only known when the command runs (an unknown variable,
// a substitution's output) is marked dynamic, and the analyzer does not guess about it.
// Every limit below fails closed: past it the command is one guard cannot read, which
// is never allowed near a lock (CONTRACT.md section 4).

// maxShellLen bounds the size of a command the hook reads whole.
const maxShellLen = 1 << 20

// maxShellNesting bounds the bracket nesting of a command before it is parsed: the
// parser recurses per level, and a hostile command of a million "(" would exhaust the
// stack, which no recover() catches.
const maxShellNesting = 500

// parseBudget bounds the time spent parsing one command longer than budgetFrom bytes:
// a command that takes longer is one guard cannot read in time (the hook must answer
// quickly). Shorter commands parse in well under a millisecond and are not timed, so
// that a loaded machine cannot turn them into unreadable ones.
const (
	parseBudget = 80 * time.Millisecond
	budgetFrom  = 64 << 10
)

// maxShellDepth bounds the nesting of scripts read inside scripts (`sh -c`, command
// substitutions, here-documents fed to a shell, eval), so that a hostile command
// cannot make the hook recurse without end.
const maxShellDepth = 24

// errTooSlow is the parse budget running out.
var errTooSlow = errors.New("the command takes too long to read")

// budgetReader fails once the parse budget is spent; the parser asks it for the
// command a kilobyte at a time.
type budgetReader struct {
	r        io.Reader
	deadline time.Time
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if !b.deadline.IsZero() && time.Now().After(b.deadline) {
		return 0, errTooSlow
	}
	return b.r.Read(p)
}

// parseShell parses src as bash. It fails on what it cannot read reliably (a syntax
// error, a command too long or too deeply nested): the caller then treats the command
// as one it cannot judge, and still judges what the returned file (when not nil)
// holds.
func parseShell(src string) (*syntax.File, error) {
	if len(src) > maxShellLen {
		return nil, fmt.Errorf("the command is %d bytes long, more than the %d guard reads whole", len(src), maxShellLen)
	}
	if n := nesting(src); n > maxShellNesting {
		return nil, fmt.Errorf("the command nests brackets %d deep, more than the %d guard reads", n, maxShellNesting)
	}
	var deadline time.Time
	if len(src) > budgetFrom {
		deadline = time.Now().Add(parseBudget)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(&budgetReader{r: strings.NewReader(src), deadline: deadline}, "")
	if errors.Is(err, errTooSlow) {
		return nil, fmt.Errorf("%w (more than %v)", errTooSlow, parseBudget)
	}
	if err == nil {
		return f, nil
	}
	// Reading again with recovery keeps what could be read (a removal before an
	// unterminated here-document is still judged); the error still makes the command
	// one guard cannot read.
	f, rerr := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.RecoverErrors(maxRecoveredErrors)).Parse(&budgetReader{r: strings.NewReader(src), deadline: deadline}, "")
	if rerr != nil && errors.Is(rerr, errTooSlow) {
		f = nil
	}
	return f, err
}

// maxRecoveredErrors bounds the syntax errors the parser skips to read the rest.
const maxRecoveredErrors = 8

// nesting is the deepest running bracket depth of src, quotes not considered (an
// upper bound of what the parser recurses into; backquotes nest only with escapes that
// double per level, so they cannot nest deep in a command of bounded length).
func nesting(src string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{', '[':
			depth++
			deepest = max(deepest, depth)
		case ')', '}', ']':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// shellWord is one word of a simple command after brace expansion and quote removal.
type shellWord struct {
	// Text is the word with quotes removed; an expansion guard cannot resolve is kept
	// as written.
	Text string
	// Dynamic is set when the word holds an expansion whose value is unknown until the
	// command runs ($VAR, ${...}, $(...), `...`, $((...))).
	Dynamic bool
	// Glob is set when the word holds an unquoted *, ?, [ or extended pattern.
	Glob bool
	// GlobAt is the byte offset in Text of the first unquoted pattern character.
	GlobAt int
	// Tilde is set when the word starts with an unquoted ~.
	Tilde bool
	// pattern is Text with the quoted pattern characters escaped, for matching.
	pattern string
}

func (w *shellWord) markGlob(at int) {
	if !w.Glob {
		w.Glob, w.GlobAt = true, at
	}
}

// printNode is node as written, for messages.
func printNode(node syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.Minify(true)).Print(&b, node); err != nil {
		return "?"
	}
	return b.String()
}

// wordBuilder turns a word's parts into a shellWord.
type wordBuilder struct {
	a   *analyzer
	cwd string
	b   strings.Builder
	pat strings.Builder
	w   shellWord
}

func (wb *wordBuilder) lit(s string, quoted bool) {
	wb.b.WriteString(s)
	if quoted {
		for _, r := range s {
			if strings.ContainsRune(`*?[]\!@+()|`, r) {
				wb.pat.WriteByte('\\')
			}
			wb.pat.WriteRune(r)
		}
		return
	}
	wb.pat.WriteString(s)
}

// unquotedLit reads a literal outside quotes: a backslash quotes the next character,
// and *, ? and [ are pattern characters.
func (wb *wordBuilder) unquotedLit(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				wb.lit(s[i:i+1], true)
			}
		case c == '*' || c == '?' || c == '[':
			wb.w.markGlob(wb.b.Len())
			wb.b.WriteByte(c)
			wb.pat.WriteByte(c)
		default:
			wb.b.WriteByte(c)
			wb.pat.WriteByte(c)
		}
	}
}

// doubleQuotedLit reads a literal inside double quotes: a backslash quotes only $, `,
// ", \ and a newline.
func (wb *wordBuilder) doubleQuotedLit(s string) {
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] != '\n' {
				out.WriteByte(s[i])
			}
			continue
		}
		out.WriteByte(s[i])
	}
	wb.lit(out.String(), true)
}

func (wb *wordBuilder) dynamic(node syntax.Node) {
	wb.w.Dynamic = true
	text := printNode(node)
	wb.b.WriteString(text)
	wb.pat.WriteString(text)
}

func (wb *wordBuilder) parts(parts []syntax.WordPart, quoted bool) {
	for i, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			switch {
			case quoted:
				wb.doubleQuotedLit(p.Value)
			default:
				if i == 0 && wb.b.Len() == 0 && strings.HasPrefix(p.Value, "~") {
					wb.w.Tilde = true
				}
				wb.unquotedLit(p.Value)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				wb.lit(ansiC(p.Value), true)
			} else {
				wb.lit(p.Value, true)
			}
		case *syntax.DblQuoted:
			wb.parts(p.Parts, true)
		case *syntax.ParamExp:
			v, ok := wb.a.param(p, wb.cwd)
			// Unquoted, a value is split into fields and globbed: only a plain one is
			// the word it looks like.
			if ok && (quoted || !strings.ContainsAny(v, " \t\n*?[")) {
				wb.lit(v, true)
				continue
			}
			wb.dynamic(p)
		case *syntax.CmdSubst:
			if v, ok := wb.a.knownSubst(p, wb.cwd); ok && (quoted || !strings.ContainsAny(v, " \t\n*?[")) {
				wb.lit(v, true)
				continue
			}
			wb.dynamic(p)
		case *syntax.ProcSubst:
			// <(cmd) is a /dev/fd path; the command inside is read on its own.
			wb.lit("/dev/fd/63", true)
		case *syntax.ExtGlob:
			wb.w.markGlob(wb.b.Len())
			text := printNode(p)
			wb.b.WriteString(text)
			wb.pat.WriteString(text)
		default:
			// Command and arithmetic substitutions, and whatever else is only known
			// when the command runs.
			wb.dynamic(part)
		}
	}
}

// ansiC decodes the escapes of bash's $'...' quoting that matter for file names; an
// escape it does not know is kept as written.
func ansiC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'x':
			n, k := 0, 0
			for ; k < 2 && i+1 < len(s) && isHex(s[i+1]); k++ {
				i++
				n = n*16 + hexVal(s[i])
			}
			if k == 0 {
				b.WriteString(`\x`)
			} else {
				b.WriteByte(byte(n))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n := int(c - '0')
			for k := 0; k < 2 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7'; k++ {
				i++
				n = n*8 + int(s[i]-'0')
			}
			b.WriteByte(byte(n))
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}
