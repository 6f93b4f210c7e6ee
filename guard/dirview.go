package guard

import (
	"os"
	"path/filepath"

	"github.com/guardlocks/guard/lockcore"
)

// dirView is what every file directly in one directory has in common when the policy
// looks for the locks that apply to it: the locks on the directory's chain up to the
// file-system root, those on the chain of its real path (when symbolic links lead to
// it), and those in the same place of the repository's other working trees, in the
// order eachHit visits them. A commit of 100,000 files in 1,000 folders then costs
// 1,000 views and, per file, two map lookups and the judgement of the locks found,
// instead of an lstat, a symlink resolution and a walk to the root per file.
type dirView struct {
	// listed is set when the directory could be listed, so that special is known; a
	// path in a directory that cannot be listed is asked about on its own.
	listed  bool
	special lockcore.Listing
	chain   []hit // the hits of dir and the directories above it; target unset
	// real is dir with its symbolic links resolved, "" when that is dir itself.
	real      string
	realChain []hit
	// trees are the repository's other working trees, relDir is dir relative to the
	// tree that holds it, and treeChains[i] the hits from trees[i]/relDir up to trees[i].
	trees      []string
	relDir     string
	treeChains [][]hit
}

// view returns the view of dir, built on first use.
func (p *Policy) view(dir string) *dirView {
	// The paths of a commit come sorted: most ask for the folder of the path before,
	// which a string comparison finds without hashing it.
	if p.lastView != nil && dir == p.lastViewDir {
		return p.lastView
	}
	if v, ok := p.views[dir]; ok {
		p.lastViewDir, p.lastView = dir, v
		return v
	}
	v := &dirView{}
	dl := p.readDir(dir)
	v.listed, v.special = dl.err == nil, dl.special
	v.chain = p.chainHits(dir, "")
	if real := p.realDir(dir); real != dir {
		v.real = real
		v.realChain = p.chainHits(real, "")
	}
	if top := p.repoTop(dir); top != "" {
		if rel, err := filepath.Rel(top, dir); err == nil {
			v.relDir = rel
			for _, tree := range p.workingTrees(top) {
				if tree == top {
					continue
				}
				v.trees = append(v.trees, tree)
				v.treeChains = append(v.treeChains, p.chainHits(filepath.Join(tree, rel), tree))
			}
		}
	}
	p.views[dir] = v
	p.lastViewDir, p.lastView = dir, v
	return v
}

// chainHits lists the hits of dir and of every directory above it, up to stop (a
// working tree's root) or, when stop is "", to the file-system root.
func (p *Policy) chainHits(dir, stop string) []hit {
	var out []hit
	for d := dir; ; {
		dl := p.readDir(d)
		if dl.err != nil {
			out = append(out, hit{err: dl.err})
		}
		for _, l := range dl.locks {
			out = append(out, hit{lock: l})
		}
		parent := filepath.Dir(d)
		if parent == d || stop != "" && (d == stop || len(d) < len(stop)) {
			return out
		}
		d = parent
	}
}

// mayBeSpecial reports whether the entry base of the view's directory may be a folder
// or a symbolic link (or the directory could not be listed): such a path is judged on
// its own, after an lstat.
func (v *dirView) mayBeSpecial(base string) bool {
	if !v.listed {
		return true
	}
	_, special := v.special.EntryType(base)
	return special
}

// eachHit calls fn with the hits of abs, a file (or a path that does not exist) named
// base in the view's directory, each with its target set.
func (v *dirView) eachHit(abs, base string, fn func(hit)) {
	for _, h := range v.chain {
		h.target = abs
		fn(h)
	}
	if v.real != "" {
		target := filepath.Join(v.real, base)
		for _, h := range v.realChain {
			h.target = target
			fn(h)
		}
	}
	for i, tree := range v.trees {
		target := filepath.Join(tree, v.relDir, base)
		for _, h := range v.treeChains[i] {
			h.target = target
			fn(h)
		}
	}
}

// splitClean is filepath.Dir and filepath.Base of a clean absolute path, without
// cleaning it again (a commit asks for 100,000 of them).
func splitClean(abs string) (dir, base string) {
	i := len(abs) - 1
	for i >= 0 && !os.IsPathSeparator(abs[i]) {
		i--
	}
	if i <= len(filepath.VolumeName(abs)) {
		return filepath.Dir(abs), filepath.Base(abs) // the root, or just below it
	}
	return abs[:i], abs[i+1:]
}
