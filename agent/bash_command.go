package agent

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/internal/cmdline"
	"mvdan.cc/sh/v3/syntax"
)

// call handles one simple command and returns the working directory after it.
func (a *analyzer) call(s *syntax.Stmt, c *syntax.CallExpr, cwd string, depth int) string {
	return a.callIn(s, c, cwd, depth, false)
}

// callIn is call; piped is set when the command's standard input is a pipe.
func (a *analyzer) callIn(s *syntax.Stmt, c *syntax.CallExpr, cwd string, depth int, piped bool) string {
	if len(c.Args) == 0 {
		// Assignments only: they set variables for the rest of the command line.
		for _, as := range c.Assigns {
			a.substs(as, cwd, depth)
			if as.Name != nil {
				a.assign(as.Name.Value, as, cwd, depth)
			}
		}
		a.redirects(s.Redirs, cwd, "")
		return cwd
	}
	for _, as := range c.Assigns {
		a.substs(as, cwd, depth)
	}
	words := a.words(c.Args, cwd, depth)
	a.redirects(s.Redirs, cwd, "")
	cmd := &command{a: a, stmt: s, cwd: cwd, depth: depth, piped: piped}
	for _, as := range c.Assigns {
		cmd.prefix += printNode(as) + " "
		if as.Name != nil {
			// NAME=value cmd: the value holds for that command alone (cd reads HOME and
			// CDPATH from it).
			if cmd.assigns == nil {
				cmd.assigns = map[string]*string{}
			}
			var val *string
			if as.Value != nil && !as.Append && as.Array == nil && as.Index == nil {
				if ws := a.words([]*syntax.Word{as.Value}, cwd, depth); len(ws) == 1 && !ws[0].Dynamic && !ws[0].Glob && !ws[0].Tilde {
					val = &ws[0].Text
				}
			}
			cmd.assigns[as.Name.Value] = val
		}
	}
	return cmd.run(words)
}

// command is one simple command being read.
type command struct {
	a     *analyzer
	stmt  *syntax.Stmt
	cwd   string
	depth int
	piped bool
	// text is the command without its wrappers, full as written, for messages.
	text, full string
	// moreArgs is set when xargs adds arguments only known when it runs.
	moreArgs bool
	// prefix are the assignments before the command, as written; assigns their
	// values (nil: only known when it runs).
	prefix  string
	assigns map[string]*string
}

// env is a variable's value for this command: its own prefix assignment, else the
// shell's (analyzer.env).
func (c *command) env(name string) (string, bool) {
	if v, ok := c.assigns[name]; ok {
		if v == nil {
			return "", false
		}
		return *v, true
	}
	return c.a.env(name)
}

