package agent

import (
	"path/filepath"
	"strings"

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
	// (rm -r, mv, git checkout): locks inside the folder count too.
	Descend bool
}

// ClassifyFunc tells which publication operation a command (program first) performs
// when run in dir: op is "" when it publishes nothing; project is the directory of the
// project it acts on; dryRun marks a form that only rehearses. The publish package
// provides it (agent and publish are siblings, so cmd/guard wires it in).
type ClassifyFunc func(args []string, dir string) (op, project string, dryRun bool, err error)

// BashAnalysis is what guard could read from a shell command.
type BashAnalysis struct {
	// Effects are the write targets and operations found.
	Effects []Effect
	// Segments are the simple commands (words joined by spaces) with the directory
	// each runs in, for Bash(...) permission rules.
	Segments []Segment
	// Unjudged notes the parts guard could not read (a dynamic target, an eval): the
	// hook says nothing about them.
	Unjudged []string
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

// analyzer walks a parsed command line, tracking the working directory through cd.
type analyzer struct {
	home     string
	classify ClassifyFunc
	out      *BashAnalysis
	// heredocs are the here-document bodies of the script being read.
	heredocs []string
}

// AnalyzeBash reads command as sh would run it in cwd and returns its obvious effects.
// home expands ~ (empty: ~ is not expanded). classify may be nil.
func AnalyzeBash(command, cwd, home string, classify ClassifyFunc) *BashAnalysis {
	a := &analyzer{home: home, classify: classify, out: &BashAnalysis{}}
	a.script(command, cwd, 0)
	return a.out
}

func (a *analyzer) note(format string) { a.out.Unjudged = append(a.out.Unjudged, format) }

func (a *analyzer) script(src, cwd string, depth int) string {
	if depth > maxShellDepth {
		a.note("commands nested too deeply")
		return ""
	}
	sc, err := parseShell(src)
	if err != nil {
		a.note("cannot read the command: " + err.Error())
		return cwd
	}
	for _, nested := range sc.Nested {
		a.script(nested, cwd, depth+1)
	}
	saved := a.heredocs
	a.heredocs = sc.Heredocs
	defer func() { a.heredocs = saved }()
	var stack []string
	for _, st := range sc.Steps {
		switch st.Kind {
		case stepEnter:
			stack = append(stack, cwd)
		case stepLeave:
			if n := len(stack); n > 0 {
				cwd, stack = stack[n-1], stack[:n-1]
			}
		default:
			cwd = a.command(st, cwd, depth)
		}
	}
	return cwd
}

// shell keywords and prefixes that do not change what the command after them is.
var skipWords = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
	"while": true, "until": true, "!": true, "{": true, "}": true, "esac": true, "coproc": true,
}

// wrappers run the rest of their arguments as a command; the value is the options that
// take an argument.
var wrappers = map[string]string{
	"nohup": "", "command": "", "exec": "a", "nice": "n",
	"ionice": "cnp", "stdbuf": "ioe", "builtin": "", "chronic": "",
}

