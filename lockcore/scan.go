package lockcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ScanRoot is one tree the scanner walks, and how deep: the root is depth 0, and a
// directory at depth MaxDepth is read but not descended into, so depths 0..MaxDepth
// are scanned (as the reference does).
type ScanRoot struct {
	// Path must be absolute.
	Path     string
	MaxDepth int
}

// ScanRoots returns the configured roots as scan roots, relative paths made absolute
// against base (the directory the command runs in) and cleaned.
func (c *RootsConfig) ScanRoots(base string) []ScanRoot {
	var out []ScanRoot
	for _, r := range c.Roots {
		out = append(out, ScanRoot{Path: absUnder(base, r.Path), MaxDepth: c.DepthOf(r)})
	}
	return out
}

// absUnder joins a relative p to base; an absolute p is only cleaned.
func absUnder(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// ScanOptions tunes a scan.
type ScanOptions struct {
	// SkipDirs are directory names (lower-cased) whose subtrees are not walked.
	SkipDirs []string
	// Loc is the local time zone for zone-less times (nil: time.Local).
	Loc *time.Location
	// Workers is the number of directories read at once (0: twice the number of
	// CPUs, at least 4): reading directories is mostly waiting on the kernel.
	Workers int
	// Also, when set, picks other files to report by name (ScanResult.Also): the
	// sandbox needs the publication markers and configuration files of the same
	// trees, and one walk is cheaper than two.
	Also func(name string) bool
	// Progress, when set, is told the number of directories read so far every
	// ProgressEvery directories, from whichever worker read the last one: it must be
	// safe for concurrent use, and cheap (a terminal's line checks the time and
	// returns). Without it the walk counts nothing more than it did.
	Progress func(dirs int64)
}

// ProgressEvery is how many directories a scan reads between two calls of
// ScanOptions.Progress: often enough for a line a person watches, rarely enough to
// cost nothing next to the reading.
const ProgressEvery = 64

// ScanError is a directory the scanner could not read. The scan goes on without it;
// callers report it, and policy treats such an area as locked (fail closed).
type ScanError struct {
	Path string
	Err  error
}

// Error names the directory and what went wrong.
func (e *ScanError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }

// Unwrap returns the underlying error.
func (e *ScanError) Unwrap() error { return e.Err }

// ScanResult is what a scan found.
type ScanResult struct {
	// Locks are every lock found (active and expired), sorted by path, each once.
	Locks []*Lock
	// Errors are the directories that could not be read, sorted by path.
	Errors []*ScanError
	// Dirs counts the directories read.
	Dirs int
	// Also are the paths of the files ScanOptions.Also picked, sorted.
	Also []string
}

// Active returns the locks that still hold at now.
func (r *ScanResult) Active(now time.Time) []*Lock {
	var out []*Lock
	for _, l := range r.Locks {
		if l.Active(now) {
			out = append(out, l)
		}
	}
	return out
}

// Scan walks every root to its depth and reads the lock files it finds. Roots that do
// not exist (or are not directories) are skipped silently, as the reference does.
// Symbolic links to directories are followed, except one that leads back to a
// directory on its own path (a loop). Directories are read in parallel; the result
// does not depend on the order in which they are read.
func Scan(roots []ScanRoot, opts ScanOptions) *ScanResult {
	w := newWalker(opts)
	for _, r := range mergeSameRoots(roots) {
		st, err := os.Stat(r.Path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscallENOTDIR) {
				w.errs = append(w.errs, &ScanError{Path: r.Path, Err: unwrapPathError(err)})
			}
			continue
		}
		if !st.IsDir() {
			continue
		}
		w.push([]dirTask{{node: &dirNode{path: r.Path, info: st}, depth: 0, max: r.MaxDepth}})
	}
	return w.run()
}

// mergeSameRoots keeps one entry per root path, the deepest. Nested roots are both
// walked (the outer walk may not reach into the inner root: a skipped or unreadable
// directory, a symbolic link on the way), and Scan lists each lock once.
func mergeSameRoots(roots []ScanRoot) []ScanRoot {
	var out []ScanRoot
	at := map[string]int{}
	for _, r := range roots {
		if i, ok := at[r.Path]; ok {
			out[i].MaxDepth = max(out[i].MaxDepth, r.MaxDepth)
			continue
		}
		at[r.Path] = len(out)
		out = append(out, r)
	}
	return out
}

// dirNode is a directory on the path being walked; the chain of parents lets the
// walker recognise a symbolic link that leads back up (a loop).
type dirNode struct {
	path   string
	parent *dirNode
	once   sync.Once
	info   fs.FileInfo
}

func (n *dirNode) stat() fs.FileInfo {
	n.once.Do(func() {
		if n.info == nil {
			n.info, _ = os.Stat(n.path)
		}
	})
	return n.info
}

type dirTask struct {
	node       *dirNode
	depth, max int
}

type walker struct {
	opts ScanOptions
	skip map[string]bool

	mu      sync.Mutex
	cond    *sync.Cond
	stack   []dirTask
	pending int

	locks []*Lock
	errs  []*ScanError
	dirs  int
	// read counts the directories read, for ScanOptions.Progress only.
	read atomic.Int64
}

func newWalker(opts ScanOptions) *walker {
	w := &walker{opts: opts}
	w.cond = sync.NewCond(&w.mu)
	if len(opts.SkipDirs) > 0 {
		w.skip = map[string]bool{}
		for _, s := range opts.SkipDirs {
			w.skip[strings.ToLower(s)] = true
		}
	}
	return w
}

