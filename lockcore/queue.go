package lockcore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardlocks/guard/internal/wait"
)

// QueueClaim is a claim as the machine's queue of waiters records it (package wait,
// one line of JSON in the ticket), so that waiters for overlapping areas keep one
// first-come, first-served order and a claim that does not wait can see whom it
// would cut in front of.
type QueueClaim struct {
	// Path is the lock file wanted.
	Path string `json:"path"`
	// Dir is the lock's directory, its real path (every spelling agrees on it).
	Dir string `json:"dir"`
	// Scope is the lock's scope (ProjectScope for the whole directory).
	Scope string `json:"scope"`
	// Resource: a resource lock (guard lock --resource), which overlaps only itself.
	Resource bool   `json:"resource,omitempty"`
	Owner    string `json:"owner"`
	// Since is when the claim started waiting.
	Since time.Time `json:"since"`
	// PID is the waiting process (filled in from the ticket when read back).
	PID int `json:"-"`
}

// ClaimOf is the queue's record of a claim of spec at the moment now.
func ClaimOf(spec Spec, now time.Time) QueueClaim {
	dir := filepath.Clean(spec.Dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	s := spec
	if s.Kind == Team {
		s.Host = s.TeamHost
	}
	return QueueClaim{
		Path: filepath.Join(dir, filepath.Base(ExistingLockPath(s.Path()))), Dir: dir,
		Scope: strings.ToLower(spec.ScopeOrProject()), Resource: spec.Resource != "",
		Owner: spec.Owner, Since: now,
	}
}

// ClaimsOverlap is the queue's rule when the caller gives none (Request.Overlaps):
// the same lock file; in one directory, scopes that overlap by name
// (ScopesOverlap); a directory inside the other's. It errs towards overlapping,
// which costs a waiter its turn, never the order. Resource locks overlap only
// themselves. guard's policy refines it with what the scopes cover
// (guard.Policy.WaitersOverlap).
func ClaimsOverlap(a, b QueueClaim) bool {
	if strings.EqualFold(a.Path, b.Path) {
		return true
	}
	if a.Resource || b.Resource {
		return false
	}
	if a.Dir == b.Dir {
		return ScopesOverlap(a.Scope, b.Scope)
	}
	return inside(a.Dir, b.Dir) || inside(b.Dir, a.Dir)
}

// inside reports whether path lies below dir (both clean and absolute).
func inside(path, dir string) bool {
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

// QueueError refuses a claim that does not wait (no --wait) while guard waiters on
// this machine queue for an area that overlaps it: it would cut in front of them.
type QueueError struct {
	Path string
	// Waiters are the overlapping waiters, first in line first.
	Waiters []QueueClaim
}

// Error names the queue and its first waiter.
func (e *QueueError) Error() string {
	first := e.Waiters[0]
	who := first.Owner
	if who == "" {
		who = "an unknown owner"
	}
	return fmt.Sprintf("%d guard waiter(s) on this machine queue for an area that overlaps %s (first in line: %s for %s, pid %d, waiting since %s); a claim that does not wait does not cut in front of them",
		len(e.Waiters), e.Path, who, first.Path, first.PID, first.Since.Format("15:04:05"))
}

// encodeClaim is the ticket's want line.
func encodeClaim(c QueueClaim) string {
	data, _ := json.Marshal(c)
	return string(data)
}

// decodeClaim reads a ticket's want line; ok is false for a ticket that says
// nothing readable (it is then taken to overlap every claim).
func decodeClaim(want string) (QueueClaim, bool) {
	var c QueueClaim
	if want == "" || json.Unmarshal([]byte(want), &c) != nil || c.Path == "" {
		return c, false
	}
	return c, true
}

// overlapsMine is the queue filter of the claim mine: the tickets it waits for.
func overlapsMine(mine QueueClaim, overlaps func(a, b QueueClaim) bool) func(string) bool {
	if overlaps == nil {
		overlaps = ClaimsOverlap
	}
	return func(want string) bool {
		theirs, ok := decodeClaim(want)
		return !ok || overlaps(mine, theirs)
	}
}

// queueGate wraps RESPECT for a claim that is not in the queue: after RESPECT let
// it through, a claim that would create or take over the lock (not renew the
// claimant's own, not join its host's team lock, not meet a live lock that refuses
// it anyway) is refused while overlapping waiters queue in queueDir.
func queueGate(req Request, now time.Time, respect func(Spec, string) ([]string, error)) func(Spec, string) ([]string, error) {
	return func(spec Spec, path string) ([]string, error) {
		var warnings []string
		if respect != nil {
			w, err := respect(spec, path)
			if err != nil {
				return nil, err
			}
			warnings = w
		}
		if !claimsAnew(spec, path, now, req.Options.Loc) {
			return warnings, nil
		}
		mine := ClaimOf(spec, now)
		waiters, err := wait.Queued(req.QueueDir, overlapsMine(mine, req.Overlaps))
		if err != nil {
			// The queue cannot be read: the claim goes ahead as one without a queue
			// would (waiting is a courtesy among guard waiters, not a lock).
			return warnings, nil
		}
		if len(waiters) == 0 {
			return warnings, nil
		}
		qe := &QueueError{Path: path}
		for _, w := range waiters {
			c, ok := decodeClaim(w.Want)
			if !ok {
				c = QueueClaim{Path: "an area it does not name"}
			}
			c.PID = w.PID
			qe.Waiters = append(qe.Waiters, c)
		}
		return nil, qe
	}
}

// claimsAnew reports whether a claim of spec at path would write a new grant
// (create the lock, or take over an expired one): only those can cut in front of
// waiters.
func claimsAnew(spec Spec, path string, now time.Time, loc *time.Location) bool {
	if loc == nil {
		loc = now.Location()
	}
	data, modTime, err := readNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false // Acquire says what is wrong with it
	}
	// An expired lock is taken over; anything else is renewed, joined, or refused.
	cur, _ := ParseLock(path, data, modTime, loc)
	return cur.Expired(now)
}
