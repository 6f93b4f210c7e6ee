// Package cmdline sees through the programs that only run another program (env,
// sudo, timeout, nice, nohup, setsid, busybox, xargs, ...) to the command they run,
// with the options in each spelling the wrappers accept (grouped short options, glued
// values, long options with "=" or a separate value, unambiguous abbreviations).
//
// It knows wrappers, nothing else: what the real command does is for its callers (the
// agent hook, the publish wrapper) to judge. It imports nothing of guard's, so both
// can share it and see the same command.
package cmdline

import (
	"path/filepath"
	"strings"
)

// Word is a value taken from the command line, with the index of the input word that
// holds it (callers that know more about their words, such as whether the shell
// expands them, look it up there).
type Word struct {
	Text string
	At   int
}

// Command is what a command line runs once its wrappers are seen through.
type Command struct {
	// Argv is the command that runs, program first; empty when none runs (a bare
	// `env`, `sudo -v`, `command -v x`) or when it is shell text (Shell).
	Argv []string
	// At is the index in the input of Argv[0], or -1 when Argv was split out of one
	// input word (env -S 'cmd args').
	At int
	// Dirs are the directories the wrappers change to before the command runs (env
	// -C, sudo -D), in order, each as written (relative to the one before).
	Dirs []Word
	// Writes are files the wrappers themselves write (time -o FILE, flock FILE,
	// strace -o FILE).
	Writes []Word
	// Shell is shell text a wrapper runs with a shell (su -c, flock -c, watch,
	// sg); nil when there is none.
	Shell *Word
	// MoreArgs is set when Argv gets more arguments only known when it runs (xargs
	// appends what it reads from its input).
	MoreArgs bool
	// Opaque says why the command's paths cannot be read as written (chroot, sudo
	// -i changing to a home directory); "" when they can.
	Opaque string
	// Wrappers are the wrappers seen through, outermost first.
	Wrappers []string
}

