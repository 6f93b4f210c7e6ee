package guard

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/guardlocks/guard/lockcore"
)

// backendView is what one Policy read of a project's backend.
type backendView struct {
	pb   *ProjectBackend
	snap *BackendSnapshot
	err  error
	// byDir are the snapshot's folder locks by project-relative folder.
	byDir map[string][]BackendLock
}

// backendFor reads the backend of the project whose working-tree root is top, once
// per Policy; nil when the project has none.
func (p *Policy) backendFor(top string) *backendView {
	if v, ok := p.backendViews[top]; ok {
		return v
	}
	var v *backendView
	cfg, cerr := p.config(top)
	if cerr == nil && cfg.Backend != nil {
		v = &backendView{}
		v.pb, v.err = BackendOf(p.env, top, cfg)
		if v.err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), v.pb.Timeout())
			v.snap, v.err = v.pb.Backend.Snapshot(ctx)
			cancel()
			if v.err != nil {
				v.err = &UnreachableError{Where: v.pb.Backend.Where(), Err: v.err}
			}
		}
		if v.err == nil {
			v.byDir = map[string][]BackendLock{}
			for _, bl := range v.snap.Locks {
				if bl.Resource == "" {
					v.byDir[bl.Dir] = append(v.byDir[bl.Dir], bl)
				}
			}
		} else if v.pb != nil && cfg.Backend.FallsBackToFiles() {
			p.backendWarnings = append(p.backendWarnings, fmt.Sprintf("%v; offline = \"files\": judged from the lock files alone", v.err))
		} else if p.backendErr == nil {
			p.backendErr = v.err
		}
	}
	p.backendViews[top] = v
	return v
}

// withBackend adds to dl, the listing of dir, the locks the project's backend holds
// in dir: a backend lock replaces a file of the same name (the file follows the
// backend), and an unreachable backend makes the listing an error (fail closed)
// unless offline = "files".
func (p *Policy) withBackend(dir string, dl dirLocks) dirLocks {
	top := p.repoTop(dir)
	if top == "" {
		return dl
	}
	v := p.backendFor(top)
	if v == nil {
		return dl
	}
	if v.err != nil {
		if v.pb == nil || !v.pb.Config.Backend.FallsBackToFiles() {
			if dl.err == nil {
				dl.err = v.err
			}
		}
		return dl
	}
	rel, ok := v.pb.Rel(dir)
	if !ok {
		return dl
	}
	locks := make([]*lockcore.Lock, 0, len(dl.locks)+len(v.byDir[rel]))
	held := map[string]bool{}
	for _, bl := range v.byDir[rel] {
		held[strings.ToLower(bl.Name)] = true
		locks = append(locks, LockOf(top, bl, v.pb.Backend.Where(), p.loc))
	}
	for _, l := range dl.locks {
		if held[strings.ToLower(filepath.Base(l.Path))] {
			continue
		}
		if _, follower := l.Fields.Values[FollowerField]; follower {
			// The file followed a lock etcd no longer holds (released elsewhere, or
			// its lease ran out): etcd decided, the file is stale.
			continue
		}
		locks = append(locks, l)
	}
	dl.locks = locks
	return dl
}

// FollowerField marks a lock file written as the follower of a backend's lock (the
// field "backend: etcd"): such a file whose key is gone is stale.
const FollowerField = "backend"

// backendBelow are the backend's locks in the folders below root (not root itself)
// that the walk of root did not list: locks held from another machine in folders
// this clone does not have.
func (p *Policy) backendBelow(root string, seen map[string]bool) []hit {
	top := p.repoTop(root)
	if top == "" {
		return nil
	}
	v := p.backendFor(top)
	if v == nil || v.err != nil {
		return nil
	}
	rel, ok := v.pb.Rel(root)
	if !ok {
		return nil
	}
	var out []hit
	for d, bls := range v.byDir {
		if d == rel || !(rel == "" || strings.HasPrefix(d, rel+"/")) {
			continue
		}
		for _, bl := range bls {
			l := LockOf(top, bl, v.pb.Backend.Where(), p.loc)
			if !seen[strings.ToLower(l.Path)] {
				out = append(out, hit{lock: l, target: l.Dir})
			}
		}
	}
	return out
}

// BackendErr is the error of a backend this Policy could not consult (nil when every
// backend it read answered, or fell back to the files).
func (p *Policy) BackendErr() error { return p.backendErr }

// BackendDirsBelow are the folders below root (root included) in which a backend
// holds locks: the agent hook's search for a lock near a command it cannot read
// lists the files, and asks about these folders too, where a lock may be held from
// another machine without any file here.
func (p *Policy) BackendDirsBelow(root string) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range p.backendBelow(root, nil) {
		if !seen[h.lock.Dir] {
			seen[h.lock.Dir] = true
			out = append(out, h.lock.Dir)
		}
	}
	if top := p.repoTop(root); top != "" {
		if v := p.backendFor(top); v != nil && v.err == nil {
			if rel, ok := v.pb.Rel(root); ok && len(v.byDir[rel]) > 0 && !seen[root] {
				out = append(out, root)
			}
		}
	}
	sort.Strings(out)
	return out
}

// backendFence confirms with the backend of file's project that the lock file still
// names the grant of fence: ok without a backend; with one, the backend must hold the
// lock under that fence (an unreachable backend confirms nothing: fail closed).
func (p *Policy) backendFence(file, fence string) (why string, ok bool) {
	dir := filepath.Dir(file)
	top := p.repoTop(dir)
	if top == "" {
		return "", true
	}
	v := p.backendFor(top)
	switch {
	case v == nil:
		return "", true
	case v.err != nil:
		return v.err.Error(), false
	}
	rel, in := v.pb.Rel(dir)
	if !in {
		return "", true
	}
	for _, bl := range v.byDir[rel] {
		if strings.EqualFold(bl.Name, filepath.Base(file)) {
			if fmt.Sprint(bl.Fence) == strings.TrimSpace(fence) {
				return "", true
			}
			return fmt.Sprintf("%s holds this lock under fence %d now", v.pb.Backend.Where(), bl.Fence), false
		}
	}
	return fmt.Sprintf("%s no longer holds this lock (released, or its lease ran out)", v.pb.Backend.Where()), false
}