// command handles one simple command and returns the working directory after it.
func (a *analyzer) command(st shellStep, cwd string, depth int) string {
	for _, r := range st.Redirects {
		if r.Writes() {
			a.target(r.Target, cwd, OpEdit, "redirection "+r.Op+" "+r.Target.Text)
		}
	}
	words := st.Words
	full := joinWords(words)
	// env -C and sudo -D move only the command they run: later commands run in after.
	after := cwd
	// Leading assignments, keywords and wrappers.
	for len(words) > 0 {
		w := words[0]
		switch {
		case !w.Dynamic && skipWords[w.Text]:
			words = words[1:]
			continue
		case w.Text == "time" && !w.Dynamic:
			words = skipOptions(words[1:], "")
			continue
		case w.Text == "function" && !w.Dynamic:
			// function NAME [()] { BODY: the body's first command follows.
			words = words[min(2, len(words)):]
			for len(words) > 0 && (words[0].Text == "()" || words[0].Text == "(" || words[0].Text == ")") {
				words = words[1:]
			}
			continue
		case isAssignment(w.Text):
			words = words[1:]
			continue
		case w.Text == "env" && !w.Dynamic:
			var script *shellWord
			words, cwd, script = a.env(words[1:], cwd)
			if script != nil {
				if script.Dynamic {
					a.note("the command of " + quoteCmd(full) + " is only known when it runs")
				} else {
					a.script(script.Text, cwd, depth+1)
				}
				return after
			}
			continue
		case (w.Text == "sudo" || w.Text == "doas") && !w.Dynamic:
			words, cwd = a.sudo(words[1:], cwd)
			continue
		case w.Text == "timeout" && !w.Dynamic:
			words = skipOptions(words[1:], "ks")
			if len(words) > 0 {
				words = words[1:] // the duration
			}
			continue
		}
		if optArgs, ok := wrappers[w.Text]; ok && !w.Dynamic {
			words = skipOptions(words[1:], optArgs)
			continue
		}
		break
	}
	if len(words) == 0 {
		return after
	}
	text := joinWords(words)
	a.out.Segments = append(a.out.Segments, Segment{Text: text, Dir: cwd, Full: full})
	if words[0].Dynamic {
		a.note("the command name of " + quoteCmd(text) + " is only known when it runs")
		return after
	}
	name := filepath.Base(words[0].Text)
	args := words[1:]
	if a.classify != nil && cwd != "" {
		plain := make([]string, len(words))
		for i, w := range words {
			plain[i] = w.Text
		}
		plain[0] = name
		op, project, dry, err := a.classify(plain, cwd)
		switch {
		case err != nil:
			a.note("whether " + quoteCmd(text) + " publishes: " + err.Error())
		case op != "":
			if project == "" {
				project = cwd
			}
			a.out.Effects = append(a.out.Effects, Effect{Op: op, Path: project, Command: text, DryRun: dry, Publication: true})
		}
	}
	switch name {
	case "cd", "pushd":
		ops := operands(args, "")
		switch {
		case len(ops) == 0:
			if a.home == "" {
				return ""
			}
			return a.home
		case ops[0].Text == "-":
			return ""
		}
		p, ok := a.resolve(ops[0], cwd)
		if !ok || ops[0].Glob {
			return ""
		}
		return p
	case "rm", "rmdir":
		for _, w := range operands(args, "") {
			a.deepTarget(w, cwd, text)
		}
	case "unlink", "touch", "mkdir", "shred", "mkfifo", "mknod":
		for _, w := range operands(args, optionArgs[name]) {
			a.target(w, cwd, OpEdit, text)
		}
	case "truncate":
		for _, w := range operands(args, "sr") {
			a.target(w, cwd, OpEdit, text)
		}
	case "mv":
		// The sources disappear and the destination changes: all are written.
		ops, dest := operandsWithTarget(args, "tS")
		for _, w := range ops {
			a.deepTarget(w, cwd, text)
		}
		if dest != nil {
			a.target(*dest, cwd, OpEdit, text)
		}
	case "cp", "ln", "install", "rsync", "scp":
		ops, dest := operandsWithTarget(args, optionArgs[name])
		switch {
		case name == "install" && installsDirectories(args):
			for _, w := range ops {
				a.target(w, cwd, OpEdit, text)
			}
		case dest != nil:
			a.target(*dest, cwd, OpEdit, text)
		case len(ops) >= 2:
			a.target(ops[len(ops)-1], cwd, OpEdit, text)
		}
	case "tee":
		for _, w := range operands(args, "") {
			a.target(w, cwd, OpEdit, text)
		}
	case "chmod", "chown", "chgrp":
		ops := operands(args, "")
		if len(ops) > 1 {
			for _, w := range ops[1:] {
				a.target(w, cwd, OpEdit, text)
			}
		}
	case "sed", "gsed", "perl":
		// perl -i edits in place like sed -i; its -e takes the script as sed's does.
		a.sed(args, cwd, text)
	case "dd":
		for _, w := range args {
			if rest, ok := strings.CutPrefix(w.Text, "of="); ok {
				w.Text = rest
				if w.GlobAt >= 3 {
					w.GlobAt -= 3
				}
				a.target(w, cwd, OpEdit, text)
			}
		}
	case "curl", "wget":
		dl := downloaders[name]
		for _, w := range optionValues(args, dl.valued, dl.targets, dl.longs) {
			a.target(w, cwd, OpEdit, text)
		}
	case "git":
		a.git(args, cwd, text)
	case "sh", "bash", "zsh", "dash", "ksh":
		for i, w := range args {
			if strings.HasPrefix(w.Text, "-") && strings.Contains(w.Text, "c") && !strings.HasPrefix(w.Text, "--") {
				if i+1 < len(args) {
					if args[i+1].Dynamic {
						a.note("the script of " + quoteCmd(text) + " is only known when it runs")
					} else {
						a.script(args[i+1].Text, cwd, depth+1)
					}
				}
				break
			}
		}
	case "find":
		a.find(args, cwd, text)
	case "apply_patch", "applypatch":
		// Codex's patch tool run from the shell, the patch in a here-document.
		a.applyPatch(st, cwd, text)
	case "eval", "source", ".", "xargs":
		a.note(quoteCmd(text) + " runs commands guard cannot read in advance")
	}
	return after
}

