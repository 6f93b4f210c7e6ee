package lockcore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardlocks/guard/internal/wait"
)

// Files is the Locker of the lock files themselves.
type Files struct{}

// Acquire claims req.Spec (Attempt, or Acquire). When a live lock refuses it and
// req.Wait > 0, it waits, then tries again, until the claim succeeds, fails for
// another reason, or the wait runs out (*WaitError, which unwraps to the last
// *ConflictError):
//
//   - Waiters queue in req.QueueDir (package wait), each ticket naming its claim
//     (QueueClaim); a waiter waits for the earlier ones whose claims overlap its own
//     (req.Overlaps), whichever lock file they want, and only a waiter with none of
//     those in front tries. So a release wakes one claim, not all of them, and
//     waiters for overlapping areas win in the order they started waiting. A waiter
//     that dies leaves the queue with its process.
//   - The head sleeps until a lock file changes in the directory of the lock that
//     refused it or in the claim's own directory (file-system notifications, with a
//     slow poll where they do not work), or until that lock expires.
//
// Without a wait the claim is tried once and joins no queue; but with a QueueDir
// and without Force, a claim that would create or take over its lock while
// overlapping waiters queue is refused (*QueueError): it does not cut in front of
// them. Renewing one's own lock and joining a team lock are never refused for the
// queue. (A custom req.Attempt makes its own checks: the queue is not asked then.)
func (Files) Acquire(ctx context.Context, req Request) (Handle, error) {
	res, err := Hold(ctx, req)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Hold is Files.Acquire with the file-backed handle's own type.
func Hold(ctx context.Context, req Request) (*FileHandle, error) {
	attempt := req.Attempt
	if attempt == nil {
		gate := req.QueueDir != "" && req.Wait <= 0 && !req.Options.Force
		attempt = func(now time.Time) (*Acquired, error) {
			o := req.Options
			o.Now = now
			if gate {
				o.Respect = queueGate(req, now, o.Respect)
			}
			return Acquire(req.Spec, o)
		}
	}
	clock := req.Clock
	if clock == nil {
		clock = ClockFunc(time.Now)
	}
	if req.Wait <= 0 {
		res, err := attempt(clock.Now())
		if err != nil {
			return nil, err
		}
		return newFileHandle(res, req.Spec.Owner, clock, req.Options.Loc), nil
	}
	res, err := waitFor(ctx, req, attempt, clock)
	if err != nil {
		return nil, err
	}
	return newFileHandle(res, req.Spec.Owner, clock, req.Options.Loc), nil
}

// waitFor is the waiting claim: queue, then try as the head until it succeeds.
func waitFor(ctx context.Context, req Request, attempt func(time.Time) (*Acquired, error), clock Clock) (*Acquired, error) {
	start := clock.Now()
	ctx, cancel := context.WithTimeout(ctx, req.Wait)
	defer cancel()
	path := ExistingLockPath(req.Spec.Path())
	state := WaitState{Path: path, Since: start}
	tell := func() {
		if req.OnWait != nil {
			req.OnWait(state)
		}
	}
	var ticket *wait.Ticket
	if req.QueueDir != "" {
		// A queue that cannot be joined (no file locks there) still lets the claim
		// wait, only without its place in line.
		mine := ClaimOf(req.Spec, start)
		ticket, _ = wait.JoinFor(req.QueueDir, encodeClaim(mine), overlapsMine(mine, req.Overlaps))
	}
	defer ticket.Leave()
	var last *ConflictError
	timedOut := func(ahead int, err error) error {
		we := &WaitError{Path: path, Waited: clock.Now().Sub(start), Conflict: last, Ahead: ahead, Err: err}
		if last == nil {
			we.Holder, _ = ReadLock(path, req.Options.Loc)
		}
		return we
	}
	if ticket != nil {
		err := ticket.WaitHead(ctx, func(ahead int) {
			state.Ahead = ahead
			state.Blocker, _ = ReadLock(path, req.Options.Loc)
			tell()
		})
		if err != nil {
			n, _ := ticket.Ahead()
			return nil, timedOut(n, err)
		}
	}
	state.Ahead = 0
	w := wait.Watch(func(name string) bool { return IsLockName(name) }, req.Spec.Dir)
	defer w.Close()
	for {
		res, err := attempt(clock.Now())
		var ce *ConflictError
		if !errors.As(err, &ce) {
			return res, err
		}
		if last == nil || ce.Lock.Path != last.Lock.Path || ce.Lock.Owner != last.Lock.Owner {
			state.Blocker = ce.Lock
			tell()
		}
		last = ce
		w.Add(ce.Lock.Dir)
		sleep := time.Duration(0)
		if at, ok := ce.Lock.ExpiresAt(); ok {
			// Expired means strictly after created + lifetime.
			sleep = max(at.Sub(clock.Now())+10*time.Millisecond, time.Millisecond)
		}
		if err := w.Next(ctx, sleep); err != nil {
			return nil, timedOut(0, err)
		}
	}
}

// QueueDir is a queue directory under root for the waiters of the lock at lockPath
// alone, named by a hash of the lock's real directory and its name folded to lower
// case, so waiters agree on it however they spelled the path. guard itself queues
// every claim in one directory (guard.QueueDir), so that waiters for overlapping
// areas share one order; this names the per-lock queues of earlier versions, whose
// stranded tickets guard doctor still finds.
func QueueDir(root, lockPath string) string {
	dir, base := filepath.Split(filepath.Clean(lockPath))
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	sum := sha256.Sum256([]byte(filepath.Join(dir, strings.ToLower(base))))
	return filepath.Join(root, hex.EncodeToString(sum[:12]))
}
