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
