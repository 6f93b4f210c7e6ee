package lockcore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/guardlocks/guard/internal/wait"
)

// LostCheck is how often a handle whose Lost channel is in use looks at its lock
// file besides the file-system notifications: a loss is noticed within this time
// even where notifications do not arrive.
const LostCheck = time.Second

// FileHandle is a lock file held by this process: the Handle of Files.
type FileHandle struct {
	res   *Acquired
	owner string
	clock Clock
	loc   *time.Location
	// shared: a team lock of this host joined, not claimed; it is someone else's
	// file, so the handle neither renews nor removes it.
	shared bool

	mu       sync.Mutex
	lost     chan struct{}
	err      error
	released bool
	watching bool
	stop     chan struct{}
}

func newFileHandle(res *Acquired, owner string, clock Clock, loc *time.Location) *FileHandle {
	if loc == nil {
		loc = clock.Now().Location()
	}
	return &FileHandle{
		res: res, owner: owner, clock: clock, loc: loc, shared: res.Action == Joined,
		lost: make(chan struct{}), stop: make(chan struct{}),
	}
}

// Acquired is what the claim did.
func (h *FileHandle) Acquired() *Acquired { return h.res }

// Path is the lock file.
func (h *FileHandle) Path() string { return h.res.Path }

// Fence is the fence of the grant.
func (h *FileHandle) Fence() int64 { return h.res.Fence }

// Renew moves created to now, provided the file still carries this grant's fence and
// has not expired; a refusal marks the handle lost. A joined team lock is not renewed
// (it is its owner's to keep).
func (h *FileHandle) Renew(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if h.shared {
		return nil
	}
	fence := h.res.Fence
	now := h.clock.Now()
	_, err := renew(h.res.Path, h.owner, "", &fence, now, h.loc)
	switch {
	case errors.Is(err, ErrNoLock):
		h.markLost(fmt.Errorf("renewal refused: the lock file %s was removed", h.res.Path))
	case errors.Is(err, ErrNotOwner), errors.Is(err, ErrFenceChanged), errors.Is(err, ErrExpired):
		h.markLost(fmt.Errorf("renewal refused: %w", err))
	}
	return err
}

// Release removes the lock file if it still carries this grant's fence. A lock that
// was lost meanwhile is left alone (it is someone else's now) and reported.
func (h *FileHandle) Release(ctx context.Context) error {
	h.mu.Lock()
	if !h.released {
		h.released = true
		close(h.stop)
	}
	h.mu.Unlock()
	if h.shared {
		return nil
	}
	removed, err := RemoveIfFence(h.res.Path, h.res.Fence)
	if err != nil {
		return err
	}
	if !removed {
		return fmt.Errorf("%s no longer carries fence %d; left as it is: %w", h.res.Path, h.res.Fence, ErrFenceChanged)
	}
	return nil
}

// Lost closes when the lock is no longer this grant. The first call starts watching
// the lock file (notifications, and a look every LostCheck).
func (h *FileHandle) Lost() <-chan struct{} {
	h.mu.Lock()
	start := !h.watching && !h.released
	h.watching = true
	h.mu.Unlock()
	if start {
		go h.watch()
	}
	return h.lost
}

// Err is why Lost closed.
func (h *FileHandle) Err() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

func (h *FileHandle) markLost(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil || h.released {
		return
	}
	h.err = err
	close(h.lost)
}

// watch looks at the lock file whenever a lock file in its directory changes, and at
// least every LostCheck, until the lock is lost or released.
func (h *FileHandle) watch() {
	name := filepath.Base(h.res.Path)
	w := wait.Watch(func(n string) bool { return strings.EqualFold(n, name) }, filepath.Dir(h.res.Path))
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-h.stop:
		case <-h.lost:
		}
		cancel()
	}()
	for {
		if err := h.check(); err != nil {
			h.markLost(err)
			return
		}
		if err := w.Next(ctx, LostCheck); err != nil {
			return
		}
	}
}

// check says how the lock file stopped being this grant (nil while it is).
func (h *FileHandle) check() error {
	path := h.res.Path
	data, modTime, err := readNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the lock file %s was removed", path)
	}
	if err != nil {
		return fmt.Errorf("the lock file %s cannot be read (%v), so guard cannot tell that it is still held", path, err)
	}
	l, err := ParseLock(path, data, modTime, h.loc)
	if err != nil {
		return err
	}
	f, ok := l.Fence()
	switch {
	case !ok:
		return fmt.Errorf("the lock file %s was replaced by one without a fence (owner %q)", path, l.Owner)
	case f != h.res.Fence:
		return fmt.Errorf("the lock file %s was replaced: fence %d, not %d (now held by %s)", path, f, h.res.Fence, HolderText(l))
	case !h.shared && l.Owner != h.owner:
		return fmt.Errorf("the lock file %s now names owner %q, not %q", path, l.Owner, h.owner)
	case l.Expired(h.clock.Now()):
		return fmt.Errorf("the lock %s expired without being renewed", path)
	}
	return nil
}
