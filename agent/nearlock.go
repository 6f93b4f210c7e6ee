package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// The search for a lock near a command guard cannot read is bounded: past these the
// search stops and the command is treated as near a lock (fail closed). The folder
// count decides in practice (a 100,000-file repository has a few thousand folders);
// the time limit is only a backstop for a slow file system.
const (
	maxNearDirs   = 20000
	nearLockLimit = 3 * time.Second
)

// nearLock names the first active lock that would refuse the agent in the command's
// working tree: its project (the repository that holds the working directory, else
// the directory itself), the directories above it, and everything below; "" when
// there is none. The folders are listed once each and only those holding a file
// named like a lock are asked about, so the search costs one directory read per
// folder.
func (d *decider) nearLock() string {
	if d.near != nil {
		return *d.near
	}
	root := d.subject.Top
	if root == "" {
		root = d.call.Cwd
	}
	near := d.searchNear(root)
	d.near = &near
	return near
}

func (d *decider) searchNear(root string) string {
	// The root and the folders above it: the policy reads that chain.
	if near := d.refusingLock(root); near != "" {
		return near
	}
	// Locks a backend holds below the root, with no file in this clone.
	for _, dir := range d.policy.BackendDirsBelow(root) {
		if near := d.refusingLock(dir); near != "" {
			return near
		}
	}
	return walkNear(d.env, root, func(dir string, e nearEntry) string {
		if e.hasLock && dir != root {
			return d.refusingLock(dir)
		}
		return ""
	})
}

// walkNear lists every folder of root, breadth first and in name order (so the
// nearest lock is named first), taking a folder's listing from the project's cache
// while its stamp still matches, and calls visit with each; a non-empty answer from
// visit ends the walk with it. A walk that saw every folder is kept in the cache.
// Past the bounds, or at a folder it cannot read, the answer says so (fail closed).
func walkNear(env *guard.Env, root string, visit func(dir string, e nearEntry) string) string {
	deadline := time.Now().Add(nearLockLimit)
	cache := openNearCache(env, root)
	stamps := newStamper(root)
	defer stamps.close()
	workers := min(runtime.GOMAXPROCS(0), 4)
	bufs := make([][]byte, workers)
	for i := range bufs {
		bufs[i] = make([]byte, 64<<10)
	}
	type folder struct {
		e                  nearEntry
		stamped, fromCache bool
		err                error
	}
	queue := []string{"."}
	seen := 0
	for len(queue) > 0 {
		// The folders are stamped and, where the cache has no listing, listed a chunk
		// at a time on several threads (a warm search is one fstatat per folder, a
		// cold one a listing), then looked at in order: the nearest lock is still
		// named first, and a lock found early costs at most one chunk of extra work.
		chunk := queue[:min(len(queue), nearChunk)]
		queue = queue[len(chunk):]
		if seen+len(chunk) > maxNearDirs || time.Now().After(deadline) {
			return fmt.Sprintf("%s (guard could not look through all of it in time, so it assumes a lock there: fail closed)", root)
		}
		seen += len(chunk)
		got := make([]folder, len(chunk))
		read := func(i int, buf []byte) {
			rel := chunk[i]
			f := &got[i]
			// The stamp is taken before the listing, so that a change while listing
			// leaves a stamp that no longer matches.
			var st dirStamp
			st, f.stamped = stamps.stamp(rel)
			f.e, f.fromCache = cache.lookup(rel, st)
			if !f.stamped || !f.fromCache {
				f.fromCache = false
				f.e, f.err = listNear(filepath.Join(root, rel), buf)
				f.e.stamp = st
			}
		}
		if len(chunk) < 8 || workers < 2 {
			for i := range chunk {
				read(i, bufs[0])
			}
		} else {
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for i := w; i < len(chunk); i += workers {
						read(i, bufs[w])
					}
				})
			}
			wg.Wait()
		}
		for i, rel := range chunk {
			f, dir := got[i], filepath.Join(root, rel)
			if f.err != nil {
				if dir == root && os.IsNotExist(f.err) {
					return ""
				}
				return fmt.Sprintf("%s (guard could not read it: %v, so it assumes a lock there: fail closed)", dir, f.err)
			}
			if f.stamped {
				cache.keep(rel, f.e, f.fromCache)
			}
			for _, name := range f.e.subdirs {
				queue = append(queue, filepath.Join(rel, name))
			}
			if answer := visit(dir, f.e); answer != "" {
				return answer
			}
		}
	}
	// Only a complete walk is kept: it is the expensive one, and the one whose every
	// folder is known.
	cache.save()
	return ""
}

// nearChunk is how many folders walkNear reads at once.
const nearChunk = 64

// PrimeNear lists every folder of the project that holds dir into the near-lock
// cache, so that the agent hook's first search for a lock near a command it cannot
// read finds the listings there (one lstat a folder) instead of reading the whole
// tree while the agent waits. agent-install runs it for the project it installs
// into; it changes nothing but guard's state directory.
func PrimeNear(env *guard.Env, dir string) {
	root := projectRoot(dir)
	walkNear(env, root, func(string, nearEntry) string { return "" })
}

// listNear lists dir: its subfolders in name order (not git's own folder, nor
// installed dependencies: they are not work areas, and the policy skips them too), and
// whether a file in it is named like a lock.
func listNear(dir string, buf []byte) (nearEntry, error) {
	var e nearEntry
	err := listDir(dir, buf, func(name string, isDir bool) {
		switch {
		case isDir:
			if name != ".git" && name != "node_modules" {
				e.subdirs = append(e.subdirs, strings.Clone(name))
			}
		case strings.HasPrefix(name, "LOCK") || lockcore.IsLegacyName(name):
			e.hasLock = e.hasLock || lockcore.IsLockName(name)
		}
	})
	slices.Sort(e.subdirs)
	return e, err
}

// refusingLock asks the policy whether an edit of dir is refused (a lock in dir
// refuses it whatever its scope), and names the lock that refuses it.
func (d *decider) refusingLock(dir string) string {
	dec, err := d.policy.Check(guard.Request{Ops: []string{OpEdit}, Paths: []string{dir}})
	switch {
	case err != nil:
		return fmt.Sprintf("%s (guard could not look for locks there: %v)", dir, err)
	case dec.Allowed:
		return ""
	}
	b := dec.Blocking[0]
	if b.Lock != nil {
		return fmt.Sprintf("%s (held by %s)", b.Lock.Path, b.Lock.Owner)
	}
	return fmt.Sprintf("%s (%s)", b.Path, b.Reason)
}
