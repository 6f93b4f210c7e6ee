package agent

import (
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/internal/gitrun"
)

// gitTools is git (git_options.go: the options that write or run code; git_hookless.go:
// what a commit or push without guard's hooks takes).
var gitTools = []tool{
	{[]string{"git"}, func(c *command, _ string, args []shellWord) { c.git(args) }},
}

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