// chdir is the directory a wrapper's directory option (env -C, sudo -D) names, or ""
// when it cannot be located (the command's targets are then noted, not guessed).
func (a *analyzer) chdir(w shellWord, cwd string) string {
	if p, ok := a.resolve(w, cwd); ok && !w.Glob {
		return p
	}
	return ""
}

// env skips env's options and assignments and returns the command it runs and the
// directory it runs in (-C, --chdir); script is the string of -S / --split-string,
// which env splits into the command itself.
func (a *analyzer) env(words []shellWord, cwd string) (rest []shellWord, dir string, script *shellWord) {
	for len(words) > 0 {
		w := words[0]
		t := w.Text
		switch {
		case t == "--":
			return words[1:], cwd, nil
		case t == "-C" || t == "--chdir":
			if len(words) > 1 {
				cwd = a.chdir(words[1], cwd)
				words = words[1:]
			}
		case strings.HasPrefix(t, "--chdir="):
			w.Text = strings.TrimPrefix(t, "--chdir=")
			cwd = a.chdir(w, cwd)
		case t == "-S" || t == "--split-string":
			if len(words) > 1 {
				return nil, cwd, &words[1]
			}
		case strings.HasPrefix(t, "--split-string="):
			w.Text = strings.TrimPrefix(t, "--split-string=")
			return nil, cwd, &w
		case t == "-u" || t == "--unset":
			if len(words) > 1 {
				words = words[1:]
			}
		case isAssignment(t) || strings.HasPrefix(t, "-") && t != "-":
		default:
			return words, cwd, nil
		}
		words = words[1:]
	}
	return words, cwd, nil
}

// sudoValued are the options of sudo and doas that take a value.
var sudoValued = map[string]bool{
	"-u": true, "-U": true, "-g": true, "-C": true, "-D": true, "-h": true, "-p": true, "-r": true,
	"-t": true, "-R": true, "-T": true, "--user": true, "--other-user": true, "--group": true,
	"--close-from": true, "--chdir": true, "--host": true, "--prompt": true, "--role": true,
	"--type": true, "--chroot": true, "--command-timeout": true,
}

