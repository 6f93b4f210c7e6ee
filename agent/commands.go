package agent

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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

// copy reads cp, ln, install, rsync and scp: they write their destination; a
// recursive copy of a folder's contents (SRC/. or rsync's SRC/) writes each of its
// entries' names in the destination, and --delete removes what is not in the source.
func (c *command) copy(name string, args []shellWord) {
	a := c.a
	ops, dest := operandsWithTarget(args, optionArgs[name])
	if name == "install" && installsDirectories(args) {
		for _, w := range ops {
			a.target(w, c.cwd, OpEdit, c.text)
		}
		return
	}
	var srcs []shellWord
	switch {
	case dest != nil:
		srcs = ops
	case len(ops) >= 2:
		srcs, dest = ops[:len(ops)-1], &ops[len(ops)-1]
	default:
		return
	}
	if name == "scp" && strings.Contains(dest.Text, ":") && !strings.HasPrefix(dest.Text, "/") && !strings.HasPrefix(dest.Text, ".") {
		return // host:path is another machine
	}
	recursive := hasShort(args, 'r') || hasShort(args, 'R') || hasShort(args, 'a') || hasFlag(args, "--recursive", "--archive")
	if hasFlag(args, "--delete", "--delete-before", "--delete-after", "--delete-during", "--delete-delay", "--delete-excluded", "--del") {
		a.deepTarget(*dest, c.cwd, c.text)
		return
	}
	a.target(*dest, c.cwd, OpEdit, c.text)
	if !recursive || dest.Dynamic || dest.Glob {
		return
	}
	d, ok := a.resolve(*dest, c.cwd)
	if !ok {
		return
	}
	for _, s := range srcs {
		src, ok := a.resolve(s, c.cwd)
		if s.Dynamic || s.Glob || !ok {
			continue
		}
		contents := strings.HasSuffix(s.Text, "/.") || name == "rsync" && strings.HasSuffix(s.Text, "/")
		if !contents {
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				a.effect(Effect{Op: OpEdit, Path: filepath.Join(d, filepath.Base(src)), Command: c.text, Descend: true})
			}
			continue
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			a.deepTarget(*dest, c.cwd, c.text)
			continue
		}
		for _, e := range entries {
			a.effect(Effect{Op: OpEdit, Path: filepath.Join(d, e.Name()), Command: c.text, Descend: true})
		}
	}
}

// chmod reads chmod, chown, chgrp and the like: the first operand is the mode or
// owner (unless --reference gives it); -R reaches into folders.
func (c *command) chmod(args []shellWord) {
	recursive := hasShort(args, 'R') || hasFlag(args, "--recursive")
	ops := operands(args, "")
	if !hasFlag(args, "--reference") && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, w := range ops {
		c.a.targetDeep(w, c.cwd, OpEdit, c.text, recursive)
	}
}

// perlInPlace reports perl -i (also in a group, -pi).
func perlInPlace(args []shellWord) bool {
	for _, w := range args {
		t := w.Text
		if t == "--" || !strings.HasPrefix(t, "-") {
			return false
		}
		if t == "-e" || t == "-E" {
			continue
		}
		if !strings.HasPrefix(t, "--") && strings.Contains(t, "i") {
			return true
		}
	}
	return false
}

// sedWrites matches a sed script that writes files or runs commands of its own (w, W
// and e commands, the w and e flags of s).
var sedWrites = regexp.MustCompile(`(^|[;{}\n/|#,!0-9$ \t])[wWe]([ \t]|$)|(^|[/|#,])[gpiIm0-9]*[we]([ \t]|$)`)

