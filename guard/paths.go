package guard

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// abs is raw as the kernel reaches it (KernelPath), absolute and clean; on an error
// the lexically cleaned path comes with it, for messages.
func (p *Policy) abs(raw string) (string, error) {
	if isCleanAbs(raw) {
		return raw, nil
	}
	return KernelPath(p.env.Dir, raw)
}

// isCleanAbs reports whether path is absolute and already what filepath.Clean would
// make of it, by one scan that allocates nothing: a hook asks about 100,000 absolute
// paths at once, and Clean copies each byte through its buffer to find out. Outside
// Unix-like systems it answers false and Clean decides.
func isCleanAbs(path string) bool {
	if filepath.Separator != '/' || len(path) == 0 || path[0] != '/' {
		return false
	}
	if len(path) == 1 {
		return true
	}
	if path[len(path)-1] == '/' {
		return false
	}
	// Every segment after a slash must be non-empty and neither "." nor "..".
	for i := 0; i < len(path); {
		j := i + 1
		for j < len(path) && path[j] != '/' {
			j++
		}
		switch path[i+1 : j] {
		case "", ".", "..":
			return false
		}
		i = j
	}
	return true
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// realPath resolves the symbolic links in path, as far as it exists (a link to a file
// included); the part that does not exist yet is kept as written. Directories are
// resolved once per Policy: a push may name thousands of paths in a few folders.
// isLink says whether path itself is a symbolic link (the caller has lstat'ed it): a
// dangling one is judged as its target, which a write through it creates.
func (p *Policy) realPath(path string, isLink bool) string {
	if isLink {
		if r, err := filepath.EvalSymlinks(path); err == nil {
			return r
		}
		if r, err := (PathResolver{}).RealPath(path); err == nil {
			return r
		}
	}
	dir := filepath.Dir(path)
	if dir == path {
		return path
	}
	return filepath.Join(p.realDir(dir), filepath.Base(path))
}

// realDir is dir with its symbolic links resolved (filepath.EvalSymlinks), the part
// that does not exist kept as written. It is built from the parent's: a component that
// the parent's listing shows as a plain folder (or not there) resolves with no system
// call; only a symbolic link, an entry of unknown type or an unlistable parent asks
// the file system.
func (p *Policy) realDir(dir string) string {
	if r, ok := p.real[dir]; ok {
		return r
	}
	r := dir
	if parent := filepath.Dir(dir); parent != dir {
		base := filepath.Base(dir)
		dl := p.readDir(parent)
		typ, special := dl.special.EntryType(base)
		under := func() string {
			if rp := p.realDir(parent); rp != parent {
				return filepath.Join(rp, base)
			}
			return dir
		}
		if dl.err == nil && (!special || typ == fs.ModeDir) {
			r = under()
		} else if er, err := filepath.EvalSymlinks(dir); err == nil {
			r = er
		} else {
			r = under()
		}
	} else if er, err := filepath.EvalSymlinks(dir); err == nil {
		r = er
	}
	p.real[dir] = r
	return r
}

// resolveExisting resolves the symbolic links in the longest existing prefix of path,
// returning the resolved prefix and the rest (which does not exist yet).
func resolveExisting(path string) (real, rest string) {
	for d, tail := path, ""; ; {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return r, tail
		}
		parent := filepath.Dir(d)
		if parent == d {
			return path, ""
		}
		tail = filepath.Join(filepath.Base(d), tail)
		d = parent
	}
}
