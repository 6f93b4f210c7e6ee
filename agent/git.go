package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/internal/gitrun"
)

// gitReads are git subcommands that change no file of the working tree (they may
// write inside .git, which no lock covers as a work area).
var gitReads = setOf(
	"status", "log", "diff", "show", "branch", "tag", "remote", "config", "rev-parse", "ls-files",
	"ls-tree", "ls-remote", "grep", "blame", "describe", "shortlog", "fetch", "add", "reflog",
	"cat-file", "for-each-ref", "whatchanged", "help", "version", "rev-list", "name-rev",
	"show-ref", "show-branch", "merge-base", "diff-tree", "diff-files", "diff-index", "count-objects",
	"fsck", "gc", "prune", "repack", "verify-commit", "verify-tag", "var", "check-ignore",
	"check-attr", "check-ref-format", "cherry", "range-diff", "format-patch", "bundle", "notes",
	"update-index", "update-ref", "symbolic-ref", "write-tree", "commit-tree", "hash-object",
	"mktree", "annotate", "instaweb", "request-pull", "sparse-checkout", "maintenance", "lfs",
	"credential", "stage", "mailinfo", "column", "interpret-trailers", "rerere",
)

// git reads the subcommands that change the working tree or the repository's
// published state, and the options that make a reading subcommand write a file or run
// a program (CONTRACT.md section 4: judged by what they write or run).
func (c *command) git(args []shellWord) {
	a := c.a
	cwd := c.cwd
	var gitDir *shellWord
	var codeBy []string // the options and variables that make git run a program
	hooksOff := a.gitHooksOff
	for _, name := range gitCodeVars {
		if c.assigned(name) {
			codeBy = append(codeBy, name)
			if name == "GIT_CONFIG_PARAMETERS" || name == "GIT_CONFIG_COUNT" {
				hooksOff = true // may set core.hooksPath
			}
		}
	}
	if c.assigned("GIT_DIR") {
		if v, ok := c.env("GIT_DIR"); ok {
			gitDir = &shellWord{Text: v, GlobAt: -1}
		} else {
			gitDir = &shellWord{Text: "$GIT_DIR", Dynamic: true, GlobAt: -1}
		}
	}
	// Global options before the subcommand; -C and --work-tree change the directory.
	for len(args) > 0 && strings.HasPrefix(args[0].Text, "-") {
		switch t := args[0].Text; {
		case t == "-C" || t == "--work-tree" || strings.HasPrefix(t, "--work-tree="):
			w, n := args[0], 1
			if t == "--work-tree" || t == "-C" {
				if len(args) < 2 {
					return
				}
				w, n = args[1], 2
			} else {
				w = trimWord(w, len("--work-tree="), strings.TrimPrefix(t, "--work-tree="))
			}
			cwd = a.chdir(w, cwd)
			if cwd == "" {
				a.cannot("the directory of " + quoteCmd(c.text) + " is only known when it runs")
				return
			}
			args = args[n:]
			continue
		case t == "-c" || t == "--config-env" || strings.HasPrefix(t, "--config-env="):
			var kv shellWord
			switch {
			case strings.HasPrefix(t, "--config-env="):
				kv, args = trimWord(args[0], len("--config-env="), t[len("--config-env="):]), args[1:]
			case len(args) < 2:
				return
			default:
				kv, args = args[1], args[2:]
			}
			key, _, _ := strings.Cut(kv.Text, "=")
			if kv.Dynamic {
				key = "" // only known when it runs: any key
			}
			if !gitHarmlessKey(key) {
				codeBy = append(codeBy, "-c "+kv.Text)
			}
			if key == "" || strings.EqualFold(key, "core.hooksPath") {
				hooksOff = true
			}
			continue
		case t == "--git-dir" || strings.HasPrefix(t, "--git-dir="):
			if t == "--git-dir" {
				if len(args) < 2 {
					return
				}
				w := args[1]
				gitDir, args = &w, args[2:]
			} else {
				w := trimWord(args[0], len("--git-dir="), t[len("--git-dir="):])
				gitDir, args = &w, args[1:]
			}
			continue
		case strings.HasPrefix(t, "--exec-path="):
			// git runs its subcommands from there.
			codeBy = append(codeBy, t)
		case t == "--namespace" || t == "--super-prefix":
			if len(args) < 2 {
				return
			}
			args = args[2:]
			continue
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return
	}
	if cwd == "" {
		a.cannot("the repository of " + quoteCmd(c.text) + " cannot be located")
		return
	}
	save := c.cwd
	c.cwd = cwd
	defer func() { c.cwd = save }()
	sub, rest := args[0].Text, args[1:]
	if len(codeBy) > 0 {
		a.unknown(quoteCmd(c.text) + " makes git run a program guard does not read (" + strings.Join(codeBy, ", ") + ")")
	}
	if gitDir != nil && !gitPureReads[sub] {
		// The repository's own files are written there (objects, refs, the index): in
		// another folder than the working tree's own .git, that folder is judged. It
		// is relative to where git starts, not to -C or --work-tree.
		p, ok := a.resolve(*gitDir, save)
		if top := gitrun.RepoTop(cwd); !ok || p != filepath.Join(save, ".git") && (top == "" || p != filepath.Join(top, ".git")) {
			a.target(*gitDir, save, OpEdit, c.text)
		}
	}
	c.gitWritingOptions(sub, rest)
	whole := func() { a.effect(Effect{Op: OpEdit, Path: cwd, Command: c.text, Descend: true}) }
	if sub == "submodule" && len(rest) > 0 && rest[0].Text == "foreach" {
		a.unknown(quoteCmd(c.text) + " runs a command in every submodule")
		return
	}
	switch sub {
	case "commit":
		e := Effect{Op: OpCommit, Path: cwd, Command: c.text}
		if ca := readCommit(rest); hooksOff || ca.noVerify {
			e.SkipsHooks = true
			e.AllChanges = a.gitStaged || ca.workTree
		}
		a.effect(e)
	case "push":
		e := Effect{Op: OpPush, Path: cwd, Command: c.text}
		if hooksOff || hasFlagPrefix(rest, "--no-verify", len("--no-v")) {
			// Without the pre-push hook the commits it would have judged are judged here.
			e.SkipsHooks = true
			e.AllChanges = hasFlag(rest, "--tags", "--follow-tags", "--mirror", "--all")
		}
		a.effect(e)
		// Pushing a tag is also a release-tag operation (CONTRACT.md section 2); the
		// pre-push hook sees the exact refs, the agent hook the obvious spellings.
		for _, w := range rest {
			if w.Text == "--tags" || w.Text == "--follow-tags" || strings.Contains(w.Text, "refs/tags/") {
				a.effect(Effect{Op: OpReleaseTag, Path: cwd, Command: c.text})
				break
			}
		}
	case "add", "stage":
		if !hasFlag(rest, "-n", "--dry-run") {
			a.gitStaged = true
		}
	case "rm", "mv":
		a.gitStaged = true
		for _, w := range operands(rest, "") {
			a.deepTarget(w, cwd, c.text)
		}
	case "checkout", "restore", "reset", "clean", "stash", "switch", "merge", "rebase", "pull",
		"am", "cherry-pick", "revert", "bisect", "read-tree", "submodule", "filter-branch":
		// These rewrite files of the working tree; with explicit paths after -- only
		// those, otherwise the tree the command runs in. Forms that only touch the
		// index, refs or nothing at all are left alone.
		if sub == "bisect" && len(rest) > 0 && rest[0].Text == "run" || sub == "rebase" && hasFlag(rest, "-x", "--exec") ||
			sub == "filter-branch" && hasFlag(rest, "--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter") {
			a.unknown(quoteCmd(c.text) + " runs a command guard does not read")
		}
		if !gitTouchesTree(sub, rest) {
			return
		}
		if i := indexWord(rest, "--"); i >= 0 && i+1 < len(rest) {
			for _, w := range rest[i+1:] {
				a.deepTarget(w, cwd, c.text)
			}
			return
		}
		whole()
	case "sparse-checkout":
		// set, add, reapply, init and disable rewrite which files the tree holds.
		if len(rest) > 0 && (rest[0].Text == "list" || rest[0].Text == "check-rules") {
			return
		}
		whole()
	case "apply":
		if hasFlag(rest, "--check", "--stat", "--numstat", "--summary", "--cached") {
			return
		}
		files := operands(rest, "pC")
		strip := 1
		for _, w := range rest {
			if v, ok := strings.CutPrefix(w.Text, "-p"); ok && v != "" {
				strip = int(v[0] - '0')
			}
		}
		if len(files) == 0 {
			c.patchFrom(nil, strip)
		}
		for _, f := range files {
			f := f
			c.patchFrom(&f, strip)
		}
		// Renames, copies, --directory, --include and quoted or binary names change
		// which files a patch writes in ways guard does not follow: near a lock it
		// asks (its own reading above still refuses what it sees in a locked area).
		a.cannot(quoteCmd(c.text) + " writes the files its patch names, which guard reads only in part (renames, --directory, quoted names)")
	case "clone":
		for _, w := range optionValues(rest, "", "", []string{"--separate-git-dir"}) {
			a.deepTarget(w, cwd, c.text)
		}
		if hasFlag(rest, "--template", "-u", "--upload-pack") {
			a.unknown(quoteCmd(c.text) + " makes git run a program guard does not read (a template's hooks or --upload-pack)")
		}
		ops := operands(dropLongValues(rest, "--depth", "--branch", "--origin", "--template", "--reference",
			"--reference-if-able", "--separate-git-dir", "--config", "--filter", "--jobs", "--shallow-since",
			"--shallow-exclude", "--upload-pack", "--server-option", "--bundle-uri", "--revision"), "objucs")
		switch {
		case len(ops) >= 2:
			a.deepTarget(ops[1], cwd, c.text)
		case len(ops) == 1:
			// The folder is named after the repository.
			name := strings.TrimSuffix(filepath.Base(strings.TrimRight(strings.ReplaceAll(ops[0].Text, ":", "/"), "/")), ".git")
			a.deepTarget(shellWord{Text: name, Dynamic: ops[0].Dynamic, GlobAt: -1, pattern: patternQuote(name)}, cwd, c.text)
		}
	case "init", "init-db":
		for _, w := range optionValues(rest, "", "", []string{"--separate-git-dir"}) {
			a.target(w, cwd, OpEdit, c.text)
		}
		if hasFlag(rest, "--template") {
			a.unknown(quoteCmd(c.text) + " installs a template's hooks, programs guard does not read")
		}
		rest = dropLongValues(rest, "--template", "--separate-git-dir", "--object-format", "--ref-format", "--initial-branch", "--shared")
		if ops := operands(rest, "b"); len(ops) > 0 {
			a.target(ops[0], cwd, OpEdit, c.text)
		} else if gitDir == nil {
			a.target(shellWord{Text: ".", GlobAt: -1, pattern: "."}, cwd, OpEdit, c.text)
		}
	case "config":
		c.gitConfig(rest)
	case "worktree":
		if len(rest) == 0 {
			return
		}
		switch rest[0].Text {
		case "add", "move", "remove":
			ops := operands(rest[1:], "b")
			if rest[0].Text == "add" {
				for _, w := range optionValues(rest[1:], "bB", "bB", nil) {
					ops = removeWord(ops, w.Text)
				}
			}
			for i, w := range ops {
				if rest[0].Text == "add" && i > 0 {
					break // the commit-ish
				}
				a.deepTarget(w, cwd, c.text)
			}
		}
	case "checkout-index":
		prefix := ""
		for _, w := range rest {
			if v, ok := strings.CutPrefix(w.Text, "--prefix="); ok {
				prefix = v
			}
		}
		paths := operands(rest, "")
		base := cwd
		if prefix != "" {
			if p, ok := a.resolvePath(prefix, cwd); ok {
				base = p
			}
		}
		if hasFlag(rest, "-a", "--all") || len(paths) == 0 {
			a.effect(Effect{Op: OpEdit, Path: base, Command: c.text, Descend: true})
			return
		}
		for _, w := range paths {
			a.target(w, base, OpEdit, c.text)
		}
	case "archive":
		for _, w := range optionValues(rest, "o", "o", []string{"--output"}) {
			a.target(w, cwd, OpEdit, c.text)
		}
	case "bundle":
		if len(rest) > 1 && rest[0].Text == "create" {
			if ops := operands(rest[1:], ""); len(ops) > 0 {
				a.target(ops[0], cwd, OpEdit, c.text)
			}
		}
	case "format-patch":
		switch dirs := optionValues(rest, "o", "o", []string{"--output-directory"}); {
		case len(dirs) > 0:
			for _, w := range dirs {
				a.target(w, cwd, OpEdit, c.text)
			}
		case !hasFlag(rest, "--stdout") && len(optionValues(rest, "", "", []string{"--output"})) == 0:
			c.inCwd() // 0001-*.patch in the current folder
		}
	case "grep":
		if gitGrepPager(rest) {
			a.unknown(quoteCmd(c.text) + " opens the files it finds in a program guard does not read (-O)")
		}
	case "instaweb":
		a.unknown(quoteCmd(c.text) + " starts a web server guard does not read")
	default:
		if !gitReads[sub] {
			a.unknown(quoteCmd(c.text) + " is a git command guard does not know (an alias or an extension)")
		}
	}
}

// gitCodeVars are the variables that make git run a program (or read a configuration
// that may name one) when a command sets them.
var gitCodeVars = []string{
	"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	"GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND",
	"GIT_ASKPASS", "GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR",
}

// assigned reports whether the command sets variable name: as its own prefix
// (NAME=value git ...), or earlier in the command line (export NAME=...).
func (c *command) assigned(name string) bool {
	if _, ok := c.assigns[name]; ok {
		return true
	}
	_, ok := c.a.vars[name]
	return ok || c.a.unset[name]
}

// gitPureReads are the subcommands that write nothing into the repository's own files
// either: --git-dir into a locked folder is judged a write for every other one.
var gitPureReads = setOf(
	"status", "log", "diff", "show", "rev-parse", "ls-files", "ls-tree", "ls-remote", "grep", "blame",
	"describe", "shortlog", "cat-file", "for-each-ref", "whatchanged", "help", "version", "rev-list",
	"name-rev", "show-ref", "show-branch", "merge-base", "diff-tree", "diff-files", "diff-index",
	"count-objects", "verify-commit", "verify-tag", "var", "check-ignore", "check-attr",
	"check-ref-format", "cherry", "range-diff", "annotate", "column", "mailinfo",
)

// gitHarmlessKey reports a configuration key (section.name, any case) that never
// makes git run a program or write a file of its own choosing: every other key given
// with -c is judged as code git runs (core.fsmonitor, core.pager, core.sshCommand,
// alias.X=!cmd, filters, diff drivers, include.path, ...), since a list of the
// dangerous ones could never be complete.
func gitHarmlessKey(key string) bool {
	k := strings.ToLower(key)
	section, _, _ := strings.Cut(k, ".")
	switch section {
	case "user", "author", "committer", "color", "advice", "log", "status", "column", "i18n", "blame", "gc", "maintenance", "pull", "fetch", "push", "rerere", "safe", "transfer", "protocol":
		return !strings.Contains(k, "hook") && k != "protocol.allow" && !strings.HasPrefix(k, "protocol.ext")
	}
	switch k {
	case "core.quotepath", "core.autocrlf", "core.safecrlf", "core.eol", "core.filemode", "core.ignorecase",
		"core.abbrev", "core.precomposeunicode", "core.untrackedcache", "core.preloadindex", "core.commentchar",
		"init.defaultbranch", "commit.gpgsign", "commit.verbose", "commit.cleanup", "tag.gpgsign", "merge.ff",
		"merge.conflictstyle", "merge.renames", "merge.stat", "diff.noprefix", "diff.renames", "diff.algorithm",
		"diff.mnemonicprefix", "diff.context", "diff.relative", "diff.colormoved", "rebase.autosquash",
		"rebase.autostash", "rebase.stat", "http.version", "http.sslverify", "credential.interactive",
		"feature.manyfiles", "index.version", "pack.threads", "checkout.workers":
		return true
	}
	return false
}

// commitArgs is what git commit's arguments say about the hook and what it takes.
type commitArgs struct {
	// noVerify is --no-verify (or a prefix of it), or -n alone or in a group of short
	// options before one that takes a value (-anm MSG).
	noVerify bool
	// workTree is a commit of the working tree's changes, not only of the index: -a
	// (--all), -i/-o, --pathspec-from-file, or paths after the options.
	workTree bool
}

// readCommit reads git commit's arguments, skipping the values of its options (-m -n
// is a message "-n").
func readCommit(args []shellWord) commitArgs {
	var out commitArgs
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "--":
			out.workTree = out.workTree || i+1 < len(args)
			return out
		case len(t) >= len("--no-v") && strings.HasPrefix("--no-verify", t):
			out.noVerify = true
		case t == "--all" || t == "--include" || t == "--only" || strings.HasPrefix(t, "--pathspec-from-file"):
			out.workTree = true
		case strings.HasPrefix(t, "--"):
			if !strings.Contains(t, "=") && commitValued[t] {
				i++
			}
		case strings.HasPrefix(t, "-") && len(t) > 1:
			for k := 1; k < len(t); k++ {
				switch c := t[k]; {
				case c == 'n':
					out.noVerify = true
					continue
				case c == 'a' || c == 'i' || c == 'o':
					out.workTree = true
					continue
				case strings.IndexByte("mFcCt", c) >= 0:
					if k+1 == len(t) {
						i++ // the next word is the value
					}
				case c != 'S' && c != 'u': // S and u take an optional value glued to them
					continue
				}
				break
			}
		default:
			out.workTree = true // a path
		}
	}
	return out
}

