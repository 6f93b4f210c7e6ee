package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// LockNaming are the flags that name a lock file in a directory (lock, unlock, renew):
// --scope, --team HOST, --user, --condition, --until TIME.
type LockNaming struct {
	Scope     string
	Team      string
	User      bool
	Condition bool
	Until     string
}

// kind returns the lock kind the flags ask for; combining kinds is a usage error.
func (n LockNaming) kind() (lockcore.Kind, error) {
	var kinds []string
	k := lockcore.Exclusive
	if n.Team != "" {
		kinds, k = append(kinds, "--team"), lockcore.Team
	}
	if n.User {
		kinds, k = append(kinds, "--user"), lockcore.User
	}
	if n.Condition {
		kinds, k = append(kinds, "--condition"), lockcore.Condition
	}
	if n.Until != "" {
		kinds, k = append(kinds, "--until"), lockcore.Until
	}
	if len(kinds) > 1 {
		return "", guard.Fail(guard.BadInput, "%s exclude each other", strings.Join(kinds, " and "))
	}
	return k, nil
}

// LockOptions are the inputs of `guard lock`.
type LockOptions struct {
	Env *guard.Env
	// Dir is the DIR argument (relative to Env.Dir; empty: Env.Dir).
	Dir string
	LockNaming
	Owner            string
	Host             string
	Expires          string
	Mode             string
	Purpose          string
	ReleaseCondition string
	Operations       string
	Force            bool
	// Contest is nil (decide), or true/false for --contested / --no-contest.
	Contest *bool
	// Quarantine is --quarantine (seconds); negative means the default.
	Quarantine int
	// Sleep waits out the quarantine (nil: time.Sleep).
	Sleep func(time.Duration)
	JSON  bool
	// Wait is --wait: how long a refused claim waits for the refusing lock to go
	// (<number><s|m|h|d>; "" or "0" does not wait).
	Wait string
	// Resource is --resource: the URI of a resource to lock in the resources
	// directory instead of a folder.
	Resource string
}

// LockJSON is `guard lock --json`.
type LockJSON struct {
	Path     string        `json:"path"`
	Action   string        `json:"action"`
	Fence    int64         `json:"fence"`
	Lock     lockcore.JSON `json:"lock"`
	Previous *PreviousJSON `json:"previous"`
	Contest  ContestJSON   `json:"contest"`
	Warnings []string      `json:"warnings"`
	// OK is the verdict key every command's JSON shares: a document is only written
	// for a claim that holds, so it is always true.
	OK bool `json:"ok"`
}

// PreviousJSON is the lock a claim renewed, took over or replaced.
type PreviousJSON struct {
	Owner string `json:"owner"`
	Fence *int64 `json:"fence"`
}

// ContestJSON says whether the contest procedure ran and how it ended.
type ContestJSON struct {
	Ran    bool   `json:"ran"`
	Won    bool   `json:"won"`
	Reason string `json:"reason"`
}

// RunLock claims a lock (CONTRACT.md `guard lock`). It prints the lock's absolute path
// on stdout (or the LockJSON object), and on stderr the fence hints a holder exports
// (LOCK_FENCE=<n>, LOCK_FENCE_FILE=<path>). Exit 0 created, renewed, taken over or
// joined; 1 refused (another live lock covers the area, or the path is taken by
// something that is not a lock); 2 bad input; 3 lost the contest and removed the own
// lock (1 when that removal failed).
func RunLock(ctx context.Context, o LockOptions) error {
	env := o.Env
	c, err := claimLock(ctx, o, "lock")
	if err != nil {
		return err
	}
	res, out := c.handle.Acquired(), c.out
	if o.JSON {
		if err := writeJSON(env.Stdout, out); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(env.Stdout, res.Path)
	}
	reportClaim(env, "lock", res, true)
	return nil
}

// lockClaim is a claim that succeeded: the handle on the lock, and the JSON that
// guard lock --json prints.
type lockClaim struct {
	handle lockcore.Handle
	out    LockJSON
}

