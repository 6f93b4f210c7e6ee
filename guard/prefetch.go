package guard

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// prefetchMin is the number of paths from which Check first reads all their
// directories at once: a commit of a whole tree (an initial import) names thousands of
// folders, and reading them one after the other leaves the other cores idle while the
// kernel lists each.
const prefetchMin = 256

// fetched is one directory read by a worker of CheckStream.
type fetched struct {
	dir string
	dl  dirLocks
	git bool
}

// hasGitEntry reports whether dir has a .git entry (a folder, or the file of a linked
// worktree or submodule): dir is then a working tree's top.
func hasGitEntry(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// CheckStream is Check for paths that arrive in batches on paths while they are still
// being produced (a hook reading git's diff of a 100,000-file commit): each batch's
// directories, and those above them, are listed by several workers, and a batch is
// judged as soon as all of them are read, so that listing, judging and whatever
// produces the paths run side by side. The decision is Check's for req.Paths followed
// by the batches' paths in the order they came; the fence of req is checked once, at
// the end, and the error is Check's (a backend that cannot be consulted). No other
// goroutine may use the Policy meanwhile; the batches' slices must not change once
// sent.
func (p *Policy) CheckStream(req Request, paths <-chan []string) (*Decision, error) {
	c := p.newChecking(req)
	for _, raw := range req.Paths {
		c.raw(raw)
	}
	type batch struct {
		paths []string
		dirs  []string // the directories it waits for (being read when it came)
	}
	var (
		work    = make(chan string, 64)
		results = make(chan fetched, 64)
		queue   []string            // directories not handed to a worker yet
		reading = map[string]bool{} // handed out or queued, not back yet
		waiting []batch             // batches not judged yet, in order
		workers int
		wg      sync.WaitGroup
	)
	judgeReady := func() {
		for len(waiting) > 0 {
			for _, d := range waiting[0].dirs {
				if reading[d] {
					return
				}
			}
			for _, raw := range waiting[0].paths {
				c.raw(raw)
			}
			waiting = waiting[1:]
		}
	}
	for paths != nil || len(queue) > 0 || len(reading) > 0 {
		var send chan<- string
		var next string
		if len(queue) > 0 {
			send, next = work, queue[0]
		}
		select {
		case ps, ok := <-paths:
			if !ok {
				paths = nil
				continue
			}
			b := batch{paths: ps}
			last := ""
			for _, raw := range ps {
				abs, _ := p.abs(raw)
				dir, _ := splitClean(abs)
				if dir == last {
					continue
				}
				last = dir
				for d := dir; ; {
					if _, read := p.dirs[d]; !read && !reading[d] {
						reading[d] = true
						queue = append(queue, d)
						if workers < max(4, 2*runtime.GOMAXPROCS(0)) {
							workers++
							wg.Go(func() {
								for d := range work {
									results <- fetched{dir: d, dl: listDir(d, p.loc), git: hasGitEntry(d)}
								}
							})
						}
					}
					if reading[d] {
						b.dirs = append(b.dirs, d)
					}
					parent := filepath.Dir(d)
					if parent == d {
						break
					}
					d = parent
				}
			}
			waiting = append(waiting, b)
		case send <- next:
			queue = queue[1:]
		case r := <-results:
			if _, read := p.dirs[r.dir]; !read {
				p.gits[r.dir] = r.git
				p.dirs[r.dir] = p.settle(r.dir, r.dl)
			}
			delete(reading, r.dir)
		}
		judgeReady()
	}
	close(work)
	wg.Wait()
	judgeReady()
	return c.finish()
}