// commitValued are git commit's long options whose value may be the next word.
var commitValued = setOf("--message", "--file", "--reuse-message", "--reedit-message", "--template",
	"--author", "--date", "--cleanup", "--fixup", "--squash", "--trailer")

// gitWritingOptions judges the options that make a (reading) subcommand write a file
// or run a program: --output (the diff and log family), --upload-pack and
// --receive-pack (the program run on the other side, which a local path runs here).
func (c *command) gitWritingOptions(sub string, args []shellWord) {
	a := c.a
	if sub != "archive" {
		for _, w := range optionValues(args, "", "", []string{"--output"}) {
			a.target(w, c.cwd, OpEdit, c.text)
		}
	}
	for _, w := range args {
		t := w.Text
		if t == "--" {
			break
		}
		for _, opt := range []string{"--upload-pack", "--receive-pack", "--exec"} {
			if t == opt || strings.HasPrefix(t, opt+"=") {
				a.unknown(quoteCmd(c.text) + " makes git run a program guard does not read (" + opt + ")")
			}
		}
		if (sub == "fetch" || sub == "ls-remote" || sub == "pull" || sub == "clone") && t == "-u" {
			a.unknown(quoteCmd(c.text) + " makes git run a program guard does not read (-u, --upload-pack)")
		}
	}
}

