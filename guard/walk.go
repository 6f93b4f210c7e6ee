package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
)

type dirLocks struct {
	locks []*lockcore.Lock
	// special says which entries are not regular files.
	special lockcore.Listing
	err     error
}

// hit is a lock (or an unreadable directory) found on the way up from a path, with
// target: the path as seen from the lock's working tree.
type hit struct {
	lock   *lockcore.Lock
	target string
	err    error
}

// hits collects every lock in the directory chain of abs (see eachHit).
func (p *Policy) hits(abs string, descend bool) []hit {
	var out []hit
	p.eachHit(abs, descend, func(h hit) { out = append(out, h) })
	return out
}

// eachHit calls fn with every lock in the directory chain of abs: its own directory
// (abs itself when it is a folder) and every directory above it to the file-system
// root, plus the same relative directories in the repository's other working trees;
// with descend, also the locks inside a folder. A file, or a path that does not exist,
// is judged from what its directory's view already holds, with no system call of its
// own: that is every path of a commit but its folders and symbolic links.
func (p *Policy) eachHit(abs string, descend bool, fn func(hit)) {
	if dir, base := splitClean(abs); dir != abs && !p.perPath {
		if v := p.view(dir); !v.mayBeSpecial(base) {
			v.eachHit(abs, base, fn)
			return
		}
	}
	start := abs
	// One lstat per path; a symbolic link also needs its target's type.
	lst, lerr := os.Lstat(abs)
	isLink := lerr == nil && lst.Mode()&os.ModeSymlink != 0
	isDir := lerr == nil && lst.IsDir()
	if isLink {
		st, err := os.Stat(abs)
		isDir = err == nil && st.IsDir()
	}
	if !isDir {
		start = filepath.Dir(abs)
	}
	out := fn
	visit := func(dir, target string) {
		dl := p.readDir(dir)
		if dl.err != nil {
			out(hit{target: target, err: dl.err})
		}
		for _, l := range dl.locks {
			out(hit{lock: l, target: target})
		}
	}
	chain := func(start, target string) {
		for d := start; ; {
			visit(d, target)
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	chain(start, abs)
	// Through a symbolic link the same files are also reached by their real path,
	// where other locks may sit: look there too.
	if realAbs := p.realPath(abs, isLink); realAbs != abs {
		realStart := realAbs
		if st, err := os.Stat(realAbs); err != nil || !st.IsDir() {
			realStart = filepath.Dir(realAbs)
		}
		chain(realStart, realAbs)
	}
	if top := p.repoTop(start); top != "" {
		rel, err := filepath.Rel(top, start)
		relTarget, err2 := filepath.Rel(top, abs)
		if err == nil && err2 == nil {
			for _, tree := range p.workingTrees(top) {
				if tree == top {
					continue
				}
				target := filepath.Join(tree, relTarget)
				for d := filepath.Join(tree, rel); ; d = filepath.Dir(d) {
					visit(d, target)
					if d == tree || len(d) < len(tree) {
						break
					}
				}
			}
		}
	}
	if descend && isDir {
		for _, h := range p.below(abs) {
			out(h)
		}
	}
}

// below finds the locks inside folder root (not root itself), skipping .git and
// node_modules.
func (p *Policy) below(root string) []hit {
	var out []hit
	_ = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if path != root {
				out = append(out, hit{target: path, err: fmt.Errorf("%s: %w", path, err)})
			}
			return nil
		}
		if !e.IsDir() || path == root {
			return nil
		}
		// Installed dependencies are not the project's areas: a package that ships a
		// LOCK.txt must not block work on the folder that installed it.
		if e.Name() == ".git" || e.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if why := p.bound.next(p.env.Clock.Now); why != "" {
			out = append(out, hit{target: root, err: fmt.Errorf("%s: %s, so guard stopped reading them; name smaller folders", root, why)})
			return filepath.SkipAll
		}
		dl := p.readDir(path)
		if dl.err != nil {
			out = append(out, hit{target: path, err: dl.err})
		}
		for _, l := range dl.locks {
			// A lock inside the folder collides with an operation on the folder
			// whatever its scope: its area lies within.
			out = append(out, hit{lock: l, target: l.Dir})
		}
		return nil
	})
	seen := make(map[string]bool, len(out))
	for _, h := range out {
		if h.lock != nil {
			seen[strings.ToLower(h.lock.Path)] = true
		}
	}
	if p.treeLocks != nil {
		return out // a commit's tree locks only: no backend
	}
	return append(out, p.backendBelow(root, seen)...)
}

func (p *Policy) readDir(dir string) dirLocks {
	if dl, ok := p.dirs[dir]; ok {
		return dl
	}
	dl := p.settle(dir, listDir(dir, p.loc))
	p.dirs[dir] = dl
	return dl
}

// listDir reads dir for readDir; it touches no cache, so that prefetch can run it on
// several directories at once.
func listDir(dir string, loc *time.Location) dirLocks {
	listing, err := lockcore.ReadListing(dir, loc)
	if err != nil {
		// A path component that is a file, not a folder, hides no locks.
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			err = nil
		} else {
			err = fmt.Errorf("could not read directory %s: %w", dir, err)
		}
	}
	return dirLocks{locks: listing.Locks, special: listing, err: err}
}

func (p *Policy) workingTrees(top string) []string {
	if t, ok := p.trees[top]; ok {
		return t
	}
	t := gitrun.WorkingTrees(top)
	p.trees[top] = t
	return t
}

// repoTop is RepoTop, remembered per directory (and for the directories on the way).
func (p *Policy) repoTop(dir string) string {
	if t, ok := p.tops[dir]; ok {
		return t
	}
	var t string
	has, known := p.gits[dir]
	if !known {
		has = hasGitEntry(dir)
	}
	if has {
		t = dir
	} else if parent := filepath.Dir(dir); parent != dir {
		t = p.repoTop(parent)
	}
	p.tops[dir] = t
	return t
}
