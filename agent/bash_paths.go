package agent

import (
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/guard"
)

// target records an operation on the path a word names, or notes why it cannot.
func (a *analyzer) target(w shellWord, cwd, op, text string) {
	a.targetDeep(w, cwd, op, text, false)
}

// deepTarget records an edit that reaches into the subtree of the path (a removal or
// a move of a folder takes everything inside it along).
func (a *analyzer) deepTarget(w shellWord, cwd, text string) {
	a.targetDeep(w, cwd, OpEdit, text, true)
}

func (a *analyzer) targetDeep(w shellWord, cwd, op, text string, descend bool) {
	if w.Dynamic {
		a.cannot("a target of " + quoteCmd(text) + " (" + w.Text + ") is only known when it runs")
		return
	}
	if !w.Glob && (strings.HasPrefix(w.Text, "/dev/") || w.Text == "/dev") {
		return
	}
	if w.Glob {
		base := cwd
		pat := w.pattern
		home, _ := a.env("HOME")
		switch {
		case w.Tilde && home != "" && (pat == "~" || strings.HasPrefix(pat, "~/")):
			pat = patternQuote(home) + pat[1:]
		case w.Tilde:
			a.cannot("a target of " + quoteCmd(text) + " (" + w.Text + ") cannot be located")
			return
		case filepath.IsAbs(pat):
		case base == "":
			a.cannot("a target of " + quoteCmd(text) + " (" + w.Text + ") cannot be located")
			return
		default:
			pat = patternQuote(base) + "/" + pat
		}
		for _, h := range globTargets(pat, a.listNames, a.step) {
			a.effect(Effect{Op: op, Path: h.Path, Command: text, Descend: descend || h.Descend})
		}
		return
	}
	p, ok := a.resolve(w, cwd)
	if !ok {
		a.cannot("a target of " + quoteCmd(text) + " (" + w.Text + ") cannot be located")
		return
	}
	a.effect(Effect{Op: op, Path: p, Command: text, Descend: descend})
}

// patternQuote escapes the pattern characters of a literal path.
func patternQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\!@+()|`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// resolve makes a word an absolute, clean path, where the kernel reaches it
// (resolvePath).
func (a *analyzer) resolve(w shellWord, cwd string) (string, bool) {
	t := w.Text
	if w.Dynamic || t == "" {
		return "", false
	}
	if w.Tilde {
		home, ok := a.env("HOME")
		switch {
		case !ok || home == "":
			return "", false
		case t == "~":
			t = home
		case strings.HasPrefix(t, "~/"):
			t = home + t[1:]
		default:
			return "", false // ~user
		}
	}
	if !filepath.IsAbs(t) && cwd == "" {
		return "", false
	}
	return a.resolvePath(t, cwd)
}

// resolvePath is t (absolute, or relative to cwd) as the kernel reaches it once the
// command has made its links (guard.PathResolver, with the links of ln -s followed
// wherever they stand); not ok when it cannot be known: a loop of links, or a link
// whose target is only known when the command runs.
func (a *analyzer) resolvePath(t, cwd string) (string, bool) {
	r := guard.PathResolver{}
	unknown := false
	if len(a.links) > 0 {
		r.Eager = func(p string) (string, bool) {
			target, ok := a.links[p]
			if ok && target == unknownLink {
				unknown = true
				return "", false
			}
			return target, ok
		}
	}
	p, err := r.Resolve(cwd, t)
	if err != nil || unknown {
		return "", false
	}
	return p, true
}

// step is dir/name as the kernel reaches it, for a glob's literal parts.
func (a *analyzer) step(dir, name string) string {
	if p, ok := a.resolvePath(name, dir); ok {
		return p
	}
	return filepath.Join(dir, name)
}