// sudo skips sudo's (or doas's) options and returns the command it runs and the
// directory it runs in (-D, --chdir).
func (a *analyzer) sudo(words []shellWord, cwd string) ([]shellWord, string) {
	for len(words) > 0 {
		w := words[0]
		t := w.Text
		switch {
		case t == "--":
			return words[1:], cwd
		case !strings.HasPrefix(t, "-") || t == "-":
			return words, cwd
		case strings.HasPrefix(t, "--chdir="):
			w.Text = strings.TrimPrefix(t, "--chdir=")
			cwd = a.chdir(w, cwd)
		case len(t) > 2 && strings.HasPrefix(t, "-D"):
			w.Text = t[2:]
			cwd = a.chdir(w, cwd)
		case sudoValued[t] && len(words) > 1:
			if t == "-D" || t == "--chdir" {
				cwd = a.chdir(words[1], cwd)
			}
			words = words[1:]
		}
		words = words[1:]
	}
	return words, cwd
}

// downloaders are the options of curl and wget that name files or folders they write:
// valued lists every short option that takes an argument, targets those among them
// that are write targets, longs the long spellings of the targets.
var downloaders = map[string]struct {
	valued, targets string
	longs           []string
}{
	"curl": {valued: "AbcCdDeEFHKmoPQrtTuUwxXyYz", targets: "ocD", longs: []string{"--output", "--cookie-jar", "--dump-header"}},
	"wget": {valued: "aABdDeiIlOoPQRtTUwX", targets: "OoaP", longs: []string{"--output-document", "--output-file", "--append-output", "--directory-prefix"}},
}

// optionValues returns the values of the short options in targets (alone, last in a
// group such as -fsSLo, or glued: -oFILE) and of the long options in longs (--name
// VALUE, --name=VALUE). valued lists every short option that takes an argument, so
// that a group is read where its argument starts.
func optionValues(args []shellWord, valued, targets string, longs []string) []shellWord {
	var out []shellWord
	for i := 0; i < len(args); i++ {
		w := args[i]
		t := w.Text
		switch {
		case t == "--":
			return out
		case strings.HasPrefix(t, "--"):
			for _, l := range longs {
				if v, ok := strings.CutPrefix(t, l+"="); ok {
					w.Text = v
					w.GlobAt -= len(l) + 1
					out = append(out, w)
				} else if t == l && i+1 < len(args) {
					out = append(out, args[i+1])
					i++
				}
			}
		case strings.HasPrefix(t, "-") && len(t) > 1:
			var letter byte
			var val *shellWord
			letter, val, i = shortValue(args, i, valued)
			if val != nil && strings.IndexByte(targets, letter) >= 0 {
				out = append(out, *val)
			}
		}
	}
	return out
}

// shortValue reads the short-option group args[i] (-abc): the first letter listed in
// valued takes the rest of the group (-oFILE), else the next word, as its value. It
// returns that letter (0 when none), its value (nil when there is none) and the index
// of the last word read.
func shortValue(args []shellWord, i int, valued string) (byte, *shellWord, int) {
	t := args[i].Text
	for k := 1; k < len(t); k++ {
		if strings.IndexByte(valued, t[k]) < 0 {
			continue
		}
		switch {
		case k+1 < len(t):
			val := args[i]
			val.Text = t[k+1:]
			val.GlobAt -= k + 1
			return t[k], &val, i
		case i+1 < len(args):
			val := args[i+1]
			return t[k], &val, i + 1
		}
		return t[k], nil, i
	}
	return 0, nil, i
}

// installsDirectories reports install -d (--directory): every operand is a directory
// it creates.
func installsDirectories(args []shellWord) bool {
	for _, w := range args {
		t := w.Text
		switch {
		case t == "--":
			return false
		case t == "--directory":
			return true
		case strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--"):
			// -d alone or in a group (-Dd); after a letter that takes a value the
			// rest of the group is that value (-mdd is the mode "dd").
			for k := 1; k < len(t); k++ {
				if t[k] == 'd' {
					return true
				}
				if strings.IndexByte(optionArgs["install"], t[k]) >= 0 {
					break
				}
			}
		}
	}
	return false
}

