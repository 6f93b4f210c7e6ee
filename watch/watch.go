// Package watch reports what happens to the lock files under a set of roots, as it
// happens (CONTRACT.md section 9, guard watch): file-system notifications (fsnotify) for
// immediate events, a full rescan that catches what notifications miss (network and
// cloud-sync folders, an exhausted watch limit), and the clock for expiries.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// Options configure a watch.
type Options struct {
	Env   *guard.Env
	Roots []lockcore.ScanRoot
	// SkipDirs are directory names (lower-cased) not walked, as for scan.
	SkipDirs []string
	// Rescan is the period of the full rescan (default 60 s).
	Rescan time.Duration
	// Emit receives each event, in order.
	Emit func(guard.Event)
	// Warn receives the watcher's warnings (an exhausted watch limit, unreadable folders).
	Warn func(string)
	// NoNotify turns file-system notifications off: the rescan alone finds changes
	// (for network folders, where notifications never come).
	NoNotify bool
	// Ready, when set, is called once the initial scan is done and the folders are
	// watched (tests wait for it).
	Ready func()
	// Scans, when set, asks for a full rescan now: the watcher scans, reports the
	// differences as events, and sends the result on the channel it received (guard
	// serve's POST /api/scan).
	Scans <-chan chan<- guard.WatchScan
	// Scanned, when set, receives the result of every full scan: the initial one, the
	// periodic ones and those asked for.
	Scanned func(guard.WatchScan)
	// Backends are the lock backends of the roots' projects ([backend] in
	// .guard.toml): their locks are watched too, as etcd's watch reports them.
	Backends []*guard.ProjectBackend
}

// backendUpdate is what one backend holds now.
type backendUpdate struct {
	index int
	locks []*lockcore.Lock
}

// snap is what the watcher last saw of one lock file.
type snap struct {
	lock    *lockcore.Lock
	expired bool
}

type watcher struct {
	o     Options
	fsw   *fsnotify.Watcher
	locks map[string]snap
	// dirs are the watched folders: their depth below their root, their root's max
	// depth and (for verifyScan) their state when last read. One map, because a
	// 200,000-folder tree makes each per-folder map cost megabytes.
	dirs    map[string]folder
	full    bool // the watch limit was hit: some folders are unwatched
	watched int
	// sig is each watched folder's state when it was last read; verify says the
	// periodic rescan may compare these instead of reading every folder (see
	// verifyScan); missed that a notification was lost since the last full scan.
	verify bool
	missed bool
	looked time.Time // when folders were last compared or read
}

// Run watches until ctx is done. Only an error that stops the watch entirely (no
// notifications at all, and no root to scan) is returned.
func Run(ctx context.Context, o Options) error {
	if o.Rescan <= 0 {
		o.Rescan = time.Minute
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	w := &watcher{o: o, locks: map[string]snap{}, dirs: map[string]folder{}}
	fsw, err := fsnotify.NewWatcher()
	if o.NoNotify && err == nil {
		fsw.Close()
		fsw, err = nil, errors.New("turned off")
	}
	if err != nil {
		o.Warn(fmt.Sprintf("file-system notifications are not available (%v); relying on the rescan every %s", err, o.Rescan))
	} else {
		w.fsw = fsw
		defer fsw.Close()
		w.verify, w.looked = true, o.Env.Clock.Now()
		for _, r := range o.Roots {
			w.addTree(r.Path, 0, r.MaxDepth)
			w.verify = w.verify && notifyReliable(r.Path)
		}
	}
	start := o.Env.Clock.Now()
	w.locks = w.scanAll()
	w.expire(o.Env.Clock.Now(), false)
	w.report(guard.WatchScan{Type: "initial"}, start)
	if o.Ready != nil {
		o.Ready()
	}

	updates := make(chan backendUpdate)
	for i, pb := range o.Backends {
		go w.followBackend(ctx, i, pb, updates)
	}

	rescan := time.NewTicker(o.Rescan)
	defer rescan.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.fsw != nil {
		events, errs = w.fsw.Events, w.fsw.Errors
	}
	dirty := map[string]bool{} // folder → its whole subtree changed (true) or only its own locks
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	expiry := time.NewTimer(w.untilNextExpiry())
	defer expiry.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-events:
			w.notice(ev, dirty)
			// Editors and guard itself write in several steps (temp file, link, rename):
			// let them settle before reading.
			settle.Reset(50 * time.Millisecond)
		case err := <-errs:
			w.missed = true // an overflowed queue: the next rescan reads every folder
			o.Warn(fmt.Sprintf("file-system notifications: %v; the rescan every %s catches what was missed", err, o.Rescan))
		case <-settle.C:
			for dir, tree := range dirty {
				_ = w.rereadDir(dir, tree)
			}
			clear(dirty)
		case u := <-updates:
			_ = w.diff(w.backendState(u.index), backendSnaps(u))
		case <-rescan.C:
			if w.verify && !w.full && !w.missed {
				w.verifyScan()
			} else {
				w.fullScan("full")
			}
		case reply := <-o.Scans:
			r := w.fullScan("request")
			select {
			case reply <- r:
			default: // the asker gave up; its channel must be buffered
			}
			rescan.Reset(o.Rescan) // the period runs from the last full scan
		case <-expiry.C:
		}
		w.expire(o.Env.Clock.Now(), true)
		expiry.Reset(w.untilNextExpiry())
	}
}

