package hooks

import (
	"cmp"
	"hash/fnv"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/guardlocks/guard/guard"
)

// checkers returns n policies for concurrent checking: the session's own first, then
// more for the same identity and moment-of-decision clock. A Policy is not safe for
// concurrent use, so each worker owns one, and each reads its own share of the
// directories (paths are dealt out by directory, see dealPaths).
func (s *session) checkers() []*guard.Policy {
	if s.workers == nil {
		n := min(max(runtime.NumCPU(), 1), 4)
		s.workers = []*guard.Policy{s.policy}
		for range n - 1 {
			s.workers = append(s.workers, guard.NewPolicy(s.env, s.id))
		}
	}
	return s.workers
}

// parallelCheck checks the paths that arrive on feed (in batches, from git log) with
// every checker at once, each taking the paths of its own directories, and returns
// the merged decisions (nil when no path came). A push of a long history spends as
// much time reading lock directories as git spends walking it; on several cores both
// run side by side.
type parallelCheck struct {
	ops     []string
	workers []*guard.Policy
	feeds   []chan []string
	results []*guard.Decision
	errs    []error
	wg      sync.WaitGroup
}

func (s *session) startParallel(ops []string) *parallelCheck {
	pc := &parallelCheck{ops: ops, workers: s.checkers()}
	n := len(pc.workers)
	pc.feeds = make([]chan []string, n)
	pc.results = make([]*guard.Decision, n)
	pc.errs = make([]error, n)
	for i := range n {
		pc.feeds[i] = make(chan []string, 16)
		pc.wg.Add(1)
		go func() {
			defer pc.wg.Done()
			for batch := range pc.feeds[i] {
				if pc.errs[i] != nil {
					continue
				}
				var d *guard.Decision
				// A panic here would end the process past the hook's own recover.
				err := recovered(func() (err error) {
					d, err = pc.workers[i].Check(guard.Request{Ops: ops, Paths: batch, RepoRoot: s.root()})
					return err
				})
				if err != nil {
					pc.errs[i] = err
					continue
				}
				if pc.results[i] == nil {
					pc.results[i] = d
				} else {
					pc.results[i].Merge(d)
				}
			}
		}()
	}
	return pc
}

// add deals the absolute paths of one batch out to the workers by directory, so that
// each directory is read by one worker only.
func (pc *parallelCheck) add(paths []string) {
	n := len(pc.workers)
	parts := make([][]string, n)
	for _, p := range paths {
		h := fnv.New32a()
		h.Write([]byte(filepath.Dir(p)))
		i := int(h.Sum32() % uint32(n))
		parts[i] = append(parts[i], p)
	}
	for i, part := range parts {
		if len(part) > 0 {
			pc.feeds[i] <- part
		}
	}
}

// wait stops the workers and merges what they found into into, in a stable order
// (blocked paths sorted, warnings sorted) whatever the scheduling was.
func (pc *parallelCheck) wait(into *guard.Decision) error {
	for _, f := range pc.feeds {
		close(f)
	}
	pc.wg.Wait()
	for i, d := range pc.results {
		if pc.errs[i] != nil {
			return pc.errs[i]
		}
		if d != nil {
			into.Merge(d)
		}
	}
	slices.SortStableFunc(into.Blocking, func(a, b guard.Block) int { return cmp.Compare(a.Path, b.Path) })
	slices.Sort(into.Warnings)
	return nil
}
