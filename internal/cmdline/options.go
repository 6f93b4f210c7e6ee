package cmdline

import (
	"strings"
)

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