func (c *command) sed(args []shellWord) {
	a := c.a
	inPlace, script := false, false
	var files, scripts []shellWord
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
			if i+1 < len(args) && t != "-f" && t != "--file" {
				scripts = append(scripts, args[i+1])
			}
			i++
		case strings.HasPrefix(t, "--expression="):
			script = true
			scripts = append(scripts, shellWord{Text: strings.TrimPrefix(t, "--expression=")})
		case strings.HasPrefix(t, "--file="):
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
						if t[k] == 'e' && i < len(args) {
							scripts = append(scripts, args[i])
						}
					}
					break
				}
			}
		default:
			files = append(files, args[i])
		}
	}
	if !script && len(files) > 0 {
		scripts = append(scripts, files[0])
		files = files[1:] // the first operand is the script
	}
	for _, s := range scripts {
		if s.Dynamic || sedWrites.MatchString(s.Text) {
			a.unknown(quoteCmd(c.text) + " may write files or run commands from its script")
			break
		}
	}
	if !inPlace {
		return
	}
	for _, w := range files {
		a.target(w, c.cwd, OpEdit, c.text)
	}
}

// awk reads awk: -i inplace edits its files; a program that redirects its output or
// runs commands is code guard does not read.
func (c *command) awk(name string, args []shellWord) {
	inPlace := false
	program := -1
	var files []shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "-i" || t == "--include":
			if i+1 < len(args) && strings.TrimSuffix(args[i+1].Text, ".awk") == "inplace" {
				inPlace = true
			}
			i++
		case strings.HasPrefix(t, "-i") && strings.TrimSuffix(t[2:], ".awk") == "inplace":
			inPlace = true
		case t == "-f" || t == "--file":
			program = len(args) // a program file guard does not read
			i++
		case t == "-v" || t == "-F" || t == "--assign" || t == "--field-separator":
			i++
		case t == "--":
		case strings.HasPrefix(t, "-") && len(t) > 1:
		case program < 0:
			program = i
		default:
			files = append(files, args[i])
		}
	}
	switch {
	case program == len(args):
		c.a.unknown(quoteCmd(c.text) + " runs an " + name + " program guard does not read")
	case program >= 0 && (args[program].Dynamic || strings.ContainsAny(args[program].Text, ">|") || strings.Contains(args[program].Text, "system")):
		c.a.unknown(quoteCmd(c.text) + " runs " + name + " code that may write files")
	}
	if inPlace {
		for _, w := range files {
			c.a.target(w, c.cwd, OpEdit, c.text)
		}
	}
}

// curl reads curl's outputs: -o FILE, -O (the remote name, in --output-dir or the
// current folder), --output-dir, and the files it writes headers and cookies to.
func (c *command) curl(args []shellWord) {
	a := c.a
	valued := "AbcCdDeEFHKmoPQrtTuUwxXyYz"
	outDir := optionValues(args, valued, "", []string{"--output-dir"})
	dir := c.cwd
	if len(outDir) > 0 {
		a.target(outDir[len(outDir)-1], c.cwd, OpEdit, c.text)
		if p, ok := a.resolve(outDir[len(outDir)-1], c.cwd); ok {
			dir = p
		} else {
			dir = ""
		}
	}
	for _, w := range optionValues(args, valued, "o", []string{"--output"}) {
		if w.Text != "-" {
			a.target(w, dir, OpEdit, c.text)
		}
	}
	for _, w := range optionValues(args, valued, "cD", []string{"--cookie-jar", "--dump-header", "--trace", "--trace-ascii", "--stderr", "--etag-save", "--hsts", "--alt-svc"}) {
		if w.Text != "-" {
			a.target(w, c.cwd, OpEdit, c.text)
		}
	}
	if remoteName(args) {
		if dir == "" {
			a.cannot("the folder " + quoteCmd(c.text) + " downloads into cannot be located")
			return
		}
		a.effect(Effect{Op: OpEdit, Path: dir, Command: c.text})
	}
}

// remoteName reports curl -O (also grouped, -LO) or --remote-name(-all).
func remoteName(args []shellWord) bool {
	for _, w := range args {
		t := w.Text
		switch {
		case t == "--":
			return false
		case t == "--remote-name" || t == "--remote-name-all":
			return true
		case strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--"):
			for k := 1; k < len(t); k++ {
				if t[k] == 'O' {
					return true
				}
				if strings.IndexByte("AbcCdDeEFHKmoPQrtTuUwxXyYz", t[k]) >= 0 {
					break
				}
			}
		}
	}
	return false
}

