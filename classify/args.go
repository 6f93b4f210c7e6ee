package classify

import (
	"slices"
	"strings"

	"github.com/guardlocks/guard/internal/cmdline"
)

// args is a command's argument list (without the program name) and the flags of that
// program that take a separate value, so that "--registry URL publish" is read as a
// flag and its value followed by the subcommand, not as the subcommand "URL".
type args struct {
	words []string
	// valued lists the flags (with their dashes) that consume the next word when
	// written without "=".
	valued map[string]bool
}

func newArgs(words []string, valued ...string) args {
	m := make(map[string]bool, len(valued))
	for _, v := range valued {
		m[v] = true
	}
	return args{words: words, valued: m}
}

// positionals returns the words that are neither flags nor flag values; everything
// after "--" is positional.
func (a args) positionals() []string {
	var out []string
	for i := 0; i < len(a.words); i++ {
		w := a.words[i]
		switch {
		case w == "--":
			return append(out, a.words[i+1:]...)
		case strings.HasPrefix(w, "-") && len(w) > 1:
			if a.valued[w] {
				i++
			}
		default:
			out = append(out, w)
		}
	}
	return out
}

// value returns the value of the first of names present (as "--name v", "--name=v",
// or for one-letter short flags also "-Xv"), and whether one was present.
func (a args) value(names ...string) (string, bool) {
	for i := 0; i < len(a.words); i++ {
		w := a.words[i]
		if w == "--" {
			break
		}
		for _, n := range names {
			if v, width, _ := valueAt(a.words, i, n); width > 0 {
				return v, true
			}
		}
		if strings.HasPrefix(w, "-") && a.valued[w] {
			i++
		}
	}
	return "", false
}

// dirFlag is the directory the first of the named options gives (relative to dir;
// an empty value gives none), else dir.
func (a args) dirFlag(dir string, names ...string) string {
	if d, ok := a.value(names...); ok && d != "" {
		return Resolve(dir, d)
	}
	return dir
}

// values returns every value of the named flags, in order.
func (a args) values(names ...string) []string {
	var out []string
	for i := 0; i < len(a.words); i++ {
		if a.words[i] == "--" {
			break
		}
		at := i
		for _, n := range names {
			if v, width, ok := valueAt(a.words, at, n); ok {
				out = append(out, v)
				i += width - 1
			}
		}
	}
	return out
}

// valueAt reads words[i] as an occurrence of the flag n with its value: "n v" (the
// next word; width 2), "n=v", or for a one-letter short flag "-Xv" (width 1). A last
// word n has no value: width 1 and ok false. width is 0 when words[i] is not n.
func valueAt(words []string, i int, n string) (v string, width int, ok bool) {
	w := words[i]
	switch {
	case w == n:
		if i+1 < len(words) {
			return words[i+1], 2, true
		}
		return "", 1, false
	case strings.HasPrefix(w, n+"="):
		return w[len(n)+1:], 1, true
	case len(n) == 2 && n[0] == '-' && n[1] != '-' && strings.HasPrefix(w, n) && len(w) > 2:
		return w[2:], 1, true
	}
	return "", 0, false
}

// flag reports whether a boolean flag that rehearses or holds back (--dry-run,
// --snapshot) is set as the tool reads it: the last occurrence wins (npm, pflag,
// argparse, clap and Maven all let a later spelling override an earlier one).
// "--name", "--name=<true>" and "--name true" set it; "--name=<false>", "--name
// false" (npm's option parser reads the next word) and "--no-name" clear it. Reading
// a false where a tool would see a set flag only guards a dry run; the other way
// round would let a publication through.
func (a args) flag(names ...string) bool {
	set := false
	for i := 0; i < len(a.words); i++ {
		w := a.words[i]
		if w == "--" {
			break
		}
		for _, n := range names {
			switch {
			case w == n:
				set = !(i+1 < len(a.words) && isFalse(a.words[i+1]))
			case strings.HasPrefix(w, n+"="):
				set = isTrue(w[len(n)+1:])
			case strings.HasPrefix(n, "--") && (w == "--no-"+n[2:] || strings.HasPrefix(w, "--no-"+n[2:]+"=")):
				set = false
			}
		}
		if a.valued[w] {
			i++
		}
	}
	return set
}

