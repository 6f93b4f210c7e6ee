// Package backend is the claim path of a project whose locks a coordination service
// holds (CONTRACT.md section 10): the claim wins in the service first, in one
// transaction judged by the same RESPECT as every other claim, and the lock file
// follows it, carrying the winning revision as its fence. The service itself is
// behind guard.Backend (backend/etcd); this package only speaks that interface.
package backend

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/atomicfile"
	"github.com/guardlocks/guard/lockcore"
)

// FollowerField marks a lock file written as the follower of a backend's lock: a file
// with it whose key is gone is stale (the service freed the lock; takeover is its
// decision, never a race over the file).
const FollowerField = guard.FollowerField

// maxMoves bounds how often a claim judges again because an overlapping lock changed
// between its reading and its transaction.
const maxMoves = 64

// Locker claims in a project's backend, then writes the lock file
// (lockcore.Locker).
type Locker struct {
	PB *guard.ProjectBackend
}

// Acquire claims req.Spec: RESPECT (req.Options.Respect, which reads the backend's
// locks with the files), the lock of the same name (its key, else its file) judged
// by lockcore.DecideClaim as the files judge it (renewed if it is the caller's,
// replaced with Force, taken over if freed or expired, joined if it is this host's
// team lock, refused otherwise), the transaction, then the file. With req.Wait it waits for the refusing
// lock to go, woken by the backend's watch (and a slow look at the files).
func (lk *Locker) Acquire(ctx context.Context, req lockcore.Request) (lockcore.Handle, error) {
	clock := req.Clock
	if clock == nil {
		clock = lockcore.ClockFunc(time.Now)
	}
	start := clock.Now()
	var deadline context.Context = ctx
	cancel := func() {}
	if req.Wait > 0 {
		deadline, cancel = context.WithTimeout(ctx, req.Wait)
	}
	defer cancel()
	var last *lockcore.ConflictError
	state := lockcore.WaitState{Path: lockcore.ExistingLockPath(req.Spec.Path()), Since: start}
	for {
		h, rev, err := lk.attempt(ctx, req, clock.Now())
		var ce *lockcore.ConflictError
		if !errors.As(err, &ce) || req.Wait <= 0 {
			return h, err
		}
		if last == nil || ce.Lock.Path != last.Lock.Path || ce.Lock.Owner != last.Lock.Owner {
			state.Blocker = ce.Lock
			if req.OnWait != nil {
				req.OnWait(state)
			}
		}
		last = ce
		// Woken by any change of the project's locks in the backend, and every
		// second for the files (a hand-made lock file refuses too).
		wctx, wcancel := context.WithTimeout(deadline, time.Second)
		werr := lk.PB.Backend.WaitChange(wctx, rev)
		wcancel()
		if deadline.Err() != nil {
			return nil, &lockcore.WaitError{Path: state.Path, Waited: clock.Now().Sub(start), Conflict: last, Err: deadline.Err()}
		}
		if werr != nil && wctx.Err() == nil {
			// The watch itself failed (etcd unreachable): look again in a moment.
			select {
			case <-deadline.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
}

// attempt is one claim; rev is the revision it judged at (for the wait). What the
// claim does about the lock of the same name is lockcore.DecideClaim's decision, as
// it is for the files; the backend's key, when there is one, is what is found there,
// otherwise the lock file (a follower whose key is gone is freed).
func (lk *Locker) attempt(ctx context.Context, req lockcore.Request, now time.Time) (lockcore.Handle, int64, error) {
	spec, err := req.Spec.Prepared()
	if err != nil {
		return nil, 0, err
	}
	loc := req.Options.Loc
	if loc == nil {
		loc = now.Location()
	}
	now = now.In(loc)
	path := lockcore.ExistingLockPath(spec.Path())
	name := filepath.Base(path)
	bl := guard.BackendLock{Name: name, Resource: spec.Resource}
	if spec.Resource == "" {
		rel, ok := lk.PB.Rel(filepath.Dir(path))
		if !ok {
			return nil, 0, fmt.Errorf("%s lies outside the project %s at %s, whose locks %s holds", path, lk.PB.Project, lk.PB.Top, lk.PB.Backend.Where())
		}
		bl.Dir = rel
	}
	ttl := lifetime(spec)
	where := lk.PB.Backend.Where()
	// forced is the lock whose grant --force released; the claim then judges again
	// (the key is gone, its follower file freed), without force: a lock claimed by
	// someone else meanwhile is refused, not forced out too.
	var forced *lockcore.Lock
	for moves := 0; ; moves++ {
		tctx, cancel := context.WithTimeout(ctx, lk.PB.Timeout())
		snap, err := lk.PB.Backend.Snapshot(tctx)
		cancel()
		if err != nil {
			return nil, 0, &guard.UnreachableError{Where: where, Err: err}
		}
		var warnings []string
		if req.Options.Respect != nil {
			if warnings, err = req.Options.Respect(spec, path); err != nil {
				return nil, snap.Revision, err
			}
		}
		found, same, err := lk.found(snap, bl, path, loc)
		if errors.Is(err, lockcore.ErrEntryChanged) && moves < maxMoves {
			continue
		}
		if err != nil {
			return nil, snap.Revision, err
		}
		d := lockcore.DecideClaim(lockcore.ClaimAsk{
			Owner: spec.Owner, Team: spec.Kind == lockcore.Team, Force: req.Options.Force && forced == nil, Now: now, Where: where,
		}, found)
		switch {
		case d.Err != nil:
			return nil, snap.Revision, d.Err
		case d.Action == lockcore.Joined:
			// The agents of one host share its team lock; it stays its owner's.
			fence, _ := found.Lock.Fence()
			if same != nil {
				fence = same.Fence
			}
			res := &lockcore.Acquired{Path: path, Action: lockcore.Joined, Fence: fence, Lock: found.Lock, Warnings: warnings}
			return &Handle{res: res, shared: true}, snap.Revision, nil
		case d.Clear == lockcore.ClearHolder:
			g, _, err := lk.PB.Backend.Attach(ctx, same.Dir, same.Name, same.Resource)
			if err == nil {
				err = g.Release(ctx)
			}
			if err != nil && !errors.Is(err, guard.ErrBackendNoLock) && !errors.Is(err, guard.ErrBackendLost) {
				return nil, 0, fmt.Errorf("replacing %s in %s: %w", path, where, err)
			}
			forced = found.Lock
			continue
		}
		claim := guard.BackendClaim{TTL: ttl, Since: snap.Revision}
		if d.Action == lockcore.Renewed && same != nil {
			claim.Replace, claim.ReplaceLease = same.Fence, same.Lease
		}
		action, prev := d.Action, d.Previous
		if forced != nil && (action == lockcore.Created || action == lockcore.TookOver) {
			action, prev = lockcore.Replaced, forced
		}
		claim.Lock = bl
		claim.Lock.Body = backendBody(spec, now)
		tctx, cancel = context.WithTimeout(ctx, lk.PB.Timeout())
		g, err := lk.PB.Backend.Claim(tctx, claim)
		cancel()
		if errors.Is(err, guard.ErrBackendMoved) && moves < maxMoves {
			continue
		}
		if err != nil {
			return nil, snap.Revision, &guard.UnreachableError{Where: where, Err: err}
		}
		if err := writeFollower(path, spec, now, g.Fence()); err != nil {
			rctx, cancel := context.WithTimeout(context.Background(), lk.PB.Timeout())
			_ = g.Release(rctx)
			cancel()
			return nil, snap.Revision, err
		}
		l, _ := lockcore.ReadLock(path, loc)
		if l == nil {
			l = guard.LockOf(lk.PB.Top, guard.BackendLock{Dir: bl.Dir, Name: name, Body: claim.Lock.Body, Fence: g.Fence()}, where, loc)
		}
		l.HeldIn = where
		res := &lockcore.Acquired{Path: path, Action: action, Fence: g.Fence(), Lock: l, Previous: prev, Warnings: warnings}
		return &Handle{res: res, grant: g, spec: spec, ttl: ttl, timeout: lk.PB.Timeout(), clock: lockcore.ClockFunc(time.Now), loc: loc}, snap.Revision, nil
	}
}

// found is what a claim of bl finds at its name: the backend's key if the snapshot
// has one (it is the lock, whatever the file says), else the lock file, freed when
// it follows a key that is gone.
func (lk *Locker) found(snap *guard.BackendSnapshot, bl guard.BackendLock, path string, loc *time.Location) (lockcore.Found, *guard.BackendLock, error) {
	if same := find(snap, bl); same != nil {
		cur := guard.LockOf(lk.PB.Top, *same, lk.PB.Backend.Where(), loc)
		if bl.Resource != "" {
			cur.Path = path
		}
		return lockcore.Found{Entry: lockcore.EntryLock, Lock: cur, Path: path}, same, nil
	}
	found, err := lockcore.ReadFound(path, loc)
	if err == nil && found.Entry == lockcore.EntryLock {
		_, found.Freed = found.Lock.Fields.Values[FollowerField]
	}
	return found, nil, err
}

// find is the snapshot's lock of bl's name (folder and name, or resource).
func find(snap *guard.BackendSnapshot, bl guard.BackendLock) *guard.BackendLock {
	for i := range snap.Locks {
		s := &snap.Locks[i]
		if bl.Resource != "" {
			if s.Resource == bl.Resource {
				return s
			}
			continue
		}
		if s.Resource == "" && s.Dir == bl.Dir && strings.EqualFold(s.Name, bl.Name) {
			return s
		}
	}
	return nil
}

// lifetime is the lease of a lock of spec: its expires_after, or none for the kinds
// that never expire by time.
func lifetime(spec lockcore.Spec) time.Duration {
	switch spec.Kind {
	case lockcore.User, lockcore.Condition, lockcore.Until:
		return 0
	}
	exp := spec.Expires
	if exp == "" {
		exp = "24h"
	}
	d, ok, _ := lockcore.ParseDuration(exp)
	if !ok {
		return 24 * time.Hour
	}
	return d
}

// backendBody is the lock's body as the backend holds it: the file's body without
// the fence (the key's create revision is the fence), marked as a follower.
func backendBody(spec lockcore.Spec, created time.Time) []byte {
	return []byte(stripFence(string(spec.Body(created, 0))) + FollowerField + ": etcd\n")
}

// writeFollower writes the lock file that follows the backend's grant of fence.
func writeFollower(path string, spec lockcore.Spec, created time.Time, fence int64) error {
	body := string(spec.Body(created, fence)) + FollowerField + ": etcd\n"
	if err := atomicfile.Write(path, []byte(body), 0o644); err != nil {
		return fmt.Errorf("writing the lock file %s after winning it in the backend: %w", path, err)
	}
	return nil
}

// Handle is a lock won in a backend, with its follower file (lockcore.Handle).
type Handle struct {
	res     *lockcore.Acquired
	grant   guard.BackendGrant
	spec    lockcore.Spec
	ttl     time.Duration
	timeout time.Duration
	clock   lockcore.Clock
	loc     *time.Location
	// shared: a team lock of this host joined; it is its owner's to keep.
	shared bool
}

// Acquired is what the claim did.
func (h *Handle) Acquired() *lockcore.Acquired { return h.res }

// Path is the lock file.
func (h *Handle) Path() string { return h.res.Path }

// Fence is the revision that won the lock.
func (h *Handle) Fence() int64 { return h.res.Fence }

// Renew keeps the lease alive and moves created on, in the backend and in the file.
func (h *Handle) Renew(ctx context.Context) error {
	if h.shared {
		return nil
	}
	now := h.clock.Now().In(h.loc)
	if err := h.grant.Renew(ctx, backendBody(h.spec, now), h.ttl); err != nil {
		return err
	}
	return writeFollower(h.res.Path, h.spec, now, h.res.Fence)
}

// Release deletes the key and then the file (if it still carries this fence).
func (h *Handle) Release(ctx context.Context) error {
	if h.shared {
		return nil
	}
	err := h.grant.Release(ctx)
	if _, ferr := lockcore.RemoveIfFence(h.res.Path, h.res.Fence); ferr != nil && !errors.Is(ferr, fs.ErrNotExist) && err == nil {
		err = ferr
	}
	return err
}

// Lost closes when the backend no longer holds the lock for this grant.
func (h *Handle) Lost() <-chan struct{} {
	if h.shared {
		return nil
	}
	return h.grant.Lost()
}

// Err is why Lost closed.
func (h *Handle) Err() error {
	if h.shared {
		return nil
	}
	return h.grant.Err()
}
