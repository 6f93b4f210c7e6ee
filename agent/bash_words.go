package agent

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// words expands words as bash does before running a command: braces first, then
// quotes; patterns are resolved later, where a word is used as a path.
func (a *analyzer) words(ws []*syntax.Word, cwd string, depth int) []shellWord {
	var out []shellWord
	for _, w := range ws {
		a.substs(w, cwd, depth)
		expanded := []*syntax.Word{w}
		if syntax.SplitBraces(w) {
			expanded = expanded[:0]
			for bw, err := range expand.BracesSeq(nil, w) {
				if err != nil {
					a.cannot(fmt.Sprintf("the brace expansion of %s is too large to read", quoteCmd(printNode(w))))
					expanded = nil
					out = append(out, shellWord{Text: printNode(w), Dynamic: true, GlobAt: -1})
					break
				}
				expanded = append(expanded, bw)
			}
		}
		for _, bw := range expanded {
			wb := &wordBuilder{a: a, cwd: cwd, w: shellWord{GlobAt: -1}}
			wb.parts(bw.Parts, false)
			sw := wb.w
			sw.Text, sw.pattern = wb.b.String(), wb.pat.String()
			out = append(out, sw)
		}
	}
	return out
}

// quotedHeredoc reports whether a here-document's delimiter is quoted: its body is
// then literal text, with nothing expanded.
func quotedHeredoc(r *syntax.Redirect) bool {
	if r.Word == nil {
		return false
	}
	for _, p := range r.Word.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.Contains(p.(*syntax.Lit).Value, `\`) {
				return true
			}
		}
	}
	return false
}

// heredocText is the text a here-document or here-string feeds to its command, and
// whether guard knows it (an unquoted body with an expansion is only known when the
// command runs).
func (a *analyzer) heredocText(r *syntax.Redirect, cwd string) (string, bool) {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc == nil {
			return "", true
		}
		if quotedHeredoc(r) {
			var b strings.Builder
			for _, p := range r.Hdoc.Parts {
				if l, ok := p.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				}
			}
			return b.String(), true
		}
		wb := &wordBuilder{a: a, cwd: cwd, w: shellWord{GlobAt: -1}}
		for _, p := range r.Hdoc.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				// In an unquoted body a backslash quotes only $, ` and \.
				wb.doubleQuotedLit(l.Value)
				continue
			}
			wb.parts([]syntax.WordPart{p}, true)
		}
		return wb.b.String(), !wb.w.Dynamic
	case syntax.WordHdoc:
		ws := a.words([]*syntax.Word{r.Word}, cwd, 0)
		if len(ws) != 1 || ws[0].Dynamic {
			return "", false
		}
		return ws[0].Text, true
	}
	return "", false
}

// redirects records the files a command's redirections write.
func (a *analyzer) redirects(rs []*syntax.Redirect, cwd, text string) {
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll,
			syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut, syntax.DplOut:
		default:
			continue
		}
		ws := a.words([]*syntax.Word{r.Word}, cwd, 0)
		for _, w := range ws {
			if r.Op == syntax.DplOut && !w.Dynamic && (w.Text == "-" || strings.Trim(w.Text, "0123456789") == "") {
				continue // >&2, >&-: a descriptor, not a file
			}
			what := "redirection " + r.Op.String() + " " + w.Text
			if text != "" {
				what = text + " " + what
			}
			a.target(w, cwd, OpEdit, what)
		}
	}
}
