package agent

import (
	"regexp"
	"strings"
)

// guard's own knowledge of what programs write: each program below is read for the
// files and folders it changes; the read-only ones change none; every other program
// is one whose writes guard cannot know (BashAnalysis.Unknown).

// readOnly are programs that write no file of their own accord (their output goes to
// stdout, whose redirections are read separately).
var readOnly = setOf(
	":", "[", "[[", "arch", "basename", "bc", "break", "cal", "cat", "cksum", "clear",
	"cmp", "column", "comm", "continue", "cut", "date", "dc", "df", "diff", "dig", "dir",
	"dirname", "du", "echo", "egrep", "env", "exit", "expand", "expr", "false", "fd", "fdfind",
	"fgrep", "file", "fmt", "fold", "free", "getconf", "getopts", "grep", "groups", "hash",
	"head", "help", "hexdump", "history", "host", "hostname", "id", "info", "jobs", "join",
	"jq", "la", "ldd", "less", "ll", "locale", "logname", "look", "ls", "lsblk", "lscpu",
	"lsof", "man", "md5sum", "more", "nl", "nm", "nproc", "nslookup", "numfmt", "objdump", "od",
	"paste", "pgrep", "ping", "pr", "printenv", "printf", "ps", "pstree", "pwd", "read",
	"readelf", "readlink", "realpath", "return", "rev", "rg", "ag", "ack", "sha1sum",
	"sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "set", "seq", "shift", "shopt",
	"size", "sleep", "stat", "strings", "sum", "tac", "tail", "test", "times", "top", "tput",
	"tr", "tree", "true", "tsort", "tty", "type", "ulimit", "umask", "uname", "unalias",
	"unexpand", "uniq", "unset", "uptime", "vdir", "w", "wait", "wc", "whereis", "which", "who",
	"whoami", "xxd", "yes", "zcat", "zgrep", "zless", "bzcat", "xzcat", "file", "cd", "pushd",
	"popd", "dirs", "disown", "fg", "bg", "kill", "killall", "let", "local", "declare",
	"export", "readonly", "typeset", "shasum", "base64", "base32", "iconv", "od", "printf",
	"diff3", "sdiff", "colordiff", "delta", "bat", "batcat", "exa", "eza",
	"fzf", "htop", "btop", "envsubst", "gettext", "stty", "reset", "ss",
	"netstat", "ip", "ifconfig", "lsattr", "getfacl", "namei", "tokei", "cloc", "scc", "wget2",
	"xdg-open", "open", "sensible-browser", "nvidia-smi", "journalctl", "systemctl", "dmesg",
	"lsmod", "uptime", "findmnt", "getent", "whatis", "apropos", "tldr", "column",
)