// addTree watches dir and the folders below it down to max (depth is dir's own).
func (w *watcher) addTree(dir string, depth, max int) {
	if w.full {
		return
	}
	if _, ok := w.dirs[dir]; ok {
		return
	}
	if err := w.fsw.Add(dir); err != nil {
		if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
			w.full = true
			w.o.Warn(fmt.Sprintf("the file-system watch limit is exhausted after %d folders (Linux: fs.inotify.max_user_watches); folders beyond are caught by the rescan every %s", w.watched, w.o.Rescan))
		}
		return
	}
	w.watched++
	f := folder{depth: depth, max: max}
	f.sig, _ = sigOf(dir) // taken before the folder is read below
	w.dirs[dir] = f
	if depth >= max {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || w.skip(e.Name()) {
			continue
		}
		w.addTree(filepath.Join(dir, e.Name()), depth+1, max)
	}
}

func (w *watcher) skip(name string) bool {
	n := strings.ToLower(name)
	return n == ".git" || n == "node_modules" || slices.Contains(w.o.SkipDirs, n)
}

// notice marks what an fsnotify event changed: a lock file's folder, a new folder to
// watch, a removed folder whose locks are gone.
func (w *watcher) notice(ev fsnotify.Event, dirty map[string]bool) {
	dir, base := filepath.Dir(ev.Name), filepath.Base(ev.Name)
	if f, ok := w.dirs[dir]; ok && ev.Has(fsnotify.Create) {
		if st, err := os.Stat(ev.Name); err == nil && st.IsDir() && !w.skip(base) {
			w.addTree(ev.Name, f.depth+1, f.max)
			dirty[ev.Name] = true // it may have arrived with locks inside (a mv, a tar -x)
			return
		}
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if _, ok := w.dirs[ev.Name]; ok {
			w.forgetTree(ev.Name)
			dirty[ev.Name] = true
			return
		}
	}
	if lockcore.IsLockName(base) && !dirty[dir] {
		dirty[dir] = false
	}
}

// forgetTree stops tracking dir's watches (the kernel dropped them with the folder).
func (w *watcher) forgetTree(dir string) {
	for d := range w.dirs {
		if d == dir || strings.HasPrefix(d, dir+string(filepath.Separator)) {
			delete(w.dirs, d)
			w.watched--
		}
	}
}

func (w *watcher) scanAll() map[string]snap {
	res := lockcore.Scan(w.o.Roots, lockcore.ScanOptions{SkipDirs: w.o.SkipDirs, Loc: w.o.Env.Clock.Now().Location()})
	out := make(map[string]snap, len(res.Locks))
	now := w.o.Env.Clock.Now()
	for _, l := range res.Locks {
		prev, seen := w.locks[l.Path]
		out[l.Path] = snap{lock: l, expired: seen && prev.expired && !l.Active(now) || !seen && !l.Active(now)}
	}
	return out
}

// rereadDir reads one folder's locks (with tree, when the folder is new or gone, its
// whole subtree's) and reports the differences.
func (w *watcher) rereadDir(dir string, tree bool) guard.WatchScan {
	now := w.o.Env.Clock.Now()
	next := map[string]snap{}
	prefix := dir + string(filepath.Separator)
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		if f, watched := w.dirs[dir]; watched {
			locks, err := lockcore.ReadDir(dir, now.Location())
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				w.o.Warn(fmt.Sprintf("%s: %v", dir, err))
				return guard.WatchScan{}
			}
			for _, l := range locks {
				next[l.Path] = snap{lock: l}
			}
			if tree {
				// A folder that arrived whole (mv, tar -x) is scanned below too.
				res := lockcore.Scan([]lockcore.ScanRoot{{Path: dir, MaxDepth: f.max - f.depth}}, lockcore.ScanOptions{SkipDirs: w.o.SkipDirs, Loc: now.Location()})
				for _, l := range res.Locks {
					next[l.Path] = snap{lock: l}
				}
			}
		}
	}
	old := map[string]snap{}
	for p, s := range w.locks {
		if filepath.Dir(p) == dir || tree && strings.HasPrefix(p, prefix) {
			old[p] = s
		}
	}
	for p, s := range next {
		if o, ok := old[p]; ok && !changed(o.lock, s.lock) {
			s.expired = o.expired
		} else {
			s.expired = !s.lock.Active(now)
		}
		next[p] = s
	}
	return w.diff(old, next)
}

// fullScan scans every root, reports the differences and the expiries, and returns
// (and hands Scanned) the result.
func (w *watcher) fullScan(kind string) guard.WatchScan {
	start := w.o.Env.Clock.Now()
	next := w.scanAll()
	for k, v := range w.locks {
		if strings.HasPrefix(k, backendKey) {
			next[k] = v // the backends' own watch keeps these
		}
	}
	r := w.diff(w.locks, next)
	r.Type = kind
	w.missed, w.looked = false, start
	r.Expired = w.expire(w.o.Env.Clock.Now(), true)
	return w.report(r, start)
}