// optionArgs lists, per command, the short options that take an argument.
var optionArgs = map[string]string{
	"mkdir": "mZ", "install": "gmoStZ", "cp": "tS", "ln": "tS", "rsync": "efT", "scp": "cFiJloPS",
	"mknod": "mZ", "mkfifo": "mZ", "shred": "nsu",
}

func (a *analyzer) sed(args []shellWord, cwd, text string) {
	inPlace, script := false, false
	var files []shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case t == "--in-place" || strings.HasPrefix(t, "--in-place="):
			inPlace = true
		case t == "-e" || t == "-f" || t == "--expression" || t == "--file":
			script = true
			i++
		case strings.HasPrefix(t, "--expression=") || strings.HasPrefix(t, "--file="):
			script = true
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") && len(t) > 1:
			// Short options may be grouped (-ni); -i takes an optional suffix glued
			// to it, so nothing after the i belongs to another option.
			for k := 1; k < len(t); k++ {
				if t[k] == 'i' {
					inPlace = true
					break
				}
				if t[k] == 'e' || t[k] == 'f' {
					script = true
					if k == len(t)-1 {
						i++
					}
					break
				}
			}
		default:
			files = append(files, args[i])
		}
	}
	if !inPlace {
		return
	}
	if !script && len(files) > 0 {
		files = files[1:] // the first operand is the script
	}
	for _, w := range files {
		a.target(w, cwd, OpEdit, text)
	}
}

// git reads the subcommands that change the working tree or the repository's
// published state.
func (a *analyzer) git(args []shellWord, cwd, text string) {
	// Global options before the subcommand; -C changes the directory.
	for len(args) > 0 && strings.HasPrefix(args[0].Text, "-") {
		switch t := args[0].Text; {
		case t == "-C":
			if len(args) < 2 {
				return
			}
			p, ok := a.resolve(args[1], cwd)
			if !ok {
				a.note("the directory of " + quoteCmd(text) + " is only known when it runs")
				return
			}
			cwd = p
			args = args[2:]
			continue
		case t == "--work-tree" || strings.HasPrefix(t, "--work-tree="):
			// The working tree is where checkout, reset and the like write.
			w := args[0]
			n := 1
			if t == "--work-tree" {
				if len(args) < 2 {
					return
				}
				w, n = args[1], 2
			} else {
				w.Text = strings.TrimPrefix(t, "--work-tree=")
			}
			p, ok := a.resolve(w, cwd)
			if !ok {
				a.note("the working tree of " + quoteCmd(text) + " is only known when it runs")
				return
			}
			cwd = p
			args = args[n:]
			continue
		case t == "-c" || t == "--git-dir" || t == "--namespace":
			if len(args) < 2 {
				return
			}
			args = args[2:]
			continue
		}
		args = args[1:]
	}
	if len(args) == 0 || cwd == "" {
		return
	}
	sub, rest := args[0].Text, args[1:]
	switch sub {
	case "commit":
		a.out.Effects = append(a.out.Effects, Effect{Op: OpCommit, Path: cwd, Command: text})
	case "push":
		a.out.Effects = append(a.out.Effects, Effect{Op: OpPush, Path: cwd, Command: text})
		// Pushing a tag is also a release-tag operation (CONTRACT.md section 2); the
		// pre-push hook sees the exact refs, the agent hook the obvious spellings.
		for _, w := range rest {
			if w.Text == "--tags" || w.Text == "--follow-tags" || strings.Contains(w.Text, "refs/tags/") {
				a.out.Effects = append(a.out.Effects, Effect{Op: OpReleaseTag, Path: cwd, Command: text})
				break
			}
		}
	case "rm", "mv":
		for _, w := range operands(rest, "") {
			a.deepTarget(w, cwd, text)
		}
	case "checkout", "restore", "reset", "clean", "stash", "switch", "merge", "rebase", "pull",
		"apply", "am", "cherry-pick", "revert":
		// These rewrite files of the working tree; with explicit paths after -- only
		// those, otherwise the tree the command runs in. Forms that only touch the
		// index, refs or nothing at all are left alone.
		if !gitTouchesTree(sub, rest) {
			return
		}
		if i := indexWord(rest, "--"); i >= 0 && i+1 < len(rest) {
			for _, w := range rest[i+1:] {
				a.deepTarget(w, cwd, text)
			}
			return
		}
		a.out.Effects = append(a.out.Effects, Effect{Op: OpEdit, Path: cwd, Command: text, Descend: true})
	}
}

