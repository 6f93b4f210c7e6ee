package agent

import (
	"path/filepath"
	"strings"
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
	"credential", "init-db", "stage", "mailinfo", "column", "interpret-trailers", "rerere",
)

// git reads the subcommands that change the working tree or the repository's
// published state.
func (c *command) git(args []shellWord) {
	a := c.a
	cwd := c.cwd
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
		case t == "-c" || t == "--git-dir" || t == "--namespace" || t == "--exec-path" || t == "--super-prefix" || t == "--config-env":
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
	whole := func() { a.effect(Effect{Op: OpEdit, Path: cwd, Command: c.text, Descend: true}) }
	if sub == "submodule" && len(rest) > 0 && rest[0].Text == "foreach" {
		a.unknown(quoteCmd(c.text) + " runs a command in every submodule")
		return
	}
	switch sub {
	case "commit":
		a.effect(Effect{Op: OpCommit, Path: cwd, Command: c.text})
	case "push":
		a.effect(Effect{Op: OpPush, Path: cwd, Command: c.text})
		// Pushing a tag is also a release-tag operation (CONTRACT.md section 2); the
		// pre-push hook sees the exact refs, the agent hook the obvious spellings.
		for _, w := range rest {
			if w.Text == "--tags" || w.Text == "--follow-tags" || strings.Contains(w.Text, "refs/tags/") {
				a.effect(Effect{Op: OpReleaseTag, Path: cwd, Command: c.text})
				break
			}
		}
	case "rm", "mv":
		for _, w := range operands(rest, "") {
			a.deepTarget(w, cwd, c.text)
		}
	case "checkout", "restore", "reset", "clean", "stash", "switch", "merge", "rebase", "pull",
		"am", "cherry-pick", "revert", "bisect", "read-tree", "submodule", "filter-branch":
		// These rewrite files of the working tree; with explicit paths after -- only
		// those, otherwise the tree the command runs in. Forms that only touch the
		// index, refs or nothing at all are left alone.
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
	case "clone":
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
	case "init":
		if ops := operands(rest, "b"); len(ops) > 0 {
			a.target(ops[0], cwd, OpEdit, c.text)
		} else {
			a.target(shellWord{Text: ".", GlobAt: -1, pattern: "."}, cwd, OpEdit, c.text)
		}
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
			base = filepath.Join(cwd, prefix)
			if filepath.IsAbs(prefix) {
				base = filepath.Clean(prefix)
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
	default:
		if !gitReads[sub] {
			a.unknown(quoteCmd(c.text) + " is a git command guard does not know (an alias or an extension)")
		}
	}
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