// claimLock is the one claim path of guard lock and guard run (cmd names the
// command in messages): validation, identity, RESPECT through the policy, the
// atomic claim, waiting (--wait, which ctx ends early), and the contest. Nothing is
// printed on stdout.
func claimLock(ctx context.Context, o LockOptions, cmd string) (*lockClaim, error) {
	env := o.Env
	kind, err := o.kind()
	if err != nil {
		return nil, err
	}
	wait, err := parseWait(o.Wait)
	if err != nil {
		return nil, err
	}
	if o.Resource != "" {
		return claimResource(ctx, o, cmd, wait)
	}
	if kind == lockcore.Condition && strings.TrimSpace(o.ReleaseCondition) == "" {
		return nil, guard.Fail(guard.BadInput, "%s: --condition needs --release-condition", cmd)
	}
	if o.Team != "" && o.Host != "" && !strings.EqualFold(o.Host, o.Team) {
		return nil, guard.Fail(guard.BadInput, "%s: --host %q differs from --team %q (a team lock's host is its team host)", cmd, o.Host, o.Team)
	}
	dir := absUnder(env.Dir, o.Dir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, guard.Fail(guard.BadInput, "%s: %s is not a directory", cmd, dir)
	}
	subject, err := guard.ResolveSubject(env, dir, guard.Identity{Owner: o.Owner, Host: o.Host})
	if err != nil {
		return nil, guard.Fail(guard.BadInput, "%s: %w", cmd, err)
	}
	id := subject.Identity
	spec := lockcore.Spec{
		Dir: dir, Kind: kind, Scope: o.Scope, TeamHost: o.Team,
		Owner: id.Owner, Host: id.Host, Expires: o.Expires, NotBefore: o.Until,
		Mode: o.Mode, Purpose: o.Purpose, ReleaseCondition: o.ReleaseCondition,
		Operations: lockcore.SplitOperations(o.Operations),
	}
	if err := spec.Validate(); err != nil {
		return nil, guard.Fail(guard.BadInput, "%s: %w", cmd, err)
	}
	// RESPECT is the policy's (guard.Policy.CheckClaim), asked under the creation
	// mutex at every attempt.
	pb, err := guard.SubjectBackend(env, subject)
	if err != nil {
		return nil, guard.Fail(guard.BadInput, "%s: %w", cmd, err)
	}
	return hold(ctx, o, cmd, wait, guard.NewPolicy(env, id).ClaimRequest(spec, o.Force), pb)
}

// hold makes the claim (waiting up to wait) and runs the contest after a fresh
// claim: the part of the claim path that folder and resource locks share.
//
// With a backend (pb non-nil) the claim wins there first and the lock file follows
// (guard.LockerFor); etcd, not a contest over the files, decides, so no contest runs.
func hold(ctx context.Context, o LockOptions, cmd string, wait time.Duration, req lockcore.Request, pb *guard.ProjectBackend) (*lockClaim, error) {
	env := o.Env
	spec := req.Spec
	onWait, stopProgress := waitProgress(env, cmd, wait)
	req.Wait, req.OnWait = wait, onWait
	locker, err := guard.LockerFor(env, pb)
	if err != nil {
		return nil, guard.Fail(guard.BadInput, "%s: %w", cmd, err)
	}
	h, err := locker.Acquire(ctx, req)
	stopProgress()
	if err != nil {
		recordLockRefusal(env, cmd, spec.Owner, err)
		return nil, lockRefusal(err)
	}
	res := h.Acquired()
	now := env.Clock.Now()
	for _, w := range res.Warnings {
		fmt.Fprintf(env.Stderr, "guard %s: warning: %s\n", cmd, w)
	}
	out := LockJSON{OK: true, Path: res.Path, Action: string(res.Action), Fence: res.Fence, Lock: res.Lock.ToJSON(now), Warnings: res.Warnings}
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	if p := res.Previous; p != nil {
		out.Previous = &PreviousJSON{Owner: p.Owner}
		if f, ok := p.Fence(); ok {
			out.Previous.Fence = &f
		}
	}

	// Stage 2 runs after a fresh claim only: a renewal or a joined team lock claims
	// nothing new.
	if pb == nil && (res.Action == lockcore.Created || res.Action == lockcore.TookOver || res.Action == lockcore.Replaced) {
		run, why := lockcore.ShouldContest(res.Path, o.Contest, lockcore.LooksLikeAutomation(env.Env, env.StdinTTY))
		out.Contest = ContestJSON{Ran: run, Won: !run, Reason: why}
		if run {
			q := lockcore.DefaultQuarantine
			if o.Quarantine >= 0 {
				q = time.Duration(o.Quarantine) * time.Second
			}
			sleep := o.Sleep
			if sleep == nil {
				sleep = time.Sleep
			}
			fmt.Fprintf(env.Stderr, "guard %s: contested claim: waiting %s for rival claims to sync in\n", cmd, q)
			cres, err := lockcore.Contest(res.Path, res.Fence, lockcore.ContestOptions{Quarantine: q, Sleep: sleep, Now: env.Clock.Now, Loc: now.Location()})
			var lost *lockcore.LostContestError
			if errors.As(err, &lost) {
				if lost.Removed {
					return nil, guard.Fail(guard.ContestLost, "%s: %w", cmd, err)
				}
				return nil, guard.Fail(guard.Refused, "%s: %w", cmd, err)
			}
			if err != nil {
				return nil, guard.Fail(guard.BadInput, "%s: contest: %w", cmd, err)
			}
			out.Contest.Won, out.Contest.Reason = true, cres.Reason
		}
	}

	return &lockClaim{handle: h, out: out}, nil
}