// wget reads wget's outputs: -O FILE, -o/-a log files, and by default the file it
// downloads in -P DIR or the current folder (the whole folder tree with -r or -m).
func (c *command) wget(args []shellWord) {
	a := c.a
	valued := "aABdDeiIlOoPQRtTUwX"
	for _, w := range optionValues(args, valued, "oa", []string{"--output-file", "--append-output"}) {
		a.target(w, c.cwd, OpEdit, c.text)
	}
	if hasFlag(args, "--spider") {
		return
	}
	if outs := optionValues(args, valued, "O", []string{"--output-document"}); len(outs) > 0 {
		for _, w := range outs {
			if w.Text != "-" {
				a.target(w, c.cwd, OpEdit, c.text)
			}
		}
		return
	}
	recursive := hasShort(args, 'r') || hasShort(args, 'm') || hasFlag(args, "--recursive", "--mirror")
	if dirs := optionValues(args, valued, "P", []string{"--directory-prefix"}); len(dirs) > 0 {
		a.targetDeep(dirs[len(dirs)-1], c.cwd, OpEdit, c.text, recursive)
		return
	}
	if c.cwd == "" {
		a.cannot("the folder " + quoteCmd(c.text) + " downloads into cannot be located")
		return
	}
	a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: recursive})
}

