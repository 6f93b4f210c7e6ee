package agent

import (
	"context"
	"errors"
	"fmt"
	"github.com/guardlocks/guard/guard"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
)

// Claim on write (guard agent-hook --claim, or [agent] claim = true in .guard.toml)
// lets parallel agents see each other without any cooperation from them:
//
//   - The area of a written path is its top-level folder in the repository: the first
//     folder below the repository root on the way to the path (src/ for
//     src/pkg/a.go). Files directly in the root, paths outside a repository, and
//     folders that do not exist yet claim nothing (a lease on the root would lock the
//     whole repository; the next write into a new folder claims it).
//   - If a team lock of the agent's own host covers the path, the agent checks the
//     file into that lock's FILE-CLAIMS instead (the policy then stops the team's other
//     agents from writing it).
//   - Otherwise, if no active lock covers the area, the agent takes a lease: LOCK.txt
//     in the area, owned by its identity, expires_after [agent] claim_expires (default
//     30m), purpose starting with LeasePurpose. Later writes renew it once a quarter
//     of its lifetime has passed. An area someone already holds (the agent included,
//     through a lock that is not a lease) is left alone.
//   - `guard agent-release` removes the identity's leases in the repository (given a
//     session, those whose purpose names that session or none: agents sharing one
//     GUARD_OWNER end their sessions apart) and releases its team-lock file claims;
//     leases otherwise simply expire.

// LeasePurpose starts the purpose of every lease lock, so that agent-release removes
// leases only, never a lock the agent's owner took by hand.
const LeasePurpose = "agent lease (guard agent-hook --claim)"

// DefaultLeaseExpiry is a lease's lifetime when .guard.toml does not set one.
const DefaultLeaseExpiry = "30m"

// claim claims the areas of the written paths; it only warns when it cannot.
func (d *decider) claim() []string {
	var done []string
	seen := map[string]bool{}
	for _, p := range d.written {
		res, err := d.claimPath(p, seen)
		if err != nil {
			d.warn(fmt.Sprintf("could not claim %s: %v", p, err))
			continue
		}
		if res != "" {
			done = append(done, res)
		}
	}
	return done
}

func (d *decider) claimPath(p string, seen map[string]bool) (string, error) {
	if team := d.ownTeamLock(p); team != nil {
		return d.teamClaim(team, p)
	}
	area, ok := leaseArea(p)
	if !ok || seen[area] {
		return "", nil
	}
	seen[area] = true
	if st, err := os.Stat(area); err != nil || !st.IsDir() {
		return "", nil
	}
	locks, errs := d.policy.Covering(area)
	if len(errs) > 0 {
		return "", errs[0]
	}
	now := d.policy.Now()
	for _, l := range locks {
		if !isLeaseOf(l, d.id.Owner) || l.Dir != area {
			// Held already (by someone, or by the agent through a lock of its own).
			return "", nil
		}
		return d.renewLease(l, now)
	}
	expires := d.cfg.Agent.ClaimExpires
	if expires == "" {
		expires = DefaultLeaseExpiry
	}
	spec := lockcore.Spec{
		Dir: area, Kind: lockcore.Exclusive, Owner: d.id.Owner, Host: d.id.Host, Expires: expires,
		Purpose: fmt.Sprintf("%s: %s session %s writes here; guard agent-release (or expiry) frees it", LeasePurpose, d.call.Agent, orDash(d.call.SessionID)),
	}
	h, err := d.lease(spec)
	if err != nil {
		var conflict *lockcore.ConflictError
		var queued *lockcore.QueueError
		if errors.As(err, &conflict) || errors.As(err, &queued) {
			// Someone got there first (their lock now speaks for the area), or guard
			// waiters queue for it: a lease does not cut in front of them.
			return "", nil
		}
		return "", err
	}
	got := h.Acquired()
	return fmt.Sprintf("%s (%s, expires after %s)", got.Path, got.Action, expires), nil
}

// lease claims spec on guard lock's own path (Policy.ClaimRequest through the
// project's Locker: the lock files, or a backend first): RESPECT as guard lock asks it, so a lock above, beside or inside
// the area stops the claim (the write itself was judged already). The lease is not
// held by this process beyond the call: it lives on in its file until it expires
// or agent-release removes it.
func (d *decider) lease(spec lockcore.Spec) (lockcore.Handle, error) {
	// A project with a backend claims there first, as guard lock does.
	subject, err := d.subjects().Resolve(spec.Dir, guard.Identity{})
	if err != nil {
		return nil, err
	}
	pb, err := guard.SubjectBackend(d.env, subject)
	if err != nil {
		return nil, err
	}
	locker, err := guard.LockerFor(d.env, pb)
	if err != nil {
		return nil, err
	}
	return locker.Acquire(context.Background(), d.policy.ClaimRequest(spec, false))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// renewLease moves an own lease's created to now once a quarter of its lifetime has
// passed (renewing on every write would rewrite the file on every tool call).
func (d *decider) renewLease(l *lockcore.Lock, now time.Time) (string, error) {
	at, ok := l.ExpiresAt()
	if !ok || at.Sub(now) > l.ExpiresAfter*3/4 {
		return "", nil
	}
	if _, err := lockcore.Renew(l.Path, d.id.Owner, "", now, now.Location()); err != nil {
		return "", err
	}
	return l.Path + " (renewed)", nil
}

// isLeaseOf reports whether l is a lease that owner took by claiming on write.
func isLeaseOf(l *lockcore.Lock, owner string) bool {
	return l.ReadErr == nil && l.Owner == owner && l.Kind == lockcore.Exclusive &&
		strings.HasPrefix(l.Purpose, LeasePurpose)
}

// leaseArea returns the top-level folder of the repository that holds p.
func leaseArea(p string) (string, bool) {
	root := gitrun.RepoTop(filepath.Dir(p))
	if root == "" {
		return "", false
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	first, _, found := strings.Cut(filepath.ToSlash(rel), "/")
	if !found || first == ".git" {
		return "", false // a file directly in the root
	}
	return filepath.Join(root, first), true
}

// ownTeamLock returns an active team lock of the agent's own host that covers p.
func (d *decider) ownTeamLock(p string) *lockcore.Lock {
	locks, _ := d.policy.Covering(dirOf(p))
	for _, l := range locks {
		if l.Kind == lockcore.Team && l.Name.Host != "" && strings.EqualFold(l.Name.Host, d.id.Host) && l.ReadErr == nil {
			return l
		}
	}
	return nil
}

// teamClaim records p in the team lock's FILE-CLAIMS for the agent.
func (d *decider) teamClaim(team *lockcore.Lock, p string) (string, error) {
	rel, err := filepath.Rel(team.Dir, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", nil
	}
	rel = filepath.ToSlash(rel)
	tl, err := lockcore.ReadTeamLock(team.Path)
	if err != nil {
		return "", err
	}
	for _, b := range tl.FileClaims {
		if b.Active() && strings.EqualFold(b.Agent, d.id.Owner) {
			for _, r := range b.Resources {
				if r == rel || strings.HasPrefix(rel, r+"/") {
					return "", nil // already claimed
				}
			}
		}
	}
	op := lockcore.TeamOp{Action: lockcore.TeamClaim, Agent: d.id.Owner, Section: lockcore.SectionFileClaims, Resources: []string{rel}}
	if _, err := lockcore.UpdateTeamLock(team.Path, d.policy.Now(), op, lockcore.TeamUpdateOptions{}); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s in %s (team file claim)", rel, team.Path), nil
}