// deepTarget records an edit that reaches into the subtree of the path (a removal or
// a move of a folder takes everything inside it along).
func (a *analyzer) deepTarget(w shellWord, cwd, text string) {
	n := len(a.out.Effects)
	a.target(w, cwd, OpEdit, text)
	for i := n; i < len(a.out.Effects); i++ {
		a.out.Effects[i].Descend = true
	}
}

// gitTouchesTree reports whether a working-tree command (checkout, reset, ...) with
// these arguments may change files, rather than only the index, a ref or nothing.
func gitTouchesTree(sub string, args []shellWord) bool {
	has := func(flags ...string) bool {
		for _, w := range args {
			for _, f := range flags {
				if w.Text == f {
					return true
				}
			}
		}
		return false
	}
	positional := 0
	for _, w := range args {
		if !strings.HasPrefix(w.Text, "-") {
			positional++
		}
	}
	switch sub {
	case "checkout":
		// checkout -b NAME (no start point) creates a branch at HEAD: no file changes.
		return !(has("-b", "-B", "--orphan") && positional <= 1)
	case "switch":
		return !(has("-c", "-C", "--create", "--force-create") && positional <= 1)
	case "reset":
		return has("--hard", "--merge", "--keep")
	case "restore":
		return !has("--staged", "-S") || has("--worktree", "-W")
	case "clean":
		for _, w := range args {
			if w.Text == "--dry-run" || (strings.HasPrefix(w.Text, "-") && !strings.HasPrefix(w.Text, "--") && strings.Contains(w.Text, "n")) {
				return false
			}
		}
		return true
	case "stash":
		return !(len(args) > 0 && (args[0].Text == "list" || args[0].Text == "show" || args[0].Text == "create"))
	}
	return true
}

func (a *analyzer) applyPatch(st shellStep, cwd, text string) {
	for _, r := range st.Redirects {
		if r.Heredoc < 0 || r.Heredoc >= len(a.heredocs) {
			continue
		}
		if cwd == "" {
			a.note("the files of " + quoteCmd(text) + " cannot be located")
			return
		}
		for _, p := range PatchPaths(a.heredocs[r.Heredoc], cwd) {
			a.out.Effects = append(a.out.Effects, Effect{Op: OpEdit, Path: p, Command: text})
		}
		return
	}
	a.note(quoteCmd(text) + " reads its patch from somewhere guard cannot see")
}

// find reads `find ROOT... EXPR`: -delete removes files below the roots; -exec and
// its kin run commands guard does not read.
func (a *analyzer) find(args []shellWord, cwd, text string) {
	var roots []shellWord
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i].Text, "-") && args[i].Text != "(" && args[i].Text != "!" {
		roots = append(roots, args[i])
		i++
	}
	if len(roots) == 0 {
		roots = []shellWord{{Text: ".", GlobAt: -1}}
	}
	for _, w := range args[i:] {
		switch w.Text {
		case "-delete":
			for _, r := range roots {
				a.deepTarget(r, cwd, text)
			}
			return
		case "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf", "-fls":
			a.note(quoteCmd(text) + " runs commands or writes files guard cannot read in advance")
			return
		}
	}
}

