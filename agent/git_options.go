package agent

import "strings"

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
