package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Plan is a ruleset in paths: what keeps which rights. Every path is real (symbolic
// links resolved), because the kernel judges the file an access reaches, not the
// name it was reached by.
type Plan struct {
	// Writable are folders whose whole subtree keeps every right.
	Writable []string
	// WritableFiles are the existing files (and sockets, pipes, devices) of boundary
	// folders: they can be written and truncated, but not removed or renamed.
	WritableFiles []string
	// ReadOnly are the read-only paths, outermost only (a path inside another is
	// dropped), sorted.
	ReadOnly []string
	// Boundary are the folders on the way from / to a read-only path: nothing can be
	// created, removed or renamed directly in them.
	Boundary []string
	// Unlisted are boundary folders that could not be listed: their entries keep no
	// write right (fail closed). Each says why.
	Unlisted []string
	// groups are Writable and WritableFiles again, by folder: the ruleset opens each
	// entry relative to its folder, which costs the kernel one lookup instead of a
	// whole path's.
	groups []group
}

// group is the entries of one folder that get rules; a group without dir holds
// absolute paths (the --allow exemptions).
type group struct {
	dir         string
	dirs, files []string
}

// NewPlan turns the read-only paths (absolute; they need not exist) into a Plan.
// allow are paths exempted deliberately (--allow): read-only paths inside one are
// dropped, and one that lies inside a read-only path keeps every right; an allowed
// path inside a read-only area must exist, since a rule needs a file to hold it.
func NewPlan(readOnly, allow []string) (*Plan, error) {
	ro, allowed, err := resolve(readOnly, allow)
	if err != nil {
		return nil, err
	}
	plan := &Plan{ReadOnly: ro}
	for _, a := range allowed {
		if !insideAny(a, plan.ReadOnly) {
			continue // already writable: a sibling, or below one
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("--allow %s: it lies in a read-only area and must exist to be exempted: %w", a, err)
		}
		g := group{}
		if st.IsDir() {
			plan.Writable = append(plan.Writable, a)
			g.dirs = append(g.dirs, a)
		} else {
			plan.WritableFiles = append(plan.WritableFiles, a)
			g.files = append(g.files, a)
		}
		plan.groups = append(plan.groups, g)
	}
	root := &node{}
	for _, p := range plan.ReadOnly {
		root.add(p)
	}
	sep := string(filepath.Separator)
	switch {
	case root.ro:
		// A lock on / covers everything: only the exempted paths keep rights.
	case len(root.kids) == 0:
		plan.Writable = append(plan.Writable, sep)
		plan.groups = append(plan.groups, group{dirs: []string{sep}})
	default:
		plan.walk(sep, root)
	}
	sort.Strings(plan.Writable)
	sort.Strings(plan.WritableFiles)
	sort.Strings(plan.Boundary)
	return plan, nil
}

// resolve makes the read-only paths and the exemptions real (symbolic links
// resolved); read-only paths inside an exemption are dropped, and those left are
// the outermost, sorted.
func resolve(readOnly, allow []string) (ro, allowed []string, err error) {
	for _, a := range allow {
		if !filepath.IsAbs(a) {
			return nil, nil, fmt.Errorf("--allow %s: not an absolute path", a)
		}
		allowed = append(allowed, realPath(filepath.Clean(a)))
	}
	for _, p := range readOnly {
		for _, r := range realPaths(filepath.Clean(p)) {
			if !insideAny(r, allowed) {
				ro = append(ro, r)
			}
		}
	}
	return outermost(ro), allowed, nil
}

// walk lists boundary folder dir (node n): every entry that is neither read-only nor
// on the way to a read-only path keeps its rights; the ones on the way are walked.
func (plan *Plan) walk(dir string, n *node) {
	plan.Boundary = append(plan.Boundary, dir)
	f, err := os.Open(dir)
	if err != nil {
		plan.Unlisted = append(plan.Unlisted, fmt.Sprintf("%s: %v", dir, err))
		return
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		plan.Unlisted = append(plan.Unlisted, fmt.Sprintf("%s: %v", dir, err))
		// What was listed still gets its rules.
	}
	g := group{dir: dir}
	defer func() { plan.groups = append(plan.groups, g) }()
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		typ := e.Type()
		if kid := n.kids[e.Name()]; kid != nil {
			// On the way (a real folder, since read-only paths are resolved) or
			// read-only itself: no rights here.
			if !kid.ro && typ.IsDir() {
				plan.walk(path, kid)
			}
			continue
		}
		switch {
		case typ&os.ModeSymlink != 0:
			// A link is never written itself; a rule on it would hold its target,
			// which gets its own rules under its real path.
		case typ.IsDir():
			plan.Writable = append(plan.Writable, path)
			g.dirs = append(g.dirs, e.Name())
		default:
			plan.WritableFiles = append(plan.WritableFiles, path)
			g.files = append(g.files, e.Name())
		}
	}
}

// node is a trie of read-only paths by segment.
type node struct {
	ro   bool
	kids map[string]*node
}

func (n *node) add(path string) {
	for _, seg := range strings.Split(strings.Trim(path, string(filepath.Separator)), string(filepath.Separator)) {
		if seg == "" {
			continue
		}
		if n.kids == nil {
			n.kids = map[string]*node{}
		}
		kid := n.kids[seg]
		if kid == nil {
			kid = &node{}
			n.kids[seg] = kid
		}
		n = kid
	}
	n.ro = true
}

// realPaths are the real paths that must stay read-only for path: the entry itself in
// its real folder (so that it cannot be removed or replaced there) and, when path is
// a symbolic link, what it leads to.
func realPaths(path string) []string {
	dir, base := filepath.Split(path)
	if base == "" {
		return []string{realPath(path)}
	}
	entry := filepath.Join(realPath(filepath.Clean(dir)), base)
	out := []string{entry}
	if st, err := os.Lstat(entry); err == nil && st.Mode()&os.ModeSymlink != 0 {
		if r, err := filepath.EvalSymlinks(entry); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// realPath resolves the symbolic links of the longest existing prefix of path and
// keeps the rest as written.
func realPath(path string) string {
	rest := ""
	for d := path; ; {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return path
		}
		rest = filepath.Join(filepath.Base(d), rest)
		d = parent
	}
}

// outermost sorts paths and drops those inside another.
func outermost(paths []string) []string {
	sort.Strings(paths)
	var out []string
	for _, p := range paths {
		if !insideAny(p, out) {
			out = append(out, p)
		}
	}
	return out
}

// insideAny reports whether path is one of dirs or lies below one.
func insideAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, strings.TrimSuffix(d, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