// run sees through the command's wrappers and reads what the real command does; it
// returns the working directory after it.
func (c *command) run(words []shellWord) string {
	a := c.a
	after := c.cwd
	c.full = c.prefix + joinWords(words)
	plain := make([]string, len(words))
	for i, w := range words {
		plain[i] = w.Text
	}
	u := cmdline.Unwrap(plain)
	for _, d := range u.Dirs {
		w := shellWord{Text: d.Text, GlobAt: -1}
		if d.At >= 0 && words[d.At].Dynamic {
			w.Dynamic = true
		}
		c.cwd = a.chdir(w, c.cwd)
	}
	if u.Opaque != "" {
		a.cannot(u.Opaque + " (" + quoteCmd(c.full) + "): guard cannot locate what it writes")
		c.cwd = ""
	}
	for _, wr := range u.Writes {
		w := shellWord{Text: wr.Text, GlobAt: -1}
		if wr.At >= 0 {
			w = words[wr.At]
			if w.Text != wr.Text { // a value glued to its option (-oFILE)
				w = shellWord{Text: wr.Text, Dynamic: w.Dynamic, GlobAt: -1}
			}
		}
		a.target(w, c.cwd, OpEdit, c.full)
	}
	if u.Shell != nil {
		if u.Shell.At >= 0 && words[u.Shell.At].Dynamic {
			a.cannot("the shell text of " + quoteCmd(c.full) + " is only known when it runs")
			return after
		}
		a.script(u.Shell.Text, c.cwd, c.depth+1)
		return after
	}
	if len(u.Argv) == 0 {
		return after
	}
	var real []shellWord
	if u.At >= 0 {
		real = words[u.At:]
	} else {
		dynamic := false
		for _, w := range words {
			dynamic = dynamic || w.Dynamic
		}
		for _, t := range u.Argv {
			real = append(real, shellWord{Text: t, Dynamic: dynamic, GlobAt: -1, pattern: t})
		}
	}
	c.moreArgs = u.MoreArgs
	c.text = joinWords(real)
	a.out.Segments = append(a.out.Segments, Segment{Text: c.text, Dir: c.cwd, Full: c.full})
	if real[0].Dynamic {
		a.cannot("the command name of " + quoteCmd(c.text) + " is only known when it runs")
		return after
	}
	name := cmdline.Program(real[0].Text)
	if cmdline.IsWrapper(name) {
		// cmdline stops after a bounded chain (env env env ...): what runs after it is
		// not read.
		a.cannot(quoteCmd(c.full) + " has more wrappers than guard follows")
		return after
	}
	if a.classify != nil && c.cwd != "" {
		args := append([]string{name}, u.Argv[1:]...)
		op, projects, dry, err := a.classify(args, c.cwd)
		switch {
		case err != nil:
			a.cannot("whether " + quoteCmd(c.text) + " publishes: " + err.Error())
		case op != "":
			if len(projects) == 0 {
				projects = []string{c.cwd}
			}
			// Each project it publishes decides (an artifact's own project too).
			for _, project := range projects {
				a.effect(Effect{Op: op, Path: project, Command: c.text, DryRun: dry, Publication: true})
			}
		}
	}
	if name == "cd" || name == "pushd" {
		return c.cd(name, real[1:])
	}
	if name == "set" {
		a.setOptions(real[1:])
	}
	if name == "popd" {
		return ""
	}
	c.program(name, real[0].Text, real[1:])
	return after
}

// cd returns the directory cd (or pushd) moves to ("" when it cannot be located), as
// bash finds it: a bare cd goes to $HOME (the one the command itself may set: HOME=d
// cd); a relative name that does not start with . or .. is looked for in each folder
// of $CDPATH before the current one; cd -L (the default) removes "name/.." as
// written, cd -P (or after set -P) where the kernel resolves it.
func (c *command) cd(name string, args []shellWord) string {
	a := c.a
	physical := a.physical
	for _, w := range args {
		t := w.Text
		if t == "--" || !strings.HasPrefix(t, "-") || t == "-" || name != "cd" {
			break
		}
		for _, l := range t[1:] {
			switch l {
			case 'P':
				physical = true
			case 'L':
				physical = false
			}
		}
	}
	ops := operands(args, "")
	if len(ops) == 0 {
		if home, ok := c.env("HOME"); ok && home != "" {
			return c.cdTo(shellWord{Text: home, GlobAt: -1}, c.cwd, physical)
		}
		return ""
	}
	w := ops[0]
	switch {
	case w.Text == "-":
		return ""
	case w.Dynamic || w.Glob:
		return ""
	}
	t := w.Text
	if !w.Tilde && !filepath.IsAbs(t) && t != "." && t != ".." && !strings.HasPrefix(t, "./") && !strings.HasPrefix(t, "../") {
		cdpath, ok := c.env("CDPATH")
		if !ok {
			return "" // CDPATH only known when it runs: so is where cd goes
		}
		if cdpath != "" {
			for _, entry := range strings.Split(cdpath, ":") {
				if entry == "" {
					entry = "."
				}
				base := c.cdTo(shellWord{Text: entry, GlobAt: -1}, c.cwd, physical)
				if base == "" {
					return ""
				}
				if dir := c.cdTo(w, base, physical); dir != "" && a.isDir(dir) {
					return dir
				}
			}
		}
	}
	return c.cdTo(w, c.cwd, physical)
}