// push adds tasks to the shared stack (last in, first out, which keeps it short: the
// walk goes depth first).
func (w *walker) push(tasks []dirTask) {
	w.mu.Lock()
	w.stack = append(w.stack, tasks...)
	w.pending += len(tasks)
	w.mu.Unlock()
	w.cond.Broadcast()
}

func (w *walker) run() *ScanResult {
	n := w.opts.Workers
	if n <= 0 {
		n = max(4, 2*runtime.GOMAXPROCS(0))
	}
	var wg sync.WaitGroup
	results := make([]workerResult, n)
	for i := range n {
		wg.Add(1)
		go func(res *workerResult) {
			defer wg.Done()
			w.work(res)
		}(&results[i])
	}
	wg.Wait()

	seen := map[string]bool{}
	var also []string
	for _, r := range results {
		w.dirs += r.dirs
		w.errs = append(w.errs, r.errs...)
		also = append(also, r.also...)
		for _, l := range r.locks {
			if !seen[l.Path] {
				seen[l.Path] = true
				w.locks = append(w.locks, l)
			}
		}
	}
	sort.Slice(w.locks, func(i, j int) bool { return w.locks[i].Path < w.locks[j].Path })
	sort.Slice(w.errs, func(i, j int) bool { return w.errs[i].Path < w.errs[j].Path })
	w.errs = slices.CompactFunc(w.errs, func(a, b *ScanError) bool { return a.Path == b.Path })
	// Nested roots may list a file twice.
	sort.Strings(also)
	also = slices.Compact(also)
	return &ScanResult{Locks: w.locks, Errors: w.errs, Dirs: w.dirs, Also: also}
}

type workerResult struct {
	locks []*Lock
	errs  []*ScanError
	dirs  int
	also  []string
}

func (w *walker) work(res *workerResult) {
	var children []dirTask
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && w.pending > 0 {
			w.cond.Wait()
		}
		if w.pending == 0 {
			w.mu.Unlock()
			w.cond.Broadcast()
			return
		}
		t := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.mu.Unlock()

		children = w.readDir(t, res, children[:0])
		if w.opts.Progress != nil {
			if n := w.read.Add(1); n%ProgressEvery == 0 {
				w.opts.Progress(n)
			}
		}

		w.mu.Lock()
		w.stack = append(w.stack, children...)
		w.pending += len(children) - 1
		done := w.pending == 0
		w.mu.Unlock()
		if done || len(children) > 1 {
			w.cond.Broadcast()
		} else if len(children) == 1 {
			w.cond.Signal()
		}
	}
}

// readDir reads one directory: its lock files go into res, its subdirectories that
// are still within depth are returned as tasks.
func (w *walker) readDir(t dirTask, res *workerResult, children []dirTask) []dirTask {
	dir := t.node.path
	descend := t.depth < t.max
	opened, err := forEachEntry(dir, func(name string, typ fs.FileMode) {
		// name may point into a reused buffer: it is only used here, never kept.
		if typ == modeUnknown {
			st, err := os.Lstat(filepath.Join(dir, name))
			if err != nil {
				return
			}
			typ = st.Mode().Type()
		}
		isDir := typ.IsDir()
		var target fs.FileInfo
		if typ&fs.ModeSymlink != 0 {
			if !descend && !maybeLockName(name) && (w.opts.Also == nil || !w.opts.Also(name)) {
				return
			}
			st, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				return // a dangling link is neither a lock nor a directory
			}
			isDir, target = st.IsDir(), st
		}
		switch {
		case isDir:
			if !descend || (w.skip != nil && w.skip[strings.ToLower(name)]) {
				return
			}
			if target != nil && leadsBack(t.node, target) {
				return
			}
			child := &dirNode{path: filepath.Join(dir, name), parent: t.node, info: target}
			children = append(children, dirTask{node: child, depth: t.depth + 1, max: t.max})
		default:
			// A regular file, or a FIFO, device or socket named like a lock: ReadLock
			// never opens the latter, and lists them as held, unread (fail closed).
			if maybeLockName(name) {
				if l, err := ReadLock(filepath.Join(dir, name), w.opts.Loc); err == nil {
					res.locks = append(res.locks, l)
					return
				}
			}
			if w.opts.Also != nil && w.opts.Also(name) {
				res.also = append(res.also, filepath.Join(dir, name))
			}
		}
	})
	if opened {
		res.dirs++
	}
	if err != nil {
		// What was read before a failure is kept; the directory is reported.
		res.errs = append(res.errs, &ScanError{Path: dir, Err: unwrapPathError(err)})
	}
	return children
}

// modeUnknown marks an entry whose type the directory listing did not say; the
// walker then asks the file system.
const modeUnknown = fs.ModeIrregular | fs.ModeTemporary

// leadsBack reports whether a symbolic link's target is a directory on the path that
// led to it.
func leadsBack(n *dirNode, target fs.FileInfo) bool {
	for ; n != nil; n = n.parent {
		if st := n.stat(); st != nil && os.SameFile(st, target) {
			return true
		}
	}
	return false
}

// maybeLockName is a cheap test that rules out nearly every file name before the
// classifier's regular expression runs. It must never reject a lock name: the name
// regexp folds case the Unicode way, so "LOC\u212a.txt" (a Kelvin sign) is a lock
// too; only the first letter and the ".txt" ending are tested bytewise.
func maybeLockName(name string) bool {
	if len(name) >= 8 && (name[0] == 'L' || name[0] == 'l') && strings.EqualFold(name[len(name)-4:], ".txt") {
		return true
	}
	return IsLegacyName(name)
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
