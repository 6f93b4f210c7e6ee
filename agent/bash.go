package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/cmdline"
	"github.com/guardlocks/guard/internal/gitrun"
)

// Op names the agent hook asks the policy about: guard's own (guard/ops.go).
const (
	OpEdit   = guard.OpEdit
	OpCommit = guard.OpCommit
	OpPush   = guard.OpPush
	// OpReleaseTag is pushing a tag.
	OpReleaseTag = guard.OpReleaseTag
)

// Effect is one thing a shell command would do that guard can judge: an operation on
// a path.
type Effect struct {
	// Op is edit, commit, push or a publication operation.
	Op string
	// Path is absolute: the file written, or the directory the operation acts on.
	Path string
	// Command is the simple command that has the effect, for messages.
	Command string
	// DryRun marks a publication command's dry-run form: it publishes nothing.
	DryRun bool
	// Publication is set for a publication operation (decided by the markers as well
	// as the locks).
	Publication bool
	// Descend is set when the operation reaches into a folder's whole subtree
	// (rm -r, mv, chmod -R, git checkout): locks inside the folder count too.
	Descend bool
	// SkipsHooks marks a git commit or push made without guard's git hook
	// (--no-verify, -n, core.hooksPath set elsewhere): the agent hook judges what it
	// commits (commitPaths: the index of the repository at Path) or publishes
	// (pushPaths) instead. AllChanges adds, for a commit, the changes of the working
	// tree (commit -a, commit PATHS, or files staged earlier in the same command), for
	// a push the tags.
	SkipsHooks, AllChanges bool
}

// ClassifyFunc tells which publication operation a command (program first) performs
// when run in dir: op is "" when it publishes nothing; projects are the directories of
// the projects it publishes (the one it acts on first, then those of the artifacts it
// uploads: npm publish ../priv/pkg.tgz publishes ../priv); dryRun marks a form that
// only rehearses. The publish package provides it (agent and publish are siblings, so
// cmd/guard wires it in).
type ClassifyFunc func(args []string, dir string) (op string, projects []string, dryRun bool, err error)

// BashAnalysis is what guard could read from a shell command.
type BashAnalysis struct {
	// Effects are the write targets and operations found.
	Effects []Effect
	// Segments are the simple commands (words joined by spaces) with the directory
	// each runs in, for Bash(...) permission rules.
	Segments []Segment
	// Unjudged are the parts guard could not read (a construct it cannot parse, a
	// command too long or too deep, a target only known when it runs): near a lock
	// the hook asks (CONTRACT.md section 4).
	Unjudged []string
	// Guard are the guard commands the command line runs (guardcmd.go).
	Guard []GuardCall
	// Unknown are the programs whose writes guard cannot know (interpreter code,
	// builds, tests, scripts): allowed with a warning, asked near a lock under
	// [agent] strict.
	Unknown []string
}

// Segment is one simple command of a command line.
type Segment struct {
	// Text is the command itself, without leading assignments, keywords and
	// wrappers (sudo, env, nohup, ...); Full is the simple command as written.
	Text string
	// Dir is the directory it runs in ("" when a cd to an unknown place came first).
	Dir  string
	Full string
}

// analyzer walks a parsed command line, tracking the working directory through cd
// and the variables whose values are plain literals.
type analyzer struct {
	home     string
	classify ClassifyFunc
	out      *BashAnalysis
	// vars are the variables known to hold a literal value; a variable assigned
	// anything else is deleted (unknown).
	vars map[string]string
	seen map[string]bool
	// tmp is the temporary folder mktemp writes into.
	tmp string
	// names are the folders globs were matched in, listed once per analysis.
	names map[string]listedNames
	// unset are the variables assigned a value guard does not know: unlike a variable
	// never assigned, they do not fall back to the environment's (HOME, CDPATH).
	unset map[string]bool
	// cdpath is the environment's CDPATH.
	cdpath string
	// links are the symbolic links the command makes before it uses them (ln -s),
	// by the path of the link: not on disk yet while guard judges, so the resolver
	// follows them wherever they stand. unknownLink marks a target only known when
	// the command runs.
	links map[string]string
	// physical is set -P: cd resolves its operand as the kernel does.
	physical bool
	// gitHooksOff is set once the command set core.hooksPath (git config): commits
	// after it skip guard's hook. gitStaged is set once it staged files (git add):
	// a commit after it takes them, though the index does not hold them yet.
	gitHooksOff, gitStaged bool
}