// interpreters run code given on their command line or in a script, which guard
// does not read.
var interpreters = regexp.MustCompile(`^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|ruby|irb|php|lua|luajit|perl|raku|rscript|r|julia|tclsh|wish|osascript|pwsh|powershell|groovy|scala|kotlin|jshell|swift|guile|sbcl|racket|elixir|iex|erl|escript|runghc|runhaskell|ghci|ts-node|tsx|qjs|node[0-9]+)$`)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// program reads what one command (wrappers removed) writes.
func (c *command) program(name, path string, args []shellWord) {
	a := c.a
	if c.moreArgs && !readOnly[name] {
		a.cannot("xargs gives " + quoteCmd(c.text) + " arguments only known when it runs")
	}
	switch name {
	case "rm":
		for _, w := range operands(args, "") {
			a.deepTarget(w, c.cwd, c.text)
		}
	case "rmdir", "unlink", "touch", "mkdir", "shred", "mkfifo", "mknod":
		for _, w := range operands(args, optionArgs[name]) {
			a.target(w, c.cwd, OpEdit, c.text)
		}
	case "truncate":
		for _, w := range operands(args, "sr") {
			a.target(w, c.cwd, OpEdit, c.text)
		}
	case "mv":
		// The sources disappear and the destination changes: all are written.
		ops, dest := operandsWithTarget(args, "tS")
		for _, w := range ops {
			a.deepTarget(w, c.cwd, c.text)
		}
		if dest != nil {
			a.target(*dest, c.cwd, OpEdit, c.text)
		}
	case "cp", "ln", "install", "rsync", "scp":
		c.copy(name, args)
		if name == "ln" {
			c.addLinks(args) // after the link's own write is judged
		}
	case "tee":
		for _, w := range operands(args, "") {
			a.target(w, c.cwd, OpEdit, c.text)
		}
	case "chmod", "chown", "chgrp", "chattr", "setfacl", "chcon":
		c.chmod(args)
	case "sed", "gsed":
		c.sed(args)
	case "perl":
		if perlInPlace(args) {
			c.sed(args)
			return
		}
		c.interpreter(name, args)
	case "dd":
		for _, w := range args {
			if rest, ok := strings.CutPrefix(w.Text, "of="); ok {
				a.target(trimWord(w, len("of="), rest), c.cwd, OpEdit, c.text)
			}
		}
	case "curl":
		c.curl(args)
	case "wget":
		c.wget(args)
	case "git":
		c.git(args)
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash":
		c.shell(name, args)
	case "eval":
		for _, w := range args {
			if w.Dynamic {
				a.cannot("the text of " + quoteCmd(c.text) + " is only known when it runs")
				return
			}
		}
		a.script(joinWords(args), c.cwd, c.depth+1)
	case "trap", "alias":
		// trap's first operand and an alias's value are shell text that runs later
		// in this shell (on a signal or an exit; where aliases are expanded).
		ops := operands(args, "")
		if name == "trap" && len(ops) > 0 {
			ops = ops[:1]
		}
		for _, w := range ops {
			text := w.Text
			if name == "alias" {
				_, v, ok := strings.Cut(text, "=")
				if !ok {
					continue
				}
				text = v
			}
			if w.Dynamic {
				a.cannot("the text of " + quoteCmd(c.text) + " is only known when it runs")
				continue
			}
			a.script(text, c.cwd, c.depth+1)
		}
	case "source", ".":
		a.unknown(quoteCmd(c.text) + " runs a script guard does not read")
	case "find":
		c.find(args)
	case "apply_patch", "applypatch":
		// Codex's patch tool run from the shell, the patch in a here-document.
		text, ok := c.stdinText()
		if !ok {
			a.cannot(quoteCmd(c.text) + " reads its patch from somewhere guard cannot see")
			return
		}
		c.patchPaths(text, -1)
	case "patch":
		c.patch(args)
	case "tar", "bsdtar", "gtar":
		c.tar(args)
	case "unzip":
		c.unzip(args)
	case "7z", "7za", "7zr":
		c.sevenZip(args)
	case "ar":
		if len(args) > 0 && strings.ContainsAny(strings.TrimPrefix(args[0].Text, "-"), "x") {
			a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: true})
		} else if ops := operands(args, ""); len(ops) > 1 && strings.ContainsAny(args[0].Text, "rqdm") {
			a.target(ops[1], c.cwd, OpEdit, c.text)
		}
	case "cpio":
		c.cpio(args)
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd",
		"lz4", "unlz4", "compress", "uncompress", "pigz", "unpigz", "lzip", "brotli":
		c.compress(args)
	case "sort", "shuf", "iconv":
		for _, w := range optionValues(args, "okSTtn", "o", []string{"--output"}) {
			a.target(w, c.cwd, OpEdit, c.text)
		}
	case "awk", "gawk", "mawk", "nawk", "busybox-awk":
		c.awk(name, args)
	case "split", "csplit":
		// They write their pieces next to the prefix, in the current folder by default.
		ops := operands(args, "abCdlnt")
		if len(ops) >= 2 {
			a.target(ops[len(ops)-1], c.cwd, OpEdit, c.text)
		} else {
			c.inCwd()
		}
	case "yq":
		if hasFlag(args, "-i", "--inplace") {
			for _, w := range operands(args, "") {
				a.target(w, c.cwd, OpEdit, c.text)
			}
		}
	case "gofmt":
		if hasShort(args, 'w') {
			for _, w := range operands(args, "r") {
				a.deepTarget(w, c.cwd, c.text)
			}
		}
	case "go":
		c.goTool(args)
	case "sudoedit":
		for _, w := range operands(args, "") {
			a.target(w, c.cwd, OpEdit, c.text)
		}
	case "guard":
		c.guardProgram(args)
	case "npm", "pnpm", "yarn", "npx", "cargo", "gh":
		if !c.readOnlySub(name, args) {
			a.unknown(quoteCmd(c.text) + " runs programs guard does not read (package scripts, builds)")
		}
	default:
		switch {
		case readOnly[name]:
		case interpreters.MatchString(name):
			c.interpreter(name, args)
		case strings.Contains(path, "/"):
			a.unknown(quoteCmd(c.text) + " runs a script or program guard does not know")
		default:
			a.unknown("guard cannot know what " + quoteCmd(c.text) + " writes")
		}
	}
}

// inCwd records a write into the current folder (a download, a piece of a split).
func (c *command) inCwd() {
	if c.cwd == "" {
		c.a.cannot("the folder " + quoteCmd(c.text) + " writes into cannot be located")
		return
	}
	c.a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text})
}

// interpreter notes code guard does not read.
func (c *command) interpreter(name string, args []shellWord) {
	for _, w := range args {
		switch w.Text {
		case "-c", "-e", "-E", "--eval", "-p", "--print", "-r", "-x":
			c.a.unknown(quoteCmd(c.text) + " runs " + name + " code guard does not read")
			return
		}
	}
	c.a.unknown(quoteCmd(c.text) + " runs a " + name + " program guard does not read")
}

// trimWord is w with its first n bytes (an option's name) cut off, leaving rest.
func trimWord(w shellWord, n int, rest string) shellWord {
	w.Text = rest
	if len(w.pattern) >= n {
		w.pattern = w.pattern[n:]
	}
	if w.GlobAt >= n {
		w.GlobAt -= n
	}
	return w
}

func hasFlag(args []shellWord, flags ...string) bool {
	for _, w := range args {
		if w.Text == "--" {
			return false
		}
		for _, f := range flags {
			if w.Text == f || strings.HasPrefix(w.Text, f+"=") {
				return true
			}
		}
	}
	return false
}

// hasShort reports a short option letter, alone or in a group (-rf).
func hasShort(args []shellWord, letter byte) bool {
	for _, w := range args {
		t := w.Text
		if t == "--" {
			return false
		}
		if strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.IndexByte(t[1:], letter) >= 0 {
			return true
		}
	}
	return false
}
