package hooks

import (
	"context"
	"fmt"

	"github.com/guardlocks/guard/guard"
)

// droppedResult is DroppedByUpdate's answer, from startDropped's goroutine.
type droppedResult struct {
	d   Dropped
	err error
}

// startDropped asks git, in the background, what the update would drop when this
// repository has both its commits (nil otherwise).
func (s *session) startDropped(ctx context.Context, u RefUpdate, have objects) <-chan droppedResult {
	if u.Deletion() || u.NewRef() || !have.commit[u.LocalSHA] || !have.commit[u.RemoteSHA] {
		return nil
	}
	c := make(chan droppedResult, 1)
	go func() {
		var r droppedResult
		r.err = recovered(func() (err error) {
			r.d, err = DroppedByUpdate(ctx, s.git, u.RemoteSHA, u.LocalSHA)
			return err
		})
		c <- r
	}()
	return c
}

// checkDropped is the forced-update rule (DroppedByUpdate, whose answer dropc brings):
// an update that moves the remote's ref off commits that changed another owner's
// locked area is refused. When the remote's old commit is not in this repository,
// guard cannot see what the update drops: it refuses only when a lock of another owner
// lies in the repository (the dropped commits could be in it), and says to fetch
// first. nil: nothing to add.
func (s *session) checkDropped(u RefUpdate, remote string, have objects, dropc <-chan droppedResult) (*check, error) {
	if u.Deletion() || u.NewRef() || !have.commit[u.LocalSHA] {
		return nil, nil
	}
	ops := []string{guard.OpPush}
	what := u.String() + " (a forced update)"
	if !have.commit[u.RemoteSHA] {
		if have.exists[u.RemoteSHA] {
			return nil, nil // the remote's ref is a tag of a tree or blob: no history dropped
		}
		cc := s.policy.CommitCheck(guard.Commit{Gate: guard.GatePrePush, Ops: ops, Root: s.root(), Whole: true, Descend: true})
		if err := cc.Check(nil); err != nil {
			return nil, err
		}
		dec := cc.Decision()
		if dec.Allowed {
			return nil, nil
		}
		return &check{what: what, ref: u.String(), ops: ops, paths: []string{s.root()}, dec: dec,
			note: fmt.Sprintf("%s's %s is at %s, which this repository does not have, so this push replaces commits guard cannot see; with the locks above in this repository they may be that owner's work. Fetch first (git fetch %s), then push again: guard then checks what the forced push drops",
				remote, u.RemoteRef, u.RemoteSHA, remote)}, nil
	}
	r := <-dropc
	if r.err != nil || len(r.d.Commits) == 0 {
		return nil, r.err
	}
	dec, err := JudgeDropped(s.policy.CommitCheck(guard.Commit{Gate: guard.GatePrePush, Ops: ops, Root: s.root()}), s.root(), r.d, s.mirrors...)
	if err != nil || dec.Allowed {
		return nil, err
	}
	return &check{what: what, ref: u.String(), ops: ops, paths: s.abs(r.d.Paths), dec: dec,
		note: fmt.Sprintf("this forced push drops %d commit(s) from %s's %s that changed the locked paths above (another owner's work would be lost). Rebase onto %s instead of replacing it (git pull --rebase %s), or ask the lock's owner",
			len(r.d.Commits), remote, u.RemoteRef, u.RemoteSHA, remote)}, nil
}