// target records an operation on the path a word names, or notes why it cannot.
func (a *analyzer) target(w shellWord, cwd, op, text string) {
	if w.Dynamic {
		a.note("a target of " + quoteCmd(text) + " (" + w.Text + ") is only known when it runs")
		return
	}
	if w.Glob {
		// A pattern's files are unknown, but they all lie in the directory its
		// literal prefix names.
		at := w.GlobAt
		if at < 0 || at > len(w.Text) {
			at = 0
		}
		prefix := w.Text[:at]
		if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
			w.Text = prefix[:i+1]
		} else {
			w.Text = "."
		}
		w.Glob = false
	}
	if strings.HasPrefix(w.Text, "/dev/") || w.Text == "/dev" {
		return
	}
	p, ok := a.resolve(w, cwd)
	if !ok {
		a.note("a target of " + quoteCmd(text) + " (" + w.Text + ") cannot be located")
		return
	}
	a.out.Effects = append(a.out.Effects, Effect{Op: op, Path: p, Command: text})
}

// resolve makes a word an absolute, clean path.
func (a *analyzer) resolve(w shellWord, cwd string) (string, bool) {
	t := w.Text
	if w.Dynamic || t == "" {
		return "", false
	}
	if w.Tilde {
		switch {
		case a.home == "":
			return "", false
		case t == "~":
			return a.home, true
		case strings.HasPrefix(t, "~/"):
			return filepath.Join(a.home, t[2:]), true
		default:
			return "", false // ~user
		}
	}
	if filepath.IsAbs(t) {
		return filepath.Clean(t), true
	}
	if cwd == "" {
		return "", false
	}
	return filepath.Join(cwd, t), true
}

func isAssignment(t string) bool {
	eq := strings.IndexByte(t, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		if !isNameByte(t[i]) || (i == 0 && t[i] >= '0' && t[i] <= '9') {
			return false
		}
	}
	return true
}

// skipOptions drops leading options (and the arguments of those in withArg).
func skipOptions(words []shellWord, withArg string) []shellWord {
	for len(words) > 0 {
		t := words[0].Text
		if t == "--" {
			return words[1:]
		}
		if !strings.HasPrefix(t, "-") || t == "-" {
			return words
		}
		words = words[1:]
		if len(t) == 2 && strings.IndexByte(withArg, t[1]) >= 0 && len(words) > 0 {
			words = words[1:]
		}
	}
	return words
}

// operands returns the non-option arguments, skipping the arguments of the short
// options listed in withArg; everything after -- is an operand.
func operands(args []shellWord, withArg string) []shellWord {
	ops, dest := operandsWithTarget(args, withArg)
	if dest != nil {
		ops = append(ops, *dest)
	}
	return ops
}

// operandsWithTarget is operands, also returning the directory given with -t DIR
// (--target-directory=DIR), which cp, mv, ln and install write into.
func operandsWithTarget(args []shellWord, withArg string) (ops []shellWord, dest *shellWord) {
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "--":
			return append(ops, args[i+1:]...), dest
		case strings.HasPrefix(t, "--target-directory="):
			w := args[i]
			w.Text = strings.TrimPrefix(t, "--target-directory=")
			w.GlobAt -= len("--target-directory=")
			dest = &w
		case t == "--target-directory" && i+1 < len(args):
			w := args[i+1]
			dest = &w
			i++
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") && len(t) > 1 && !args[i].Dynamic:
			// The last letter of a group may take the next word as its argument;
			// an argument glued to its letter (-tDIR) needs no next word.
			var letter byte
			var val *shellWord
			if letter, val, i = shortValue(args, i, withArg); letter == 't' {
				if val == nil {
					val = &shellWord{}
				}
				dest = val
			}
		default:
			ops = append(ops, args[i])
		}
	}
	return ops, dest
}

func indexWord(words []shellWord, t string) int {
	for i, w := range words {
		if w.Text == t && !w.Dynamic {
			return i
		}
	}
	return -1
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