// anySet reports whether any occurrence of a flag that makes a command publish
// (--push, --execute, --public) sets it: a later "--no-push" may or may not undo it
// depending on the tool, so for these the first setting counts (fail closed).
func (a args) anySet(names ...string) bool {
	for i := 0; i < len(a.words); i++ {
		w := a.words[i]
		if w == "--" {
			return false
		}
		for _, n := range names {
			if w == n || strings.HasPrefix(w, n+"=") && isTrue(w[len(n)+1:]) {
				return true
			}
		}
		if a.valued[w] {
			i++
		}
	}
	return false
}

// groupSet reports whether a group of one-letter flags (`-vx`) before any "--" holds
// letter: short flags combine, so `cargo release -vx` executes as `-v -x` does. A
// letter in valued takes the rest of the group as its value (`-pxyz` is `-p xyz`), so
// the group is read up to it; a word a valued flag consumes is skipped.
func (a args) groupSet(letter byte, valued string) bool {
	for i := 0; i < len(a.words); i++ {
		w := a.words[i]
		if w == "--" {
			return false
		}
		if a.valued[w] {
			i++
			continue
		}
		if len(w) < 3 || w[0] != '-' || w[1] == '-' {
			continue
		}
		for j := 1; j < len(w); j++ {
			if w[j] == letter {
				return true
			}
			if strings.IndexByte(valued, w[j]) >= 0 {
				if j == len(w)-1 {
					i++ // the value is the next word
				}
				break
			}
		}
	}
	return false
}

// asksHelp reports whether words ask the tool for its help text, which it prints
// instead of running the command: a standalone help flag (one of names) before any
// "--", not taken as the value of the option in front of it (gh release create
// --notes --help makes a release with the notes "--help"): the word before it is
// the program, a subcommand, a positional, or an option written with "=".
func asksHelp(words []string, names ...string) bool {
	for i, w := range words {
		if w == "--" {
			return false
		}
		if i == 0 || !slices.Contains(names, w) {
			continue
		}
		prev := words[i-1]
		if !strings.HasPrefix(prev, "-") || strings.Contains(prev, "=") || prev == "-" {
			return true
		}
	}
	return false
}

func isFalse(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false", "0", "no", "off":
		return true
	}
	return false
}

func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "true", "1", "yes", "on":
		return true
	}
	return false
}

// programName is the name a program is known by (cmdline.Program: the base name,
// lower case, without a Windows executable suffix).
func programName(word string) string { return cmdline.Program(word) }

// packageBin is the program an npx-style runner starts for a package spec:
// "np@latest" → "np", "@changesets/cli@2" → "cli" (runners map scoped packages to
// their bin; the classifier knows the few that matter by their bin names).
func packageBin(spec string) string {
	if bin, ok := scopedBins[strings.SplitN(strings.TrimPrefix(spec, "@"), "@", 2)[0]]; ok && strings.HasPrefix(spec, "@") {
		return bin
	}
	name := spec
	if strings.HasPrefix(name, "@") {
		if i := strings.Index(name[1:], "@"); i >= 0 {
			name = name[:i+1]
		}
		if i := strings.LastIndex(name, "/"); i >= 0 {
			name = name[i+1:]
		}
	} else if i := strings.Index(name, "@"); i > 0 {
		name = name[:i]
	}
	return programName(name)
}

// scopedBins are the programs of scoped packages whose bin name differs from the
// package name (without the leading @).
var scopedBins = map[string]string{
	"changesets/cli": "changeset",
	"lerna-lite/cli": "lerna",
	"vscode/vsce":    "vsce",
}

// isAssignment reports whether word is a shell-style environment assignment
// (NAME=value) as env and shells accept before a command.
func isAssignment(word string) bool { return cmdline.IsAssignment(word) }