// shell reads sh -c TEXT, a here-document or here-string fed to a shell, and a script
// file run by a shell.
func (c *command) shell(name string, args []shellWord) {
	a := c.a
	cflag, stdin := false, false
	i := 0
options:
	for i < len(args) {
		t := args[i].Text
		switch {
		case t == "--" || t == "-":
			i++
			break options
		case t == "--rcfile" || t == "--init-file":
			i += 2
			continue
		case strings.HasPrefix(t, "--"):
		case (strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+")) && len(t) > 1:
			for k := 1; k < len(t); k++ {
				switch t[k] {
				case 'c':
					cflag = true
				case 's':
					stdin = true
				case 'o', 'O':
					i++ // -o pipefail
				}
			}
		default:
			break options
		}
		i++
	}
	rest := args[min(i, len(args)):]
	switch {
	case cflag:
		if len(rest) == 0 {
			return
		}
		if rest[0].Dynamic {
			a.cannot("the script of " + quoteCmd(c.text) + " is only known when it runs")
			return
		}
		a.script(rest[0].Text, c.cwd, c.depth+1)
	case len(rest) > 0 && !stdin:
		a.unknown(quoteCmd(c.text) + " runs a script guard does not read")
	default:
		text, ok := c.stdinText()
		switch {
		case ok:
			a.script(text, c.cwd, c.depth+1)
		case c.stdinFile():
			a.unknown(quoteCmd(c.text) + " runs a script guard does not read")
		case c.piped:
			a.cannot("the script " + quoteCmd(c.text) + " reads from its input is only known when it runs")
		}
	}
}

// stdinText is the text a here-document or here-string gives the command, and
// whether there is one guard knows (an unquoted body with expansions is not known:
// it is then noted as such).
func (c *command) stdinText() (string, bool) {
	var text string
	found := false
	for _, r := range c.stmt.Redirs {
		switch r.Op.String() {
		case "<<", "<<-", "<<<":
			t, ok := c.a.heredocText(r, c.cwd)
			if !ok {
				c.a.cannot("the input " + quoteCmd(c.text) + " reads holds text only known when it runs")
				return "", false
			}
			text, found = t, true
		case "<":
			found = false
		}
	}
	return text, found
}

// stdinFile reports an input redirection from a file (`sh < script.sh`).
func (c *command) stdinFile() bool {
	for _, r := range c.stmt.Redirs {
		if r.Op.String() == "<" {
			return true
		}
	}
	return false
}

// find reads `find ROOT... EXPR`: -delete removes files below the roots; -exec and
// its kin run a command on paths below them, read as such.
func (c *command) find(args []shellWord) {
	a := c.a
	var roots []shellWord
	i := 0
	// Options before the roots (-L, -H, -P, -O3, -D x).
	for i < len(args) && (args[i].Text == "-L" || args[i].Text == "-H" || args[i].Text == "-P" || strings.HasPrefix(args[i].Text, "-O") || args[i].Text == "-D") {
		if args[i].Text == "-D" {
			i++
		}
		i++
	}
	for i < len(args) && !strings.HasPrefix(args[i].Text, "-") && args[i].Text != "(" && args[i].Text != "!" {
		roots = append(roots, args[i])
		i++
	}
	if len(roots) == 0 {
		roots = []shellWord{{Text: ".", GlobAt: -1, pattern: "."}}
	}
	for ; i < len(args); i++ {
		switch args[i].Text {
		case "-delete":
			for _, r := range roots {
				a.deepTarget(r, c.cwd, c.text)
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				a.target(args[i+1], c.cwd, OpEdit, c.text)
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].Text != ";" && args[j].Text != "+" {
				j++
			}
			sub := args[i+1 : j]
			i = j
			if len(sub) == 0 {
				continue
			}
			// {} is a path below a root: the command is read once per root with the
			// root in its place, every target reaching into it.
			for _, r := range roots {
				words := make([]shellWord, len(sub))
				for k, w := range sub {
					words[k] = w
					if strings.Contains(w.Text, "{}") {
						words[k] = r
					}
				}
				n := len(a.out.Effects)
				sc := &command{a: a, stmt: c.stmt, cwd: c.cwd, depth: c.depth + 1}
				sc.run(words)
				for k := n; k < len(a.out.Effects); k++ {
					if a.out.Effects[k].Op == OpEdit {
						a.out.Effects[k].Descend = true
					}
				}
			}
		}
	}
}

// copyOut etc. below read archive tools.

// tar reads tar: extracting writes anything below -C DIR (or the current folder);
// creating or updating writes the archive.
func (c *command) tar(args []shellWord) {
	a := c.a
	mode := ""
	var file, dir *shellWord
	toStdout := false
	// The first word may be a bundle of letters without a dash (tar xzf a.tgz): its
	// value letters take the next words in order.
	i := 0
	takeValues := func(letters string) {
		for _, l := range letters {
			switch l {
			case 'x', 'c', 'r', 'u', 't', 'd', 'A':
				if mode == "" || l != 't' {
					mode = string(l)
				}
			case 'O':
				toStdout = true
			case 'f', 'C', 'b', 'g', 'H', 'K', 'L', 'N', 'T', 'V', 'X':
				if i+1 < len(args) {
					i++
					w := args[i]
					switch l {
					case 'f':
						file = &w
					case 'C':
						dir = &w
					}
				}
			}
		}
	}
	if len(args) > 0 && !strings.HasPrefix(args[0].Text, "-") {
		takeValues(args[0].Text)
		i++
	}
	for ; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "--extract" || t == "--get":
			mode = "x"
		case t == "--create":
			mode = "c"
		case t == "--append" || t == "--update" || t == "--concatenate" || t == "--delete":
			mode = "u"
		case t == "--to-stdout" || t == "--to-command" || strings.HasPrefix(t, "--to-command="):
			toStdout = true
		case t == "--directory" || t == "--file":
			if i+1 < len(args) {
				w := args[i+1]
				if t == "--file" {
					file = &w
				} else {
					dir = &w
				}
				i++
			}
		case strings.HasPrefix(t, "--directory="):
			w := trimWord(args[i], len("--directory="), strings.TrimPrefix(t, "--directory="))
			dir = &w
		case strings.HasPrefix(t, "--file="):
			w := trimWord(args[i], len("--file="), strings.TrimPrefix(t, "--file="))
			file = &w
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") && len(t) > 1:
			// -xzf FILE, -C DIR, -CDIR.
			letters := t[1:]
			if k := strings.IndexAny(letters, "fC"); k >= 0 && k+1 < len(letters) {
				w := trimWord(args[i], k+2, letters[k+1:])
				if letters[k] == 'f' {
					file = &w
				} else {
					dir = &w
				}
				letters = letters[:k]
			}
			takeValues(letters)
		}
	}
	switch mode {
	case "x":
		if toStdout {
			return
		}
		if dir != nil {
			a.deepTarget(*dir, c.cwd, c.text)
			return
		}
		if c.cwd == "" {
			a.cannot("the folder " + quoteCmd(c.text) + " extracts into cannot be located")
			return
		}
		a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: true})
	case "c", "r", "u", "A", "d":
		if file != nil && file.Text != "-" {
			a.target(*file, c.cwd, OpEdit, c.text)
		}
	}
}