// gitGrepPager reports git grep's -O (--open-files-in-pager), alone, with its program
// glued (-Ovim) or last in a group of short options.
func gitGrepPager(args []shellWord) bool {
	for _, w := range args {
		t := w.Text
		switch {
		case t == "--":
			return false
		case strings.HasPrefix(t, "--open-files-in-pager") || strings.HasPrefix(t, "--open-") && strings.HasPrefix("--open-files-in-pager", t):
			return true
		case strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--"):
			for k := 1; k < len(t); k++ {
				if t[k] == 'O' {
					return true
				}
				if strings.IndexByte("eABCfm", t[k]) >= 0 {
					break // a value follows
				}
			}
		}
	}
	return false
}

// gitConfig reads git config: a write into a file given with -f (--file) is a write
// of that file; setting a key that names a program (core.fsmonitor, an alias to !cmd)
// arms git to run it later, outside any sandbox; setting core.hooksPath switches
// guard's hooks off for the commits after it; --edit runs an editor.
func (c *command) gitConfig(args []shellWord) {
	a := c.a
	files := optionValues(args, "f", "f", []string{"--file"})
	var ops []shellWord
	writes := false
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "-f" || t == "--file" || t == "--blob" || t == "--type" || t == "--default" || t == "--comment" || t == "--value":
			i++
		case t == "-e" || t == "--edit":
			a.unknown(quoteCmd(c.text) + " opens an editor guard does not read")
			writes = true
		case t == "--add" || t == "--unset" || t == "--unset-all" || t == "--replace-all" || t == "--rename-section" || t == "--remove-section":
			writes = true
		case strings.HasPrefix(t, "-"):
		default:
			ops = append(ops, args[i])
		}
	}
	if len(ops) > 0 {
		switch ops[0].Text {
		case "set", "unset", "rename-section", "remove-section", "edit":
			writes = true
			if ops[0].Text == "edit" {
				a.unknown(quoteCmd(c.text) + " opens an editor guard does not read")
			}
			ops = ops[1:]
		case "get", "list":
			ops = nil
		default:
			writes = writes || len(ops) >= 2
		}
	}
	if !writes {
		return
	}
	for _, f := range files {
		a.target(f, c.cwd, OpEdit, c.text)
	}
	if len(ops) == 0 {
		return
	}
	key := ops[0].Text
	if ops[0].Dynamic {
		key = ""
	}
	if !gitHarmlessKey(key) {
		a.unknown(quoteCmd(c.text) + " sets " + ops[0].Text + ", which makes git run a program guard does not read")
	}
	if key == "" || strings.EqualFold(key, "core.hooksPath") {
		a.gitHooksOff = true
	}
}