// unknownLink is the target of a link whose target guard does not know.
const unknownLink = "\x00unknown"

type listedNames struct {
	names []string
	err   error
}

// listNames lists dir for a glob, once per analysis.
func (a *analyzer) listNames(dir string) ([]string, error) {
	if l, ok := a.names[dir]; ok {
		return l.names, l.err
	}
	names, err := readNames(dir)
	if a.names == nil {
		a.names = map[string]listedNames{}
	}
	a.names[dir] = listedNames{names, err}
	return names, err
}

// AnalyzeBash reads command as bash would run it in cwd and returns its effects and
// what it could not read. home expands ~ (empty: ~ is not expanded). classify may be
// nil.
func AnalyzeBash(command, cwd, home string, classify ClassifyFunc) *BashAnalysis {
	return analyzeBash(command, cwd, shellEnv{home: home}, classify)
}

// shellEnv is what of the environment the reading of a command needs: HOME (~ and a
// bare cd), TMPDIR (mktemp; "" means /tmp) and CDPATH (where cd looks first).
type shellEnv struct{ home, tmp, cdpath string }

// analyzeBash is AnalyzeBash with the rest of the environment.
func analyzeBash(command, cwd string, env shellEnv, classify ClassifyFunc) *BashAnalysis {
	tmp := env.tmp
	if tmp == "" {
		tmp = "/tmp"
	}
	a := &analyzer{home: env.home, cdpath: env.cdpath, classify: classify, out: &BashAnalysis{}, vars: map[string]string{}, seen: map[string]bool{}, tmp: tmp}
	a.script(command, cwd, 0)
	return a.out
}

// cannot notes a part guard cannot read.
func (a *analyzer) cannot(s string) {
	if !a.seen["u"+s] {
		a.seen["u"+s] = true
		a.out.Unjudged = append(a.out.Unjudged, s)
	}
}

// unknown notes a program whose writes guard cannot know.
func (a *analyzer) unknown(s string) {
	if !a.seen["k"+s] {
		a.seen["k"+s] = true
		a.out.Unknown = append(a.out.Unknown, s)
	}
}

func (a *analyzer) effect(e Effect) { a.out.Effects = append(a.out.Effects, e) }

// script parses and walks src, returning the directory after it.
func (a *analyzer) script(src, cwd string, depth int) string {
	if depth > maxShellDepth {
		a.cannot(fmt.Sprintf("scripts nested more than %d deep", maxShellDepth))
		return cwd
	}
	f, err := parseShell(src)
	if err != nil {
		a.cannot("cannot read the command: " + err.Error())
	}
	if f == nil {
		return cwd
	}
	return a.stmts(f.Stmts, cwd, depth)
}

func (a *analyzer) stmts(list []*syntax.Stmt, cwd string, depth int) string {
	for _, s := range list {
		cwd = a.stmt(s, cwd, depth)
	}
	return cwd
}

// sub walks statements that run in a subshell (a ( ... ) or a substitution): a cd
// inside does not leak.
func (a *analyzer) sub(list []*syntax.Stmt, cwd string, depth int) {
	if depth+1 > maxShellDepth {
		a.cannot(fmt.Sprintf("commands nested more than %d deep", maxShellDepth))
		return
	}
	a.stmts(list, cwd, depth+1)
}

// branch walks statements that may run or not (a loop body, an if branch): a cd
// inside leaves the directory unknown after it.
func (a *analyzer) branch(list []*syntax.Stmt, cwd string, depth int) string {
	if after := a.stmts(list, cwd, depth); after != cwd {
		return ""
	}
	return cwd
}

// substs walks the command and process substitutions inside node (they run before
// the command they are part of, in subshells).
func (a *analyzer) substs(node syntax.Node, cwd string, depth int) {
	if node == nil {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			a.sub(n.Stmts, cwd, depth)
			return false
		case *syntax.ProcSubst:
			a.sub(n.Stmts, cwd, depth)
			return false
		}
		return true
	})
}