// unzip reads unzip: it extracts into -d DIR or the current folder (listing and
// testing write nothing).
func (c *command) unzip(args []shellWord) {
	for _, w := range args {
		switch w.Text {
		case "-l", "-t", "-v", "-p", "-z", "-Z", "-c":
			return
		}
	}
	if dirs := optionValues(args, "dxP", "d", nil); len(dirs) > 0 {
		c.a.deepTarget(dirs[len(dirs)-1], c.cwd, c.text)
		return
	}
	if c.cwd == "" {
		c.a.cannot("the folder " + quoteCmd(c.text) + " extracts into cannot be located")
		return
	}
	c.a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: true})
}

// sevenZip reads 7z x/e (extract into -oDIR or the current folder) and a/u/d (write
// the archive).
func (c *command) sevenZip(args []shellWord) {
	ops := operands(args, "")
	if len(ops) == 0 {
		return
	}
	switch ops[0].Text {
	case "x", "e":
		for _, w := range args {
			if rest, ok := strings.CutPrefix(w.Text, "-o"); ok && rest != "" {
				c.a.deepTarget(trimWord(w, 2, rest), c.cwd, c.text)
				return
			}
		}
		if c.cwd != "" {
			c.a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: true})
		}
	case "a", "u", "d", "rn":
		if len(ops) > 1 {
			c.a.target(ops[1], c.cwd, OpEdit, c.text)
		}
	}
}

// cpio reads cpio -i (extracts into the current folder) and -p DIR (copies into DIR).
func (c *command) cpio(args []shellWord) {
	ops := operands(args, "")
	switch {
	case hasShort(args, 'i') || hasFlag(args, "--extract"):
		if dirs := optionValues(args, "DEFHIMORs", "D", []string{"--directory"}); len(dirs) > 0 {
			c.a.deepTarget(dirs[len(dirs)-1], c.cwd, c.text)
		} else if c.cwd != "" {
			c.a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: true})
		}
	case hasShort(args, 'p') || hasFlag(args, "--pass-through"):
		if len(ops) > 0 {
			c.a.deepTarget(ops[len(ops)-1], c.cwd, c.text)
		}
	case hasShort(args, 'o'):
		for _, w := range optionValues(args, "FHMORs", "FO", []string{"--file"}) {
			c.a.target(w, c.cwd, OpEdit, c.text)
		}
	}
}

// compress reads gzip and its kin: each file is replaced by its (de)compressed
// version next to it; -c writes to stdout; -r reaches into folders.
func (c *command) compress(args []shellWord) {
	for _, w := range args {
		switch w.Text {
		case "-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test", "-h", "--help", "-V", "--version":
			return
		}
		if strings.HasPrefix(w.Text, "-") && !strings.HasPrefix(w.Text, "--") && strings.ContainsAny(w.Text[1:], "ctl") && !strings.ContainsAny(w.Text[1:], "S") {
			return
		}
	}
	recursive := hasShort(args, 'r') || hasFlag(args, "--recursive")
	for _, w := range operands(args, "SbLTM") {
		c.a.targetDeep(w, c.cwd, OpEdit, c.text, recursive)
	}
	for _, w := range optionValues(args, "o", "o", []string{"--output"}) {
		c.a.target(w, c.cwd, OpEdit, c.text)
	}
}

