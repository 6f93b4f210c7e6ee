package guard

import (
	"fmt"

	"github.com/guardlocks/guard/lockcore"
)

// fenceBlock applies the fencing rule: a holder that exported LOCK_FENCE and
// LOCK_FENCE_FILE must not write on once its lease was superseded.
func (p *Policy) fenceBlock(req Request) (Block, bool) {
	mk := func(reason string) (Block, bool) {
		return Block{Path: req.FenceFile, Reason: reason + "; you were superseded (or never held the lease): stop writing, re-acquire the lock with `guard lock`, then export the new LOCK_FENCE"}, true
	}
	switch {
	case req.Fence == "":
		return mk(fmt.Sprintf("LOCK_FENCE_FILE is set (%s) but LOCK_FENCE is not", req.FenceFile))
	case req.FenceFile == "":
		return mk("LOCK_FENCE is set but LOCK_FENCE_FILE is not")
	}
	file, _ := p.abs(req.FenceFile)
	root, _ := p.abs(req.RepoRoot)
	if req.RepoRoot != "" && !within(file, root) {
		return mk(fmt.Sprintf("LOCK_FENCE_FILE %s lies outside the repository being changed (%s)", file, req.RepoRoot))
	}
	state, why := lockcore.FenceStatus(file, req.Fence, p.now, p.loc)
	if state != lockcore.FenceHeld {
		return mk(fmt.Sprintf("fence %s on %s: %s", req.Fence, file, why))
	}
	// With a backend the file only follows: the grant is etcd's to confirm (a takeover
	// on another machine leaves this clone's file as it was).
	if why, ok := p.backendFence(file, req.Fence); !ok {
		return mk(fmt.Sprintf("fence %s on %s: %s", req.Fence, file, why))
	}
	return Block{}, false
}
