package guard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/guardlocks/guard/internal/gitrun"
)

// The publication marker file names (CONTRACT.md section 5), matched exactly.
const (
	PrivateMarkerName = "PRIVATE.txt"
	PublicMarkerName  = "PUBLIC.txt"
)

// IsMarkerName reports whether a path's file name is a publication marker, the files
// that must never be committed. Unlike the lookup (which finds the exact names), the
// name is compared ignoring case: on a case-insensitive file system private.txt is the
// same file, and a near-miss is more likely a mistake than a different file (fail
// closed). Both / and \ separate path segments.
func IsMarkerName(p string) bool {
	base := p
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		base = p[i+1:]
	}
	return strings.EqualFold(base, PrivateMarkerName) || strings.EqualFold(base, PublicMarkerName)
}

// IsMarkerNameBytes is IsMarkerName for a name in git's output, without making a
// string of every one of a large tree's names: no other letter folds to one of the
// markers' (ASCII, without k or s), so a match has a marker name's length.
func IsMarkerNameBytes(p []byte) bool {
	base := p
	if i := bytes.LastIndexAny(p, `/\`); i >= 0 {
		base = p[i+1:]
	}
	if len(base) != len(PrivateMarkerName) && len(base) != len(PublicMarkerName) {
		return false
	}
	return IsMarkerName(string(base))
}

// MaxMarkerSize bounds how much of a marker file guard reads. A PUBLIC.txt larger than
// this cannot be trusted to list all its checks and is treated as unreadable.
const MaxMarkerSize = 64 << 10

// Marker is one PRIVATE.txt or PUBLIC.txt file.
type Marker struct {
	// Private is true for PRIVATE.txt, false for PUBLIC.txt.
	Private bool
	// Path is the marker's absolute path; Dir the directory holding it (where its
	// checks and chores run).
	Path string
	Dir  string
	// Content is the file's text (at most MaxMarkerSize bytes).
	Content string
	// ReadErr is set when the marker exists but could not be read in full; a
	// PRIVATE.txt still refuses, a PUBLIC.txt no longer approves (fail closed).
	ReadErr error
	// Checks and Chores are a PUBLIC.txt's `check:` and `chore:` commands, in file
	// order; Notes are its other `key: value` lines.
	Checks []string
	Chores []string
	Notes  []string
}

// Name is the marker's file name.
func (m *Marker) Name() string {
	if m.Private {
		return PrivateMarkerName
	}
	return PublicMarkerName
}

// Markers are the publication markers that govern a project directory: those in the
// directory itself and in every directory above it, nearest first.
type Markers struct {
	Dir     string
	Private []*Marker
	Public  []*Marker
}

// State summarises the markers: "private", "public", "both" or "none".
func (m *Markers) State() string {
	switch {
	case len(m.Private) > 0 && len(m.Public) > 0:
		return "both"
	case len(m.Private) > 0:
		return "private"
	case len(m.Public) > 0:
		return "public"
	}
	return "none"
}

// FindMarkers looks for PRIVATE.txt and PUBLIC.txt in dir (absolute) and every
// directory above it to the file-system root, as for locks: a PRIVATE.txt at a
// folder of many projects covers every project below it. Anything under a marker's
// name that exists counts as that marker (a directory named PRIVATE.txt still makes
// the project private); a name that cannot even be looked up (other than "does not
// exist") counts as a PRIVATE.txt that could not be read, so that guard fails closed.
//
// Through a symbolic link a project also sits below its real path, where other
// markers may be: guard looks along both chains (like the lock policy does), so
// publishing ./link cannot escape a PRIVATE.txt above the link's target.
func FindMarkers(dir string) *Markers {
	dir = filepath.Clean(dir)
	ms := &Markers{Dir: dir}
	seen := map[string]bool{}
	chain := func(start string) {
		for d := start; ; {
			for _, private := range []bool{true, false} {
				name := PublicMarkerName
				if private {
					name = PrivateMarkerName
				}
				p := filepath.Join(d, name)
				if seen[p] {
					continue
				}
				seen[p] = true
				if m := readMarker(p, private); m != nil {
					if m.Private {
						ms.Private = append(ms.Private, m)
					} else {
						ms.Public = append(ms.Public, m)
					}
				}
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	chain(dir)
	if real := filepath.Join(resolveExisting(dir)); real != dir {
		chain(real)
	}
	// The working trees of one repository are one project (CONTRACT.md section 2),
	// and markers are never committed: a PRIVATE.txt in the main clone must also stop
	// a publication from a linked worktree, and the other way round.
	if top := gitrun.RepoTop(dir); top != "" {
		if rel, err := filepath.Rel(top, dir); err == nil {
			for _, tree := range gitrun.WorkingTrees(top) {
				if tree != top {
					chain(filepath.Join(tree, rel))
				}
			}
		}
	}
	return ms
}

// readMarker reads the marker at path; nil when there is none.
func readMarker(path string, private bool) *Marker {
	m := &Marker{Private: private, Path: path, Dir: filepath.Dir(path)}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		if _, lerr := os.Lstat(path); lerr != nil {
			return nil
		}
		// A dangling symbolic link under a marker's name: someone meant a marker.
		m.ReadErr = fmt.Errorf("%s: %w", path, err)
		return m
	case err != nil:
		// Cannot tell whether a marker is there: count it as an unreadable
		// PRIVATE.txt (fail closed).
		m.Private = true
		m.ReadErr = fmt.Errorf("%s: %w", path, err)
		return m
	case !st.Mode().IsRegular():
		m.ReadErr = &fs.PathError{Op: "read marker", Path: path, Err: errors.New("not a regular file")}
		return m
	}
	f, err := os.Open(path)
	if err != nil {
		m.ReadErr = err
		return m
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxMarkerSize+1))
	if err != nil {
		m.ReadErr = &fs.PathError{Op: "read marker", Path: path, Err: err}
		return m
	}
	if len(data) > MaxMarkerSize {
		data = data[:MaxMarkerSize]
		m.ReadErr = &fs.PathError{Op: "read marker", Path: path, Err: fmt.Errorf("larger than %d bytes", MaxMarkerSize)}
	}
	m.Content = string(data)
	if !private {
		m.Checks, m.Chores, m.Notes = ParsePublic(m.Content)
	}
	return m
}

// ParsePublic reads PUBLIC.txt's lines: `check: <command>` and `chore: <command>`
// (keys trimmed and compared case-insensitively, the command trimmed; empty commands
// ignored), and every other `key: value` line as a note. Blank lines, lines starting
// with '#' and lines without ':' are skipped, as in lock files.
func ParsePublic(content string) (checks, chores, notes []string) {
	sc := bufio.NewScanner(strings.NewReader(content))
	sc.Buffer(make([]byte, 0, 4096), MaxMarkerSize+1)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "check":
			if value != "" {
				checks = append(checks, value)
			}
		case "chore":
			if value != "" {
				chores = append(chores, value)
			}
		default:
			notes = append(notes, line)
		}
	}
	return checks, chores, notes
}