// report completes r from the watcher's state and hands it to Scanned.
func (w *watcher) report(r guard.WatchScan, start time.Time) guard.WatchScan {
	now := w.o.Env.Clock.Now()
	r.At, r.Duration = now, now.Sub(start)
	r.DurationMS = r.Duration.Milliseconds()
	r.LocksFound = len(w.locks)
	for _, s := range w.locks {
		if !s.expired {
			r.Active++
		}
	}
	if w.o.Scanned != nil {
		w.o.Scanned(r)
	}
	return r
}

// diff reports the differences between old and next (a part of the state, or all of
// it) and makes next the state there. It counts them as a scan's New, Modified and
// Deleted.
func (w *watcher) diff(old, next map[string]snap) (r guard.WatchScan) {
	now := w.o.Env.Clock.Now()
	var paths []string
	for p := range old {
		paths = append(paths, p)
	}
	for p := range next {
		if _, ok := old[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		o, hadOld := old[p]
		n, hasNew := next[p]
		switch {
		case hadOld && !hasNew:
			name := guard.EventReleased
			if !o.lock.Active(now) && !o.lock.Protected() {
				name = guard.EventPruned // an expired lock removed: a prune (guard's or the reference's)
			}
			w.emit(name, o.lock)
			delete(w.locks, p)
			r.Deleted++
		case !hadOld && hasNew:
			if n.lock.Active(now) {
				w.emit(guard.EventAcquired, n.lock)
			}
			w.locks[p] = n
			r.New++
		case changed(o.lock, n.lock):
			name := guard.EventRenewed
			if n.lock.Owner != o.lock.Owner {
				name = guard.EventTakenOver
			}
			w.emit(name, n.lock)
			w.locks[p] = n
			r.Modified++
		default:
			n.expired = o.expired
			w.locks[p] = n
		}
	}
	return r
}

// changed reports whether a lock file was rewritten (its fields, not its mtime alone).
func changed(a, b *lockcore.Lock) bool {
	if a.Owner != b.Owner || !a.Created.Equal(b.Created) || a.ExpiresAfter != b.ExpiresAfter {
		return true
	}
	fa, oka := a.Fence()
	fb, okb := b.Fence()
	return oka != okb || fa != fb
}

// expire reports the locks whose expiry the clock has passed (emit: false on the
// initial scan, where a lock found expired is not news) and returns how many.
func (w *watcher) expire(now time.Time, emit bool) int {
	n := 0
	for p, s := range w.locks {
		if s.expired || s.lock.Active(now) {
			continue
		}
		s.expired = true
		w.locks[p] = s
		n++
		if emit {
			w.emit(guard.EventExpired, s.lock)
		}
	}
	return n
}

func (w *watcher) untilNextExpiry() time.Duration {
	now := w.o.Env.Clock.Now()
	next := w.o.Rescan
	for _, s := range w.locks {
		if s.expired {
			continue
		}
		if at, ok := s.lock.ExpiresAt(); ok {
			if d := at.Sub(now) + 10*time.Millisecond; d < next {
				next = d
			}
		}
	}
	if next < 10*time.Millisecond {
		next = 10 * time.Millisecond
	}
	return next
}

func (w *watcher) emit(name string, l *lockcore.Lock) {
	ev := guard.LockEvent(name, l)
	ev.Time = w.o.Env.Clock.Now()
	ev.Actor = "watch"
	if l.HeldIn != "" {
		ev.Detail = "held in " + l.HeldIn
	}
	w.o.Emit(ev)
}

// backendKey starts the state keys of locks held in a backend: a lock held there
// and its follower file are two entries, each with its own events.
const backendKey = "backend:"

func backendSnaps(u backendUpdate) map[string]snap {
	out := make(map[string]snap, len(u.locks))
	for _, l := range u.locks {
		out[fmt.Sprintf("%s%d:%s", backendKey, u.index, l.Path)] = snap{lock: l}
	}
	return out
}

// backendState is the part of the state that backend i holds.
func (w *watcher) backendState(i int) map[string]snap {
	prefix := fmt.Sprintf("%s%d:", backendKey, i)
	out := map[string]snap{}
	for k, v := range w.locks {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}

// followBackend sends what the backend holds, at the start and after every change
// its watch reports; while it cannot be reached it says so once and tries again.
func (w *watcher) followBackend(ctx context.Context, i int, pb *guard.ProjectBackend, updates chan<- backendUpdate) {
	warned := false
	for ctx.Err() == nil {
		locks, rev, err := pb.HeldLocks(ctx, w.o.Env.Clock.Now().Location())
		if err != nil {
			if !warned {
				w.o.Warn(err.Error())
				warned = true
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(2 * time.Second):
			}
			continue
		}
		warned = false
		select {
		case updates <- backendUpdate{index: i, locks: locks}:
		case <-ctx.Done():
			return
		}
		if err := pb.Backend.WaitChange(ctx, rev); err != nil && ctx.Err() == nil {
			time.Sleep(time.Second)
		}
	}
}
