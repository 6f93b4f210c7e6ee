package guard

import (
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/lockcore"
)

// ClaimRequest is a folder claim as guard makes it everywhere (guard lock, guard run,
// an agent's claim on write), for lockcore.Files or another Locker: RESPECT asked by
// p.CheckClaim at every attempt, under the creation mutex of the claim's repository
// (ClaimMutexDir), at the moments env's clock gives, and the machine's one queue of
// waiters (QueueDir), in which waiters for overlapping areas (WaitersOverlap) keep
// one order and a claim that does not wait does not cut in front of them. The
// caller adds what is its own (a wait, progress reports).
func (p *Policy) ClaimRequest(spec lockcore.Spec, force bool) lockcore.Request {
	return lockcore.Request{
		Spec:     spec,
		Options:  lockcore.AcquireOptions{Force: force, Respect: p.CheckClaim, MutexDir: ClaimMutexDir(spec.Dir)},
		Clock:    p.env.Clock,
		QueueDir: QueueDir(p.env),
		Overlaps: p.WaitersOverlap,
	}
}

// ResourceClaimRequest is ClaimRequest for a resource lock (guard lock --resource):
// the resources' RESPECT (CheckResourceClaim), under the resources directory's own
// creation mutex; in the queue a resource overlaps only itself.
func (p *Policy) ResourceClaimRequest(spec lockcore.Spec, force bool) lockcore.Request {
	return lockcore.Request{
		Spec:     spec,
		Options:  lockcore.AcquireOptions{Force: force, Respect: p.CheckResourceClaim},
		Clock:    p.env.Clock,
		QueueDir: QueueDir(p.env),
		Overlaps: p.WaitersOverlap,
	}
}

// QueueDir is the one queue directory of the waiting claims of this user on this
// machine, StateDir/queue/claims ("" without a state directory: claims then wait
// unqueued).
func QueueDir(env *Env) string {
	state, err := StateDir(env)
	if err != nil {
		return ""
	}
	return filepath.Join(state, "queue", "claims")
}

// WaitersOverlap reports whether two claims want overlapping areas, as RESPECT would
// judge their locks: then the later of two waiters waits for the earlier, and a
// claim that does not wait is refused while the other waits. The same lock file; in
// one directory, scopes that overlap by name or a scope that covers the whole
// directory (no mapping, no folder: fail closed); a directory below the other
// claim's when that claim's area reaches it. Resource locks overlap only
// themselves.
func (p *Policy) WaitersOverlap(a, b lockcore.QueueClaim) bool {
	if strings.EqualFold(a.Path, b.Path) {
		return true
	}
	if a.Resource || b.Resource {
		return false
	}
	switch {
	case a.Dir == b.Dir:
		return lockcore.ScopesOverlap(a.Scope, b.Scope) ||
			p.ScopeCoversWholeDir(a.Dir, a.Scope) || p.ScopeCoversWholeDir(b.Dir, b.Scope)
	case within(b.Dir, a.Dir):
		return (&claimCheck{p: p, dir: a.Dir, scope: a.Scope}).reaches(b.Dir)
	case within(a.Dir, b.Dir):
		return (&claimCheck{p: p, dir: b.Dir, scope: b.Scope}).reaches(a.Dir)
	}
	return false
}
