package guard

import "github.com/guardlocks/guard/lockcore"

// ClaimRequest is a folder claim as guard makes it everywhere (guard lock, guard run,
// an agent's claim on write), for lockcore.Files or another Locker: RESPECT asked by
// p.CheckClaim at every attempt, under the creation mutex of the claim's repository
// (ClaimMutexDir), at the moments env's clock gives. The caller adds what is its own
// (a wait, progress reports).
func (p *Policy) ClaimRequest(spec lockcore.Spec, force bool) lockcore.Request {
	return lockcore.Request{
		Spec:    spec,
		Options: lockcore.AcquireOptions{Force: force, Respect: p.CheckClaim, MutexDir: ClaimMutexDir(spec.Dir)},
		Clock:   p.env.Clock,
	}
}

// ResourceClaimRequest is ClaimRequest for a resource lock (guard lock --resource):
// the resources' RESPECT (CheckResourceClaim), under the resources directory's own
// creation mutex.
func (p *Policy) ResourceClaimRequest(spec lockcore.Spec, force bool) lockcore.Request {
	return lockcore.Request{
		Spec:    spec,
		Options: lockcore.AcquireOptions{Force: force, Respect: p.CheckResourceClaim},
		Clock:   p.env.Clock,
	}
}
