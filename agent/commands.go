package agent

import (
	"github.com/guardlocks/guard/internal/lazyre"
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
var interpreters = lazyre.New(`^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|ruby|irb|php|lua|luajit|perl|raku|rscript|r|julia|tclsh|wish|osascript|pwsh|powershell|groovy|scala|kotlin|jshell|swift|guile|sbcl|racket|elixir|iex|erl|escript|runghc|runhaskell|ghci|ts-node|tsx|qjs|node[0-9]+)$`)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// reader reads what one program writes, from its arguments; name is the program as
// called (the members of a family differ in small ways: ln adds links, perl -i is
// sed).
type reader func(c *command, name string, args []shellWord)

// tool is one family's reader and the names it reads.
type tool struct {
	names []string
	read  reader
}

// programs is the table of the programs guard reads, keyed by name: one family of
// tools per file (tools_*.go, git.go, guardcmd.go). Built in init: the readers
// reach back into program through the commands they read (sh -c, find -exec).
var programs map[string]reader

func init() {
	programs = programTable(fileTools, textTools, netTools, shellTools, findTools,
		archiveTools, patchTools, buildTools, gitTools, guardTools)
}

// programTable keys the families' readers by program name; a name in two families is
// a mistake in the tables.
func programTable(families ...[]tool) map[string]reader {
	m := map[string]reader{}
	for _, f := range families {
		for _, t := range f {
			for _, n := range t.names {
				if _, dup := m[n]; dup {
					panic("agent: program " + n + " has two readers")
				}
				m[n] = t.read
			}
		}
	}
	return m
}

// program reads what one command (wrappers removed) writes.
func (c *command) program(name, path string, args []shellWord) {
	a := c.a
	if c.moreArgs && !readOnly[name] {
		a.cannot("xargs gives " + quoteCmd(c.text) + " arguments only known when it runs")
	}
	if read, ok := programs[name]; ok {
		read(c, name, args)
		return
	}
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
