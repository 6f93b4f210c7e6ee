package guard

import (
	"iter"
	"os"
	"path/filepath"
	"runtime"
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
// folders are read. No other goroutine may use the Policy meanwhile.
func (p *Policy) Prefetch(dirs <-chan string) {
	p.fetchDirs(func(yield func(string) bool) {
		for d := range dirs {
			if !yield(d) {
				return
			}
		}
	})
}

// prefetch makes paths absolute and reads all their directories at once (see
// Prefetch). It returns the absolute paths, so that Check does not clean them twice.
func (p *Policy) prefetch(paths []string) []string {
	abs := make([]string, len(paths))
	for i, raw := range paths {
		abs[i] = p.abs(raw)
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
	work := make(chan string, 64)
	var (
		mu  sync.Mutex
		got []fetched
		wg  sync.WaitGroup
	)
	workers := 0
	seen := map[string]bool{}
	for d := range dirs {
		for !seen[d] {
			seen[d] = true
			if _, ok := p.dirs[d]; !ok {
				if workers < max(4, 2*runtime.GOMAXPROCS(0)) {
					workers++
					wg.Go(func() { fetchWorker(work, p.loc, &mu, &got) })
				}
				work <- d
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	close(work)
	wg.Wait()
	for _, f := range got {
		p.dirs[f.dir] = f.dl
		p.gits[f.dir] = f.git
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
