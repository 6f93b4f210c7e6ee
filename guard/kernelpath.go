package guard

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// MaxSymlinks is how many symbolic links one lookup follows before it fails with
// ELOOP, as Linux's path walk does (MAXSYMLINKS).
const MaxSymlinks = 40

// PathResolver turns a path as written into the path guard judges: the place the
// kernel reaches when a program opens it (CONTRACT.md section 4). The kernel applies
// each ".." to the folder its predecessor resolves to, so a/link/../b is the folder
// above where link points, then b; filepath.Clean's a/b is another place. It is the
// one resolver of paths: guard check, the policy, the agent hook's reading of file
// tools and of shell commands all ask it.
type PathResolver struct {
	// Readlink returns the target of the symbolic link at path; ok is false when path
	// is no link or does not exist. nil reads the file system (os.Readlink).
	Readlink func(path string) (target string, ok bool)
	// Eager, when set, names links to follow wherever they stand, not only before
	// "..": links a shell command makes before it writes through them, which are not
	// on disk yet when guard judges it (ln -s locked x && echo > x/f).
	Eager func(path string) (target string, ok bool)
}

// KernelPath is PathResolver{}.Resolve: raw as the kernel reaches it, from dir.
func KernelPath(dir, raw string) (string, error) {
	return PathResolver{}.Resolve(dir, raw)
}

// Resolve returns raw (absolute, or relative to dir) as the kernel reaches it: every
// ".." applied to the folder the path before it resolves to (following a symbolic
// link there), every eager link followed; other links are kept as written, since the
// policy judges a path and its real path both. A part that does not exist is kept as
// written (the kernel fails there, or creates that name). More than MaxSymlinks links
// on the way is ELOOP, the kernel's answer too. The result is absolute and clean.
func (r PathResolver) Resolve(dir, raw string) (string, error) {
	p := raw
	if !filepath.IsAbs(p) {
		p = dir + string(filepath.Separator) + p
	}
	// Windows removes ".." from a path before its file systems see it (the Win32 path
	// normalisation), so the lexical answer is the system's there; on Unix it is the
	// kernel's whenever no ".." follows a name.
	if filepath.Separator != '/' || r.Eager == nil && !hasDotDot(p) {
		return filepath.Clean(p), nil
	}
	w := &walker{r: r}
	out, err := w.walk("/", p)
	if err != nil {
		return filepath.Clean(p), &fs.PathError{Op: "resolve", Path: filepath.Clean(p), Err: err}
	}
	return out, nil
}

// RealPath returns path (absolute) with every symbolic link on it followed, the last
// one included and a dangling one too: the file a write through path creates or
// changes (open with O_CREAT follows a link to a name that does not exist yet). What
// does not exist is kept as written. Unlike filepath.EvalSymlinks it does not fail on
// a path that does not exist.
func (r PathResolver) RealPath(path string) (string, error) {
	if filepath.Separator != '/' {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			return real, nil
		}
		return filepath.Clean(path), nil
	}
	w := &walker{r: r, all: true}
	out, err := w.walk("/", path)
	if err != nil {
		return filepath.Clean(path), &fs.PathError{Op: "resolve", Path: filepath.Clean(path), Err: err}
	}
	return out, nil
}

// hasDotDot reports a ".." component in a slash-separated path.
func hasDotDot(p string) bool {
	for i := 0; i+1 < len(p); i++ {
		if p[i] == '.' && p[i+1] == '.' && (i == 0 || p[i-1] == '/') && (i+2 == len(p) || p[i+2] == '/') {
			return true
		}
	}
	return false
}

// walker is one resolution under way: the links followed so far count against
// MaxSymlinks across nested targets, as the kernel counts them.
type walker struct {
	r     PathResolver
	all   bool // follow every link, not only those before ".." (RealPath)
	links int
}

func (w *walker) readlink(path string) (string, bool) {
	if w.r.Readlink != nil {
		return w.r.Readlink(path)
	}
	t, err := os.Readlink(path)
	return t, err == nil
}

// link returns the target of the link at path when the walk follows it there:
// eager links always, links on disk before ".." (dotdot) or in RealPath.
func (w *walker) link(path string, dotdot bool) (string, bool) {
	if w.r.Eager != nil {
		if t, ok := w.r.Eager(path); ok {
			return t, true
		}
	}
	if dotdot || w.all {
		return w.readlink(path)
	}
	return "", false
}

// walk appends the components of rel to cur (absolute and clean), resolving them.
func (w *walker) walk(cur, rel string) (string, error) {
	for len(rel) > 0 {
		var c string
		c, rel, _ = strings.Cut(rel, "/")
		switch c {
		case "", ".":
			continue
		case "..":
			var err error
			if cur, err = w.follow(cur, true); err != nil {
				return "", err
			}
			cur = filepath.Dir(cur)
			continue
		}
		if cur == "/" {
			cur = "/" + c
		} else {
			cur = cur + "/" + c
		}
		var err error
		if cur, err = w.follow(cur, false); err != nil {
			return "", err
		}
	}
	return cur, nil
}

// follow resolves cur while it is a link the walk follows there.
func (w *walker) follow(cur string, dotdot bool) (string, error) {
	for cur != "/" {
		t, ok := w.link(cur, dotdot)
		if !ok {
			return cur, nil
		}
		w.links++
		if w.links > MaxSymlinks {
			return "", fmt.Errorf("more than %d symbolic links on the way: %w", MaxSymlinks, syscall.ELOOP)
		}
		base := "/"
		if !strings.HasPrefix(t, "/") {
			base = filepath.Dir(cur)
		}
		var err error
		if cur, err = w.walk(base, t); err != nil {
			return "", err
		}
	}
	return cur, nil
}
