package wait

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

const (
	// SlowPoll is the safety net of a watcher whose notifications work: a change
	// made where they are not delivered (another machine writing a network folder)
	// is still seen within this time.
	SlowPoll = 5 * time.Second
	// FastPoll stands in for notifications that could not be set up (watch limits
	// exhausted, a file system without them).
	FastPoll = time.Second
)

// Watcher wakes its user when an entry of interest changes in one of the watched
// directories: created, removed, renamed or written.
type Watcher struct {
	keep func(name string) bool
	c    chan struct{}

	mu       sync.Mutex
	fs       *fsnotify.Watcher
	dirs     map[string]bool
	degraded bool
	closed   bool
}

// Watch watches dirs for entries whose base name keep accepts (nil: every entry). It
// never fails: a directory that cannot be watched makes the watcher poll (Interval).
func Watch(keep func(name string) bool, dirs ...string) *Watcher {
	w := &Watcher{keep: keep, c: make(chan struct{}, 1), dirs: map[string]bool{}}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		w.degraded = true
	} else {
		w.fs = fw
		go w.forward(fw)
	}
	for _, d := range dirs {
		w.Add(d)
	}
	return w
}

// Add watches one more directory (once).
func (w *Watcher) Add(dir string) {
	dir = filepath.Clean(dir)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.dirs[dir] {
		return
	}
	w.dirs[dir] = true
	if w.fs == nil || w.fs.Add(dir) != nil {
		w.degraded = true
	}
}

// Interval is how long Next sleeps at most without a notification: SlowPoll when
// every directory is watched, FastPoll when one could not be.
func (w *Watcher) Interval() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.degraded {
		return FastPoll
	}
	return SlowPoll
}

// Next blocks until a watched entry changed, at most for d (0: Interval), or until
// ctx is done (then it returns ctx's error). A nil return means "look again": the
// caller re-reads what it waits for, so a spurious wake-up costs one look.
func (w *Watcher) Next(ctx context.Context, d time.Duration) error {
	if iv := w.Interval(); d <= 0 || d > iv {
		d = iv
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-w.c:
	case <-t.C:
	}
	return nil
}

// Close stops watching.
func (w *Watcher) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.closed = true
	if w.fs != nil {
		_ = w.fs.Close()
	}
}

// forward turns the notifications of interest into one pending wake-up.
func (w *Watcher) forward(fw *fsnotify.Watcher) {
	for {
		select {
		case ev, ok := <-fw.Events:
			if !ok {
				return
			}
			if w.keep == nil || w.keep(filepath.Base(ev.Name)) {
				w.wake()
			}
		case _, ok := <-fw.Errors:
			if !ok {
				return
			}
			// An overflowed event queue may have dropped what we wait for.
			w.wake()
		}
	}
}

func (w *Watcher) wake() {
	select {
	case w.c <- struct{}{}:
	default:
	}
}