// cdTo is the folder cd reaches from cwd by word w: as the kernel resolves it when
// physical, else with "name/.." removed as written (bash's cd -L), then the links
// the command made followed.
func (c *command) cdTo(w shellWord, cwd string, physical bool) string {
	a := c.a
	if physical {
		return a.chdir(w, cwd)
	}
	t := w.Text
	if w.Tilde {
		p, ok := a.resolve(w, cwd)
		if !ok {
			return ""
		}
		t = p
	}
	if !filepath.IsAbs(t) {
		if cwd == "" {
			return ""
		}
		t = cwd + "/" + t
	}
	return filepath.Clean(t)
}

// isDir reports whether p is a folder, on disk or as a link the command made to one.
func (a *analyzer) isDir(p string) bool {
	if real, ok := a.resolvePath(p, ""); ok {
		p = real
	}
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// setOptions reads set's options that change how paths resolve: -P (-o physical)
// makes cd physical.
func (a *analyzer) setOptions(args []shellWord) {
	for i, w := range args {
		t := w.Text
		switch {
		case (t == "-o" || t == "+o") && i+1 < len(args) && args[i+1].Text == "physical":
			a.physical = t == "-o"
		case len(t) > 1 && (t[0] == '-' || t[0] == '+') && t[1] != '-' && strings.ContainsRune(t[1:], 'P'):
			a.physical = t[0] == '-'
		}
	}
}

// addLinks records the symbolic links ln -s makes (ln's arguments), for the paths
// of the commands after it: ln -s locked x && echo > x/f writes into locked.
func (c *command) addLinks(args []shellWord) {
	a := c.a
	if !hasShort(args, 's') && !hasFlag(args, "--symbolic") {
		return
	}
	ops, dir := operandsWithTarget(args, optionArgs["ln"])
	noDeref := hasShort(args, 'T') || hasShort(args, 'n') || hasFlag(args, "--no-target-directory", "--no-dereference")
	var srcs []shellWord
	var at func(src shellWord) (shellWord, bool)
	inDir := func(d shellWord) func(shellWord) (shellWord, bool) {
		return func(src shellWord) (shellWord, bool) {
			base := filepath.Base(strings.TrimRight(src.Text, "/"))
			return shellWord{Text: d.Text + "/" + base, Dynamic: d.Dynamic || src.Dynamic, Tilde: d.Tilde, GlobAt: -1}, !d.Glob
		}
	}
	switch {
	case dir != nil:
		srcs, at = ops, inDir(*dir)
	case len(ops) == 1:
		srcs, at = ops, inDir(shellWord{Text: ".", GlobAt: -1})
	case len(ops) == 2 && (noDeref || !c.isDirWord(ops[1])):
		last := ops[1]
		srcs, at = ops[:1], func(shellWord) (shellWord, bool) { return last, !last.Glob }
	case len(ops) >= 2:
		srcs, at = ops[:len(ops)-1], inDir(ops[len(ops)-1])
	}
	for _, src := range srcs {
		linkWord, ok := at(src)
		if !ok {
			continue
		}
		link, ok := a.resolve(linkWord, c.cwd)
		if !ok {
			continue // the write of the link itself is not located: noted already
		}
		target := src.Text
		if src.Dynamic || src.Glob {
			target = unknownLink
		}
		if a.links == nil {
			a.links = map[string]string{}
		}
		a.links[link] = target
	}
}

// isDirWord reports whether w names an existing folder.
func (c *command) isDirWord(w shellWord) bool {
	p, ok := c.a.resolve(w, c.cwd)
	return ok && c.a.isDir(p)
}

// chdir is the directory a word names for cd -P, env -C, git -C or sudo -D (which
// call chdir(2): the kernel resolves it), or "" when it cannot be located (relative
// targets after it are then noted, not guessed).
func (a *analyzer) chdir(w shellWord, cwd string) string {
	if w.Glob {
		return ""
	}
	if p, ok := a.resolve(w, cwd); ok {
		return p
	}
	return ""
}
