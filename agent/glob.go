package agent

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/pattern"
)

// maxGlobMatches bounds the paths one pattern is resolved to; past it the pattern
// counts as its whole folder, locks inside included.
const maxGlobMatches = 4096

// globHit is one path a pattern may name.
type globHit struct {
	Path string
	// Descend is set when the pattern may name anything inside Path (a ** or a folder
	// guard could not list): the locks inside count too.
	Descend bool
}

// readNames lists a folder's entry names, sorted (what a glob matches against).
func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

// globTargets resolves an absolute pattern (pattern syntax: quoted characters
// escaped) against the file system as the shell would, fail closed: every existing
// path it matches, and the folder where it would create a name that matches nothing
// yet. A folder that cannot be listed, a ** and too many matches count as everything
// inside the folder. list lists a folder's names, sorted (readNames; the analysis
// keeps each folder's, however many words match in it: `d04{1,2}*` reads its folder
// once).
//
// step joins a folder and a literal name as the kernel does (dir/.. is the parent of
// where dir leads); nil joins them as written.
func globTargets(pat string, list func(string) ([]string, error), step func(dir, name string) string) []globHit {
	if step == nil {
		step = func(dir, name string) string { return filepath.Join(dir, name) }
	}
	comps := strings.Split(strings.TrimPrefix(pat, "/"), "/")
	dirs := []string{"/"}
	var out []globHit
	for i, comp := range comps {
		last := i == len(comps)-1
		if comp == "" {
			continue
		}
		if !hasMeta(comp) {
			name := unescapePattern(comp)
			for k := range dirs {
				dirs[k] = step(dirs[k], name)
			}
			continue
		}
		if strings.Contains(comp, "**") {
			for _, d := range dirs {
				out = append(out, globHit{Path: d, Descend: true})
			}
			return out
		}
		expr, err := pattern.Regexp(comp, pattern.Filenames|pattern.EntireString|pattern.ExtendedOperators)
		var re *regexp.Regexp
		if err == nil {
			re, err = regexp.Compile(expr)
		}
		var next []string
		for _, d := range dirs {
			names, rerr := list(d)
			switch {
			case err != nil || rerr != nil && !os.IsNotExist(rerr):
				// A pattern or folder guard cannot read: anything in the folder.
				out = append(out, globHit{Path: d, Descend: true})
				continue
			case rerr != nil:
				// The folder does not exist: the word stays as written, a name in it.
				out = append(out, globHit{Path: d})
				continue
			}
			matched := false
			for _, name := range names {
				if !re.MatchString(name) || strings.HasPrefix(name, ".") && !strings.HasPrefix(comp, ".") {
					continue
				}
				matched = true
				p := filepath.Join(d, name)
				if last {
					out = append(out, globHit{Path: p})
				} else {
					next = append(next, p)
				}
			}
			if !matched {
				// A pattern that matches nothing stays as written: a name in d.
				out = append(out, globHit{Path: d})
			}
			if len(next)+len(out) > maxGlobMatches {
				return []globHit{{Path: d, Descend: true}}
			}
		}
		if last {
			return out
		}
		dirs = next
	}
	for _, d := range dirs {
		out = append(out, globHit{Path: d})
	}
	return out
}

// hasMeta reports an unquoted pattern character: *, ?, [, or the start of an
// extended pattern (@( +( !( ?( *( ).
func hasMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		case '@', '+', '!':
			if i+1 < len(s) && s[i+1] == '(' {
				return true
			}
		}
	}
	return false
}

// unescapePattern removes the backslashes that quote pattern characters.
func unescapePattern(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