// Program is the name a program is known by: the base name of its path (either
// slash), in lower case, without a Windows executable suffix.
func Program(word string) string {
	base := strings.ToLower(filepath.Base(strings.ReplaceAll(word, `\`, "/")))
	for _, ext := range []string{".exe", ".cmd", ".bat", ".ps1"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// IsWrapper reports whether the program named by word is one Unwrap sees through.
func IsWrapper(word string) bool {
	_, ok := wrappers[Program(word)]
	return ok
}

// IsAssignment reports whether word is a shell-style environment assignment
// (NAME=value) as env and shells accept before a command.
func IsAssignment(word string) bool {
	i := strings.IndexByte(word, '=')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := word[j]
		if c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || j > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// maxWrappers bounds the chain of wrappers followed (`env env env ...`), so that a
// hostile command line cannot make a caller loop for long; past it the rest is
// returned as the command, which callers do not recognise as anything harmless.
const maxWrappers = 64

// Unwrap sees through the leading assignments and wrappers of argv.
func Unwrap(argv []string) Command {
	c := Command{At: 0}
	words := argv
	base := 0 // index in argv of words[0]; -1 once words were split out of one word
	for n := 0; len(words) > 0 && n < maxWrappers; n++ {
		if IsAssignment(words[0]) {
			words, base = words[1:], next(base, 1)
			continue
		}
		name := Program(words[0])
		sp, ok := wrappers[name]
		if !ok {
			break
		}
		c.Wrappers = append(c.Wrappers, name)
		r := reader{words: words[1:], base: next(base, 1), spec: sp}
		rest, restBase := r.read(&c)
		if r.split != nil {
			// env -S: the string is the command (and its first arguments).
			words = append(splitString(r.split.Text), rest...)
			base = -1
			continue
		}
		if name == "sudo" && (r.seen["e"] || r.seen["edit"]) {
			// sudo -e FILE...: sudoedit edits the files.
			words, base = append([]string{"sudoedit"}, rest...), -1
			continue
		}
		if c.Shell != nil || r.noRun {
			words = nil
			break
		}
		words, base = rest, restBase
	}
	if len(words) > 0 {
		c.Argv = words
	}
	c.At = base
	if len(words) == 0 {
		c.At = -1
	}
	return c
}

func next(base, n int) int {
	if base < 0 {
		return -1
	}
	return base + n
}

// spec describes one wrapper's command line.
type spec struct {
	// valued are the short option letters that take a value.
	valued string
	// long are the long options (without "--") that take a value; flags the long
	// options that take none (so that an abbreviation is read right).
	long, flags []string
	// positional is the number of operands before the command (timeout DURATION).
	positional int
	// dir, output and shell name the options (short letter or long name) whose value
	// is the directory the command runs in, a file the wrapper writes, and shell text
	// the wrapper runs.
	dir, output, shell []string
	// noRun are options with which no command runs (command -v, sudo -l).
	noRun []string
	// opaque are options that change what the command's paths mean, with why.
	opaque map[string]string
	// assignments: NAME=value words may follow the options (env).
	assignments bool
	// custom reads what the generic reading cannot (positional forms of su, flock,
	// watch, xargs).
	custom func(r *reader, c *Command)
}

var wrappers = map[string]spec{
	"env": {valued: "uCSP", long: []string{"unset", "chdir", "split-string", "argv0"},
		flags: []string{"ignore-environment", "null", "debug", "block-signal", "default-signal", "ignore-signal", "list-signal-handling"},
		dir:   []string{"C", "chdir"}, assignments: true},
	"sudo": {valued: "uUgChpDrtTRc", long: []string{"user", "other-user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "chroot", "command-timeout", "login-class"},
		flags: []string{"askpass", "background", "bell", "preserve-env", "edit", "help", "set-home", "login", "remove-timestamp", "reset-timestamp", "list", "non-interactive", "preserve-groups", "shell", "stdin", "validate", "version"},
		dir:   []string{"D", "chdir"}, noRun: []string{"l", "list", "v", "validate", "k", "K", "reset-timestamp", "remove-timestamp", "V", "version", "h", "help"},
		opaque: map[string]string{"i": "sudo -i runs the command in the target user's home folder", "login": "sudo --login runs the command in the target user's home folder",
			"R": "sudo -R runs the command under another root folder", "chroot": "sudo --chroot runs the command under another root folder"}},
	"doas":       {valued: "uaC", noRun: []string{"C", "L"}, opaque: map[string]string{"s": "doas -s runs a shell"}},
	"pkexec":     {long: []string{"user"}},
	"timeout":    {valued: "ks", long: []string{"kill-after", "signal"}, flags: []string{"foreground", "preserve-status", "verbose"}, positional: 1},
	"nice":       {valued: "n", long: []string{"adjustment"}},
	"ionice":     {valued: "cnpPu", long: []string{"class", "classdata", "pid", "pgid", "uid"}, flags: []string{"ignore"}, noRun: []string{"p", "P", "u", "pid", "pgid", "uid"}},
	"nohup":      {},
	"setsid":     {flags: []string{"ctty", "fork", "wait"}},
	"stdbuf":     {valued: "ioe", long: []string{"input", "output", "error"}},
	"time":       {valued: "of", long: []string{"output", "format"}, flags: []string{"append", "portability", "verbose", "quiet"}, output: []string{"o", "output"}},
	"command":    {noRun: []string{"v", "V"}},
	"builtin":    {},
	"exec":       {valued: "a"},
	"busybox":    {},
	"chronic":    {},
	"unbuffer":   {},
	"caffeinate": {valued: "tw"},
	"chrt": {valued: "TPD", long: []string{"sched-runtime", "sched-period", "sched-deadline"},
		flags: []string{"all-tasks", "batch", "deadline", "fifo", "idle", "other", "rr", "reset-on-fork", "verbose"},
		noRun: []string{"p", "pid", "m", "max"}, positional: 1},
	"taskset": {flags: []string{"all-tasks", "cpu-list"}, noRun: []string{"p", "pid"}, positional: 1},
	"flock": {valued: "wEc", long: []string{"timeout", "wait", "conflict-exit-code", "command"},
		flags: []string{"shared", "exclusive", "nonblock", "nb", "unlock", "close", "no-fork", "verbose"},
		shell: []string{"c", "command"}, custom: flockCommand},
	"chroot": {long: []string{"groups", "userspec"}, flags: []string{"skip-chdir"}, custom: chrootCommand},
	"su": {valued: "cgGsw", long: []string{"command", "session-command", "group", "supp-group", "shell", "whitelist-environment"},
		flags: []string{"login", "preserve-environment", "pty", "fast"}, shell: []string{"c", "command", "session-command"},
		opaque: map[string]string{"l": "su -l runs the command in the target user's home folder", "login": "su --login runs the command in the target user's home folder"},
		custom: suCommand},
	"runuser": {valued: "cgGsuw", long: []string{"command", "session-command", "group", "supp-group", "shell", "user", "whitelist-environment"},
		flags: []string{"login", "preserve-environment", "pty", "fast"}, shell: []string{"c", "command", "session-command"},
		opaque: map[string]string{"l": "runuser -l runs the command in the target user's home folder", "login": "runuser --login runs the command in the target user's home folder"},
		custom: suCommand},
	"sg": {custom: sgCommand},
	"watch": {valued: "nq", long: []string{"interval", "equexit"},
		flags:  []string{"beep", "color", "no-color", "differences", "errexit", "chgexit", "exec", "precise", "no-title", "no-wrap", "no-linewrap"},
		custom: watchCommand},
	"xargs": {valued: "aEIdLnPs", long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
		flags:  []string{"null", "no-run-if-empty", "interactive", "verbose", "exit", "show-limits", "open-tty", "eof", "replace", "max-lines"},
		custom: xargsCommand},
	"strace":       {valued: "abeEIoOpPsSuUX", output: []string{"o", "output"}, long: []string{"output", "trace", "signal", "status", "user", "env"}},
	"ltrace":       {valued: "aAeFlnoOpsTuUx", output: []string{"o", "output"}, long: []string{"output", "library"}},
	"valgrind":     {},
	"fakeroot":     {valued: "lsib", long: []string{"lib", "faked"}, output: []string{"s"}},
	"prlimit":      {valued: "po", long: []string{"pid", "output", "as", "core", "cpu", "data", "fsize", "locks", "memlock", "msgqueue", "nice", "nofile", "nproc", "rss", "rtprio", "rttime", "sigpending", "stack"}, noRun: []string{"p", "pid"}},
	"proxychains":  {valued: "f"},
	"proxychains4": {valued: "f"},
}

// reader reads one wrapper's options.
type reader struct {
	words []string
	base  int
	spec  spec
	// split is env -S's string; noRun is set when no command runs.
	split *Word
	noRun bool
	// seen are the options read so far (short letters and long names).
	seen map[string]bool
}

func (r *reader) at(i int) int { return next(r.base, i) }

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// longName resolves an abbreviated long option the way getopt_long does: an exact
// name, else the one valued or flag option it is a prefix of. valued reports whether
// it takes a value; an unknown or ambiguous abbreviation is returned as written and
// taken as a flag.
func (r *reader) longName(name string) (string, bool) {
	if has(r.spec.long, name) {
		return name, true
	}
	if has(r.spec.flags, name) {
		return name, false
	}
	var found string
	valued, n := false, 0
	for _, l := range r.spec.long {
		if strings.HasPrefix(l, name) {
			found, valued, n = l, true, n+1
		}
	}
	for _, l := range r.spec.flags {
		if strings.HasPrefix(l, name) {
			found, valued, n = l, false, n+1
		}
	}
	if n == 1 {
		return found, valued
	}
	return name, false
}

// option applies one option (short letter or long name) and its value.
func (r *reader) option(c *Command, name string, val *Word) {
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	r.seen[name] = true
	switch {
	case has(r.spec.noRun, name):
		r.noRun = true
	case has(r.spec.dir, name) && val != nil:
		c.Dirs = append(c.Dirs, *val)
	case has(r.spec.output, name) && val != nil:
		c.Writes = append(c.Writes, *val)
	case has(r.spec.shell, name) && val != nil:
		v := *val
		c.Shell = &v
	case (name == "S" || name == "split-string") && c.Wrappers[len(c.Wrappers)-1] == "env" && val != nil:
		v := *val
		r.split = &v
	}
	if why, ok := r.spec.opaque[name]; ok && c.Opaque == "" {
		c.Opaque = why
	}
}

// options reads the leading options (stopping at the first operand or "--", as the
// wrappers' getopt does with "+") and returns the index of the first word after them.
func (r *reader) options(c *Command) int {
	i := 0
	for i < len(r.words) && r.split == nil {
		w := r.words[i]
		switch {
		case w == "--":
			return i + 1
		case strings.HasPrefix(w, "--"):
			name, value, eq := strings.Cut(w[2:], "=")
			name, valued := r.longName(name)
			switch {
			case eq:
				r.option(c, name, &Word{value, r.at(i)})
			case valued && i+1 < len(r.words):
				i++
				r.option(c, name, &Word{r.words[i], r.at(i)})
			default:
				r.option(c, name, nil)
			}
		case strings.HasPrefix(w, "-") && len(w) > 1:
			// A group of short options; the first one that takes a value takes the
			// rest of the group, or else the next word.
			for k := 1; k < len(w); k++ {
				letter := w[k : k+1]
				if !strings.Contains(r.spec.valued, letter) {
					r.option(c, letter, nil)
					continue
				}
				switch {
				case k+1 < len(w):
					r.option(c, letter, &Word{w[k+1:], r.at(i)})
				case i+1 < len(r.words):
					i++
					r.option(c, letter, &Word{r.words[i], r.at(i)})
				default:
					r.option(c, letter, nil)
				}
				break
			}
		case r.spec.assignments && IsAssignment(w):
		default:
			return i
		}
		i++
	}
	return i
}

// read reads the wrapper's options and operands and returns the words of the
// command it runs, with the index of the first of them.
func (r *reader) read(c *Command) ([]string, int) {
	i := r.options(c)
	if r.split != nil {
		return r.words[i:], -1
	}
	if r.spec.custom != nil {
		r.words, r.base = r.words[i:], r.at(i)
		r.spec.custom(r, c)
		return r.words, r.base
	}
	i = min(i+r.spec.positional, len(r.words))
	return r.words[i:], r.at(i)
}

// flockCommand reads `flock FILE COMMAND...` and `flock FILE -c TEXT`: flock creates
// FILE when it is missing.
func flockCommand(r *reader, c *Command) {
	if len(r.words) == 0 {
		r.noRun = true
		return
	}
	if !isNumber(r.words[0]) { // a descriptor number locks an open file
		c.Writes = append(c.Writes, Word{r.words[0], r.at(0)})
	}
	r.words, r.base = r.words[1:], r.at(1)
	i := r.options(c)
	r.words, r.base = r.words[i:], r.at(i)
}

// chrootCommand reads `chroot NEWROOT [COMMAND...]`: the command's paths are under
// NEWROOT.
func chrootCommand(r *reader, c *Command) {
	c.Opaque = "chroot runs the command under another root folder"
	if len(r.words) > 0 {
		r.words, r.base = r.words[1:], r.at(1)
	}
}

// suCommand reads `su [-] [USER] [-c TEXT]` and `runuser -u USER COMMAND...`;
// without -c (or -u) they start an interactive shell, which runs nothing known.
func suCommand(r *reader, c *Command) {
	if r.seen["u"] || r.seen["user"] {
		return // runuser -u USER COMMAND...
	}
	if c.Shell == nil && len(r.words) > 0 && r.words[0] == "-" {
		c.Opaque = "su - runs the command in the target user's home folder"
		r.words, r.base = r.words[1:], r.at(1)
	}
	if c.Shell == nil && len(r.words) > 0 && !strings.HasPrefix(r.words[0], "-") {
		r.words, r.base = r.words[1:], r.at(1) // the user; options may follow it
		i := r.options(c)
		r.words, r.base = r.words[i:], r.at(i)
	}
	if c.Shell == nil {
		r.noRun = true
	}
	r.words = nil
}

// sgCommand reads `sg GROUP [-c] TEXT`: the text runs in a shell.
func sgCommand(r *reader, c *Command) {
	if len(r.words) == 0 {
		r.noRun = true
		return
	}
	rest := r.words[1:]
	at := r.at(1)
	if len(rest) > 0 && rest[0] == "-c" {
		rest, at = rest[1:], r.at(2)
	}
	if len(rest) == 0 {
		r.noRun = true
		return
	}
	c.Shell = &Word{strings.Join(rest, " "), at}
	r.words = nil
}

// watchCommand reads `watch [-x] COMMAND...`: without -x the words are joined and
// run by sh -c.
func watchCommand(r *reader, c *Command) {
	if len(r.words) == 0 {
		r.noRun = true
		return
	}
	if !r.seen["x"] && !r.seen["exec"] {
		c.Shell = &Word{strings.Join(r.words, " "), r.base}
		r.words = nil
	}
}

// xargsCommand reads `xargs [COMMAND...]`: the command gets more arguments from
// xargs's input; without one xargs runs echo.
func xargsCommand(r *reader, c *Command) {
	c.MoreArgs = true
	if len(r.words) == 0 {
		r.words, r.base = []string{"echo"}, -1
	}
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// splitString splits env -S's string into words as env does: on blanks, with single
// and double quotes and backslash escapes.
func splitString(s string) []string {
	var out []string
	var b strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				out = append(out, b.String())
				b.Reset()
				inWord = false
			}
		case ch == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i+1:])
				i = len(s)
				continue
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case ch == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
		case ch == '\\' && i+1 < len(s):
			inWord = true
			i++
			b.WriteByte(s[i])
		default:
			inWord = true
			b.WriteByte(ch)
		}
	}
	if inWord {
		out = append(out, b.String())
	}
	return out
}