// reportClaim says on stderr what a claim did beyond creating the lock, and (with
// hints) the fence hints a holder exports.
func reportClaim(env *guard.Env, cmd string, res *lockcore.Acquired, hints bool) {
	recordClaim(env, cmd, res)
	switch res.Action {
	case lockcore.Renewed:
		if len(res.Updated) > 0 {
			fmt.Fprintf(env.Stderr, "guard %s: renewed own lock %s and updated %s\n", cmd, res.Path, strings.Join(res.Updated, ", "))
		} else {
			fmt.Fprintf(env.Stderr, "guard %s: renewed own lock %s\n", cmd, res.Path)
		}
	case lockcore.TookOver:
		fmt.Fprintf(env.Stderr, "guard %s: took over expired lock of %s\n", cmd, res.Previous.Owner)
	case lockcore.Replaced:
		fmt.Fprintf(env.Stderr, "guard %s: replaced %s (--force)\n", cmd, res.Path)
	case lockcore.Joined:
		fmt.Fprintf(env.Stderr, "guard %s: team lock of this host already held by %s; joined it (check in with guard team checkin)\n", cmd, res.Lock.Owner)
	}
	if hints && res.Fence > 0 {
		fmt.Fprintf(env.Stderr, "LOCK_FENCE=%d\nLOCK_FENCE_FILE=%s\n", res.Fence, res.Path)
	}
}

// lockRefusal says what a refused claim met: a holder, waiters in front, or bad input.
func lockRefusal(err error) error {
	var ce *lockcore.ConflictError
	var we *lockcore.WaitError
	var qe *lockcore.QueueError
	switch {
	case errors.As(err, &qe):
		return guard.Fail(guard.Conflict, "lock refused: %w\n  queue behind them with --wait DURATION, or claim anyway with --force", err)
	case errors.As(err, &we) && we.Conflict == nil:
		return guard.Fail(guard.Conflict, "lock refused: %w\n  the waiters in front still wait; try again later, or wait longer with --wait", err)
	case errors.As(err, &ce):
		if _, expires := ce.Lock.ExpiresAt(); !expires {
			// Waiting would not help: say who removes it.
			return guard.Fail(guard.Conflict, "lock refused: %w\n  %s", err, guard.WayOut(ce.Lock))
		}
		return guard.Fail(guard.Conflict, "lock refused: %w\n  wait until it expires or is released, ask its owner, or remove it deliberately: guard unlock --force %s", err, ce.Lock.Path)
	case errors.Is(err, lockcore.ErrInvalid):
		return guard.Fail(guard.BadInput, "lock: %w", err)
	case errors.Is(err, lockcore.ErrNotRegular):
		return guard.Fail(guard.Refused, "lock refused: %w", err)
	case errors.As(err, new(*guard.UnreachableError)):
		// A claim needs the backend even with offline = "files".
		return guard.Fail(guard.BadInput, "lock: %w", err)
	}
	return guard.Fail(guard.BadInput, "lock: %w", err)
}

// resolveTarget finds the lock file that unlock and renew act on: a LOCKFILE argument,
// or the lock the naming flags give in DIR (default: the current directory), spelled
// as it is on disk (names match ignoring case).
func resolveTarget(env *guard.Env, cmd, arg string, n LockNaming) (string, error) {
	p := absUnder(env.Dir, arg)
	lst, lerr := os.Lstat(p)
	switch {
	case lockcore.IsLockName(filepath.Base(p)) && (lerr != nil || !lst.IsDir()):
		// A lock file, there or not (ErrNoLock names it), or a symlink or other
		// entry in its place, which Release and Renew refuse to follow.
		return lockcore.ExistingLockPath(p), nil
	case lerr == nil && !lst.IsDir():
		// A symlink to a directory is that DIR; anything else is not a lock file.
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			return "", guard.Fail(guard.BadInput, "%s: %s is not a lock file", cmd, p)
		}
	}
	kind, err := n.kind()
	if err != nil {
		return "", err
	}
	spec := lockcore.Spec{Dir: p, Kind: kind, Scope: n.Scope, TeamHost: n.Team, Owner: "x", NotBefore: n.Until, ReleaseCondition: "x"}
	if kind == lockcore.Until {
		spec.NotBefore = "2000-01-01"
	}
	if err := spec.Validate(); err != nil {
		return "", guard.Fail(guard.BadInput, "%s: %w", cmd, err)
	}
	return lockcore.ExistingLockPath(spec.Path()), nil
}

// otherLocks lists the locks beside path, for a "no such lock" message that shows
// which naming flags were probably meant.
func otherLocks(path string) string {
	locks, err := lockcore.ReadDir(filepath.Dir(path), nil)
	if err != nil || len(locks) == 0 {
		return ""
	}
	var names []string
	for _, l := range locks {
		names = append(names, fmt.Sprintf("%s (%s)", l.File, l.Owner))
	}
	return "; locks here: " + strings.Join(names, ", ")
}
