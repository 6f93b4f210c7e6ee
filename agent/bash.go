package agent

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/guardlocks/guard/guard"
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
