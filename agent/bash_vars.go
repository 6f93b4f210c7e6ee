package agent

import (
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/internal/gitrun"
	"mvdan.cc/sh/v3/syntax"
)

// declare reads declare, export, local, readonly and typeset: their assignments set
// variables.
func (a *analyzer) declare(c *syntax.DeclClause, cwd string, depth int) {
	for _, as := range c.Args {
		a.substs(as, cwd, depth)
		if as.Name != nil && as.Value != nil {
			a.assign(as.Name.Value, as, cwd, depth)
		} else if as.Name != nil && !as.Naked {
			a.forget(as.Name.Value)
		}
	}
}

// assign records NAME=value: a literal value is known from now on.
func (a *analyzer) assign(name string, as *syntax.Assign, cwd string, depth int) {
	if as.Append || as.Array != nil || as.Index != nil || as.Value == nil {
		a.forget(name)
		return
	}
	ws := a.words([]*syntax.Word{as.Value}, cwd, depth)
	if len(ws) == 1 && !ws[0].Dynamic && !ws[0].Glob {
		v := ws[0].Text
		if ws[0].Tilde {
			// NAME=~/x: bash expands the tilde in an assignment's value.
			home, ok := a.env("HOME")
			if !ok || !(v == "~" || strings.HasPrefix(v, "~/")) {
				a.forget(name)
				return
			}
			v = home + v[1:]
		}
		a.vars[name] = v
		delete(a.unset, name)
		return
	}
	a.forget(name)
}

// forget makes a variable's value unknown.
func (a *analyzer) forget(name string) {
	delete(a.vars, name)
	if a.unset == nil {
		a.unset = map[string]bool{}
	}
	a.unset[name] = true
}

// env is the value of a variable the environment may give (HOME, CDPATH): the one
// assigned earlier in the command, else the environment's; ok is false when it was
// assigned something only known when the command runs.
func (a *analyzer) env(name string) (string, bool) {
	if v, ok := a.vars[name]; ok {
		return v, true
	}
	if a.unset[name] {
		return "", false
	}
	switch name {
	case "HOME":
		return a.home, a.home != ""
	case "CDPATH":
		return a.cdpath, true
	}
	return "", false
}

// param is the value of a parameter expansion when guard knows it: a variable set
// to a literal earlier in the command, HOME, or PWD.
func (a *analyzer) param(p *syntax.ParamExp, cwd string) (string, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 || len(p.Modifiers) > 0 || p.NestedParam != nil {
		return "", false
	}
	name := p.Param.Value
	if v, ok := a.vars[name]; ok {
		return v, true
	}
	switch {
	case name == "HOME":
		if v, ok := a.env("HOME"); ok && v != "" {
			return v, true
		}
	case name == "PWD" && cwd != "":
		return cwd, true
	}
	return "", false
}

// knownSubst is the output of a command substitution guard knows without running
// it: $(pwd), $(git rev-parse --show-toplevel) and $(mktemp ...) (a new name in the
// temporary folder), the ways agents name the folders they work in.
func (a *analyzer) knownSubst(cs *syntax.CmdSubst, cwd string) (string, bool) {
	if len(cs.Stmts) != 1 || cwd == "" {
		return "", false
	}
	st := cs.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || len(call.Assigns) > 0 {
		return "", false
	}
	var words []string
	for _, w := range call.Args {
		lit := w.Lit()
		if lit == "" {
			return "", false
		}
		words = append(words, lit)
	}
	switch strings.Join(words, " ") {
	case "pwd", "pwd -P", "pwd -L":
		return cwd, true
	case "git rev-parse --show-toplevel":
		if top := gitrun.RepoTop(cwd); top != "" {
			return top, true
		}
	case "mktemp", "mktemp -d", "mktemp --directory", "mktemp -t", "mktemp -d -t":
		return filepath.Join(a.tmp, "tmp.XXXXXXXXXX"), true
	}
	return "", false
}