// patch reads patch: it edits the files its patch names (read from -i FILE, the
// second operand, or its input), or the file given as the first operand, or -o FILE.
func (c *command) patch(args []shellWord) {
	a := c.a
	dir := c.cwd
	strip := -1
	var patchFile *shellWord
	var ops []shellWord
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		val := func(short, long string) (shellWord, bool) {
			switch {
			case t == short || t == long:
				if i+1 < len(args) {
					i++
					return args[i], true
				}
			case strings.HasPrefix(t, long+"="):
				return trimWord(args[i], len(long)+1, t[len(long)+1:]), true
			case len(t) > 2 && strings.HasPrefix(t, short):
				return trimWord(args[i], 2, t[2:]), true
			}
			return shellWord{}, false
		}
		if w, ok := val("-d", "--directory"); ok {
			dir = a.chdir(w, c.cwd)
			continue
		}
		if w, ok := val("-p", "--strip"); ok {
			if n, err := strconv.Atoi(w.Text); err == nil {
				strip = n
			}
			continue
		}
		if w, ok := val("-i", "--input"); ok {
			patchFile = &w
			continue
		}
		if w, ok := val("-o", "--output"); ok {
			a.target(w, dir, OpEdit, c.text)
			continue
		}
		if w, ok := val("-r", "--reject-file"); ok {
			a.target(w, dir, OpEdit, c.text)
			continue
		}
		if _, ok := val("-B", "--prefix"); ok {
			continue
		}
		if _, ok := val("-z", "--suffix"); ok {
			continue
		}
		if _, ok := val("-F", "--fuzz"); ok {
			continue
		}
		switch {
		case t == "--dry-run" || t == "-C" || t == "--check":
			return
		case strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			ops = append(ops, args[i])
		}
	}
	if len(ops) > 0 {
		a.target(ops[0], dir, OpEdit, c.text)
		if len(ops) > 1 && patchFile == nil {
			patchFile = &ops[1]
		} else {
			return
		}
	}
	save := c.cwd
	c.cwd = dir
	defer func() { c.cwd = save }()
	c.patchFrom(patchFile, strip)
}

// patchFrom reads the patch text (a file, else the command's input) and records the
// files it names.
func (c *command) patchFrom(file *shellWord, strip int) {
	a := c.a
	if c.cwd == "" {
		a.cannot("the files " + quoteCmd(c.text) + " patches cannot be located")
		return
	}
	var text string
	switch {
	case file != nil:
		p, ok := a.resolve(*file, c.cwd)
		if !ok || file.Glob {
			a.cannot("the patch " + quoteCmd(c.text) + " applies is only known when it runs")
			return
		}
		data, err := os.ReadFile(p)
		if err != nil {
			a.cannot("guard cannot read the patch of " + quoteCmd(c.text) + ": " + err.Error())
			return
		}
		text = string(data)
	default:
		t, ok := c.stdinText()
		if !ok && c.stdinFile() {
			for _, r := range c.stmt.Redirs {
				if r.Op.String() == "<" {
					ws := a.words([]*syntax.Word{r.Word}, c.cwd, c.depth)
					if len(ws) == 1 {
						w := ws[0]
						c.patchFrom(&w, strip)
					}
					return
				}
			}
		}
		if !ok {
			a.cannot(quoteCmd(c.text) + " reads its patch from somewhere guard cannot see")
			return
		}
		text = t
	}
	c.patchPaths(text, strip)
}

