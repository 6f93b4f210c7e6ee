package lockcore

import (
	"context"
	"fmt"
	"time"
)

// Handle is a lock held over time, the shape every backend gives its holders (as
// etcd's concurrency.Session and Mutex do): the fence that won, a renewal, a release,
// and a channel that closes when the lock is lost. guard run, the agent's claims and
// a backend that is not the files (etcd) all hand out and use this one shape.
type Handle interface {
	// Acquired is what the claim did (created, renewed, took over, ...).
	Acquired() *Acquired
	// Path is the lock file.
	Path() string
	// Fence is the fence the claim won; it names this grant among all grants of the
	// lock (LOCK_FENCE).
	Fence() int64
	// Renew moves the lock's lifetime on. A refused renewal (the lock was removed,
	// replaced, or has expired) also marks the handle lost.
	Renew(ctx context.Context) error
	// Release gives the lock up, if it is still this grant; afterwards Lost never
	// closes on its account.
	Release(ctx context.Context) error
	// Lost closes when the lock stops being this grant: removed, replaced (another
	// fence), expired, or a renewal refused. Err then says which.
	Lost() <-chan struct{}
	// Err is why Lost closed (nil while held).
	Err() error
}

// Locker is a place where locks are held: the lock files (Files) or, with a
// backend, a coordination service. Acquire claims req, waiting up to req.Wait for a
// refusing lock to go.
type Locker interface {
	Acquire(ctx context.Context, req Request) (Handle, error)
}

// Request is a claim as a Locker takes it.
type Request struct {
	// Spec is the lock wanted.
	Spec Spec
	// Options is RESPECT's view and the claim's circumstances (force, the mutex
	// directory); Now is set afresh for every attempt.
	Options AcquireOptions
	// Attempt, when set, is the one claim attempt (the caller's claim path, which
	// may add checks of its own around Acquire); nil means Acquire(Spec, Options).
	Attempt func(now time.Time) (*Acquired, error)
	// Clock gives the time of every attempt and of the handle's checks.
	Clock Clock
	// Wait is how long a refused claim waits for the refusing lock to be released,
	// expire or be pruned; 0 does not wait.
	Wait time.Duration
	// QueueDir is the directory of the first-come, first-served queue of waiters
	// ("" waits unqueued, and a claim that does not wait ignores waiters). Every
	// claim on one machine that may overlap another must use the same one: guard
	// uses one for all (guard.QueueDir).
	QueueDir string
	// Overlaps says whether two claims want overlapping areas, so that the later
	// waits for the earlier (nil: ClaimsOverlap).
	Overlaps func(a, b QueueClaim) bool
	// OnWait, when set, is told what the claim is waiting for whenever that changes.
	OnWait func(WaitState)
}

// WaitState is what a waiting claim waits for.
type WaitState struct {
	// Path is the lock file the claim wants.
	Path string
	// Blocker is the lock that refused the claim, or, while other waiters are in
	// front, the lock now at Path (nil if there is none).
	Blocker *Lock
	// Ahead is the number of waiters in front (0: this claim is the next to try).
	Ahead int
	// Since is when the claim started waiting.
	Since time.Time
}

// WaitError is a claim that waited in vain: the wait ran out (or its context ended)
// while a lock still refused it. It unwraps to the refusal (*ConflictError) when
// the claim had tried, and to the context's error.
type WaitError struct {
	Path   string
	Waited time.Duration
	// Conflict is the last refusal (nil when waiters in front never let it try).
	Conflict *ConflictError
	// Ahead is the number of waiters still in front; Holder the lock at Path then.
	Ahead  int
	Holder *Lock
	Err    error
}

// Error says what was waited for, for how long, and who holds it.
func (e *WaitError) Error() string {
	waited := e.Waited.Round(time.Second)
	switch {
	case e.Conflict != nil:
		return fmt.Sprintf("waited %s: %v", waited, e.Conflict)
	case e.Holder != nil:
		return fmt.Sprintf("waited %s behind %d earlier waiter(s) for %s, held by %s", waited, e.Ahead, e.Path, HolderText(e.Holder))
	}
	return fmt.Sprintf("waited %s behind %d earlier waiter(s) for %s", waited, e.Ahead, e.Path)
}

// Unwrap returns the refusal and the context's error.
func (e *WaitError) Unwrap() []error {
	var errs []error
	if e.Conflict != nil {
		errs = append(errs, e.Conflict)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// HolderText is how a waiter names a lock's holder: "bob: parser refactor" (the
// owner alone without a purpose, "an unknown owner" without an owner).
func HolderText(l *Lock) string {
	who := l.Owner
	if who == "" {
		who = "an unknown owner"
	}
	if l.Purpose != "" {
		who += ": " + l.Purpose
	}
	return who
}