func (a *analyzer) stmt(s *syntax.Stmt, cwd string, depth int) string {
	for _, r := range s.Redirs {
		a.substs(r.Word, cwd, depth)
		if r.Hdoc != nil && !quotedHeredoc(r) {
			a.substs(r.Hdoc, cwd, depth)
		}
	}
	if _, ok := s.Cmd.(*syntax.CallExpr); !ok {
		a.redirects(s.Redirs, cwd, "")
	}
	after := cwd
	switch c := s.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		after = a.call(s, c, cwd, depth)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			// Every part of a pipeline runs in a subshell; the later ones read
			// the output of the earlier.
			a.stmt(c.X, cwd, depth)
			a.piped(c.Y, cwd, depth)
		} else {
			after = a.stmt(c.Y, a.stmt(c.X, cwd, depth), depth)
		}
	case *syntax.Subshell:
		a.sub(c.Stmts, cwd, depth)
	case *syntax.Block:
		after = a.stmts(c.Stmts, cwd, depth)
	case *syntax.IfClause:
		after = a.ifClause(c, cwd, depth)
	case *syntax.WhileClause:
		after = a.branch(c.Cond, cwd, depth)
		after = a.branch(c.Do, after, depth)
	case *syntax.ForClause:
		after = a.forClause(c, cwd, depth)
	case *syntax.CaseClause:
		a.substs(c.Word, cwd, depth)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				a.substs(p, cwd, depth)
			}
			if a.branch(item.Stmts, cwd, depth) != cwd {
				after = ""
			}
		}
	case *syntax.FuncDecl:
		// The body runs when the function is called: read it where it is declared.
		a.stmt(c.Body, cwd, depth)
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		a.substs(c, cwd, depth)
	case *syntax.DeclClause:
		a.declare(c, cwd, depth)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			after = a.stmt(c.Stmt, cwd, depth)
		}
	case *syntax.CoprocClause:
		if c.Stmt != nil {
			a.stmt(c.Stmt, cwd, depth)
		}
	case *syntax.TestDecl:
		a.stmt(c.Body, cwd, depth)
	default:
		a.cannot(fmt.Sprintf("a construct guard does not read (%s)", quoteCmd(printNode(s))))
	}
	if s.Background {
		return cwd
	}
	return after
}

// piped walks a command whose standard input is the output of the one before it.
func (a *analyzer) piped(s *syntax.Stmt, cwd string, depth int) {
	if c, ok := s.Cmd.(*syntax.CallExpr); ok {
		a.callIn(s, c, cwd, depth, true)
		return
	}
	a.stmt(s, cwd, depth)
}

func (a *analyzer) ifClause(c *syntax.IfClause, cwd string, depth int) string {
	after := a.branch(c.Cond, cwd, depth)
	if a.branch(c.Then, after, depth) != after {
		after = ""
	}
	if c.Else != nil && a.ifClause(c.Else, cwd, depth) != cwd {
		after = ""
	}
	return after
}

// forClause walks a for loop; over a list of literal words the loop variable takes
// each value in turn, otherwise it is unknown.
func (a *analyzer) forClause(c *syntax.ForClause, cwd string, depth int) string {
	iter, ok := c.Loop.(*syntax.WordIter)
	if !ok {
		a.substs(c.Loop, cwd, depth)
		return a.branch(c.Do, cwd, depth)
	}
	name := iter.Name.Value
	items := a.words(iter.Items, cwd, depth)
	literal := iter.InPos.IsValid() && len(items) <= 64
	for _, w := range items {
		if w.Dynamic || w.Glob {
			literal = false
		}
	}
	if !literal {
		a.forget(name)
		return a.branch(c.Do, cwd, depth)
	}
	after := cwd
	for _, w := range items {
		a.vars[name] = w.Text
		if a.branch(c.Do, cwd, depth) != cwd {
			after = ""
		}
	}
	delete(a.vars, name)
	return after
}

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

func joinWords(words []shellWord) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.Text
	}
	return strings.Join(parts, " ")
}

func quoteCmd(s string) string {
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return "`" + s + "`"
}
