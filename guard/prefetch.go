package guard

import (
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"
)

// prefetchMin is the number of paths from which Check first reads all their
// directories at once: a commit of a whole tree (an initial import) names thousands of
// folders, and reading them one after the other leaves the other cores idle while the
// kernel lists each.
const prefetchMin = 256

// Prefetch reads the directories that arrive on dirs, and those above them, several
// at a time into the policy's caches, and returns once dirs is closed and all are
// read. A hook hands over the folders of the paths git is still printing, so that
// they are read while git works; the answers to Check do not change, only when the
// folders are read. No other goroutine may use the Policy meanwhile. Sending on dirs
// never waits for a directory to be read: the folders queue up here, so that git's
// output is read as fast as git writes it however slowly the folders are listed.
func (p *Policy) Prefetch(dirs <-chan string) {
	f := p.newFetcher()
	var queue []string
	for dirs != nil || len(queue) > 0 {
		var work chan<- string
		var next string
		if len(queue) > 0 {
			work, next = f.work, queue[0]
		}
		select {
		case d, ok := <-dirs:
			if !ok {
				dirs = nil
				continue
			}
			queue = f.add(d, queue)
		case work <- next:
			queue = queue[1:]
		}
	}
	f.finish()
}

// prefetch makes paths absolute and reads all their directories at once (see
// Prefetch). It returns the absolute paths, so that Check does not clean them twice.
func (p *Policy) prefetch(paths []string) []string {
	// A hook's paths are absolute and clean already: abs is then paths itself, and
	// only a path that changes makes a copy.
	abs := paths
	for i, raw := range paths {
		if a := p.abs(raw); a != raw {
			if &abs[0] == &paths[0] {
				abs = slices.Clone(paths)
			}
			abs[i] = a
		}
	}
	p.fetchDirs(func(yield func(string) bool) {
		last := ""
		for _, a := range abs {
			// Paths come sorted more often than not (git prints them so): a
			// directory is mostly the one of the path before.
			if d, _ := splitClean(a); d != last {
				last = d
				if !yield(d) {
					return
				}
			}
		}
	})
	return abs
}

// fetched is one directory read by a prefetch worker.
type fetched struct {
	dir string
	dl  dirLocks
	git bool
}

// fetchDirs reads every directory of dirs and above them that the Policy has not read
// yet, with several workers, and stores what they found (the listing, whether there is
// a .git entry) in the caches once all are done: only this goroutine touches them.
func (p *Policy) fetchDirs(dirs iter.Seq[string]) {
	f := p.newFetcher()
	var queue []string
	for d := range dirs {
		for _, q := range f.add(d, queue[:0]) {
			f.work <- q
		}
	}
	f.finish()
}

// fetcher is one prefetch: the workers listing directories, and what they found.
type fetcher struct {
	p       *Policy
	work    chan string
	mu      sync.Mutex
	got     []fetched
	wg      sync.WaitGroup
	workers int
	seen    map[string]bool
}

func (p *Policy) newFetcher() *fetcher {
	return &fetcher{p: p, work: make(chan string, 64), seen: map[string]bool{}}
}

// add appends to queue d and the directories above it that are neither read nor
// queued yet, and makes sure there is a worker for them.
func (f *fetcher) add(d string, queue []string) []string {
	for !f.seen[d] {
		f.seen[d] = true
		if _, ok := f.p.dirs[d]; !ok {
			if f.workers < max(4, 2*runtime.GOMAXPROCS(0)) {
				f.workers++
				f.wg.Go(func() { fetchWorker(f.work, f.p.loc, &f.mu, &f.got) })
			}
			queue = append(queue, d)
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return queue
}

// finish waits for the workers and stores what they read.
func (f *fetcher) finish() {
	close(f.work)
	f.wg.Wait()
	for _, r := range f.got {
		f.p.gits[r.dir] = r.git
	}
	for _, r := range f.got {
		f.p.dirs[r.dir] = f.p.withBackend(r.dir, r.dl)
	}
}

func fetchWorker(work <-chan string, loc *time.Location, mu *sync.Mutex, got *[]fetched) {
	for d := range work {
		f := fetched{dir: d, dl: listDir(d, loc), git: hasGitEntry(d)}
		mu.Lock()
		*got = append(*got, f)
		mu.Unlock()
	}
}

// hasGitEntry reports whether dir has a .git entry (a folder, or the file of a linked
// worktree or submodule): dir is then a working tree's top.
func hasGitEntry(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}