// commitPaths lists what a commit in dir made without guard's pre-commit hook takes:
// the staged paths, and with all also the changes of the working tree, untracked
// files included (commit -a, commit PATHS, files staged earlier in the same command).
// Paths are absolute. Git reads the repository with the agent's environment.
func commitPaths(ctx context.Context, getenv func(string) string, dir string, all bool) ([]string, error) {
	g := gitrun.New(dir, getenv)
	top, err := g.Line(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	args := []string{"-c", "core.quotePath=false", "diff", "--cached", "--name-only", "-z", "--no-renames",
		"--no-relative", "--ignore-submodules=none", "--no-ext-diff", "--no-textconv"}
	if all {
		args = []string{"-c", "core.quotePath=false", "status", "--porcelain=v1", "-z", "--untracked-files=all",
			"--no-renames", "--ignore-submodules=none"}
	}
	out, err := g.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	var paths []string
	gitrun.EachName(out, func(name string) {
		if all {
			if len(name) < 4 {
				return
			}
			name = name[3:] // "XY path"
		}
		paths = append(paths, filepath.Join(top, filepath.FromSlash(name)))
	})
	return paths, nil
}

// dropLongValues removes the long options of names written with a separate value
// (--depth 1) and their values, so that operands does not take the value for one.
func dropLongValues(args []shellWord, names ...string) []shellWord {
	var out []shellWord
	for i := 0; i < len(args); i++ {
		if args[i].Text == "--" {
			return append(out, args[i:]...)
		}
		if setOf(names...)[args[i].Text] {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

func removeWord(ws []shellWord, t string) []shellWord {
	for i, w := range ws {
		if w.Text == t {
			return append(ws[:i:i], ws[i+1:]...)
		}
	}
	return ws
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
	case "bisect":
		return !(len(args) > 0 && (args[0].Text == "log" || args[0].Text == "view" || args[0].Text == "visualize" || args[0].Text == "terms"))
	case "read-tree":
		return has("-u")
	case "submodule":
		return !(len(args) == 0 || args[0].Text == "status" || args[0].Text == "summary" || args[0].Text == "foreach")
	}
	return true
}

// hookless is what a commit made without guard's pre-commit hook takes (commitPaths),
// for the policy to judge as the hook would have; a repository whose index cannot be
// read refuses the commit (fail closed).
func (d *decider) hookless(e Effect) []string {
	what, hook := "commit", "pre-commit"
	read := commitPaths
	if e.Op == OpPush {
		what, hook, read = "push", "pre-push", pushPaths
	}
	paths, err := read(context.Background(), d.env.Env, e.Path, e.AllChanges)
	if err != nil {
		d.deny(fmt.Sprintf("guard: %s skips guard's %s hook, and guard cannot read what it would %s: %v (fail closed).\n  what now: %s without --no-verify (or core.hooksPath), so that the hook judges it.", quoteCmd(e.Command), hook, what, err, what))
		return nil
	}
	return paths
}

// pushPaths lists what a push from dir made without guard's pre-push hook may
// publish: the paths changed by the commits of every local branch (with tags, of
// every tag too) that no remote-tracking ref holds yet. That is more than one pushed
// branch brings (fail closed: the hook that would know exactly was skipped).
func pushPaths(ctx context.Context, getenv func(string) string, dir string, tags bool) ([]string, error) {
	g := gitrun.New(dir, getenv)
	top, err := g.Line(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	revs := []string{"--branches"}
	if tags {
		revs = append(revs, "--tags")
	}
	rel, err := gitrun.LogPaths(ctx, g, append(revs, "--not", "--remotes")...)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(rel))
	for _, p := range rel {
		paths = append(paths, filepath.Join(top, filepath.FromSlash(p)))
	}
	return paths, nil
}

// hasFlagPrefix reports a long option given whole or as a prefix git accepts (at
// least min bytes long: --no-v for --no-verify).
func hasFlagPrefix(args []shellWord, flag string, min int) bool {
	for _, w := range args {
		if w.Text == "--" {
			return false
		}
		if len(w.Text) >= min && strings.HasPrefix(flag, w.Text) {
			return true
		}
	}
	return false
}