// patchPaths records the files a patch names: apply_patch's `*** ... File:` lines and
// unified or context diff headers, with strip leading components removed (-1: every
// strip level, as patch may guess one).
func (c *command) patchPaths(text string, strip int) {
	for _, p := range PatchPaths(text, c.cwd) {
		c.a.effect(Effect{Op: OpEdit, Path: p, Command: c.text})
	}
	for _, line := range strings.Split(text, "\n") {
		var name string
		switch {
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "*** "):
			name = strings.TrimSpace(line[4:])
		case strings.HasPrefix(line, "diff --git "):
			// Renames and new files name both sides here.
			for _, f := range strings.Fields(line)[2:] {
				c.patchName(f, strip)
			}
			continue
		default:
			continue
		}
		if i := strings.IndexByte(name, '\t'); i >= 0 {
			name = name[:i]
		}
		if name == "/dev/null" || name == "" || strings.HasPrefix(name, "*** ") || strings.HasPrefix(name, "Begin Patch") || strings.HasPrefix(name, "End Patch") || strings.Contains(name, " File: ") || strings.HasPrefix(name, "Add File") || strings.HasPrefix(name, "Update File") || strings.HasPrefix(name, "Delete File") || strings.HasPrefix(name, "Move to") {
			continue
		}
		c.patchName(name, strip)
	}
}

func (c *command) patchName(name string, strip int) {
	parts := strings.Split(filepath.ToSlash(name), "/")
	levels := []int{strip}
	if strip < 0 {
		levels = nil
		for k := 0; k < len(parts); k++ {
			levels = append(levels, k)
		}
	}
	for _, k := range levels {
		if k >= len(parts) {
			continue
		}
		rel := strings.Join(parts[k:], "/")
		if filepath.IsAbs(name) && k == 0 {
			rel = name
		}
		// Where the kernel reaches it (a/link/../b is above where link points).
		p, ok := c.a.resolvePath(rel, c.cwd)
		if !ok {
			p = filepath.Join(c.cwd, rel)
		}
		c.a.effect(Effect{Op: OpEdit, Path: p, Command: c.text})
	}
}

// goTool reads the go command: build writes its output (-o, else the current
// folder), fmt rewrites its packages, mod and get change the module files; test, run
// and generate run programs guard does not read.
func (c *command) goTool(args []shellWord) {
	a := c.a
	if len(args) == 0 {
		return
	}
	sub, rest := args[0].Text, args[1:]
	switch sub {
	case "build":
		if outs := optionValues(rest, "o", "o", nil); len(outs) > 0 {
			for _, w := range outs {
				a.target(w, c.cwd, OpEdit, c.text)
			}
			return
		}
		for _, w := range rest {
			if strings.HasPrefix(w.Text, "-o=") {
				a.target(trimWord(w, 3, w.Text[3:]), c.cwd, OpEdit, c.text)
				return
			}
		}
		c.inCwd()
	case "fmt", "fix":
		if c.cwd != "" {
			a.effect(Effect{Op: OpEdit, Path: c.cwd, Command: c.text, Descend: true})
		}
	case "mod", "get", "clean", "work":
		if len(rest) > 0 && (rest[0].Text == "graph" || rest[0].Text == "why" || rest[0].Text == "verify" || rest[0].Text == "download") {
			return
		}
		c.inCwd()
	case "vet", "list", "env", "version", "doc", "help", "install", "telemetry":
	default:
		a.unknown(quoteCmd(c.text) + " runs programs guard does not read")
	}
}

// readOnlySub reports the subcommands of package managers and gh that only read.
func (c *command) readOnlySub(name string, args []shellWord) bool {
	ops := operands(args, "")
	if len(ops) == 0 {
		return len(args) > 0 // npm --version
	}
	sub := ops[0].Text
	switch name {
	case "npm", "pnpm", "yarn":
		switch sub {
		case "ls", "list", "ll", "la", "view", "info", "show", "outdated", "help", "search", "whoami",
			"ping", "root", "prefix", "bin", "why", "explain", "doctor", "config", "get", "query", "fund", "docs", "repo", "bugs":
			return true
		case "audit":
			return !hasFlag(args, "fix")
		}
	case "cargo":
		switch sub {
		case "metadata", "tree", "search", "locate-project", "pkgid", "verify-project", "help", "version", "info":
			return true
		}
	case "gh":
		if len(ops) > 1 {
			switch ops[1].Text {
			case "view", "list", "diff", "status", "checks", "watch":
				return true
			}
		}
		switch sub {
		case "api", "search", "browse", "status", "auth":
			return true
		}
	}
	return false
}
