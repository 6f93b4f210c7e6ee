package guard

import (
	"fmt"
	"path"
	"slices"

	"github.com/guardlocks/guard/lockcore"
)

// Commit is one question a commit or push gate asks: the staged changes of a commit
// (pre-commit, pre-merge-commit), one pushed ref (pre-push, pre-receive, update), one
// operation over a CI range (guard ci).
type Commit struct {
	// Gate is the gate that asks (GatePreCommit, GatePrePush, GatePreReceive, GateCI ...).
	Gate string
	// Ops are the operations the change performs: commit; push, and release-tag for a
	// tag.
	Ops []string
	// Root is the top of the working tree the paths lie under (on a server, the
	// scratch tree that stands in for one): where a repository-wide change is judged.
	Root string
	// Whole says the change is repository-wide (a tag, a deletion, a CI tag build):
	// Root itself is judged for Ops too.
	Whole bool
	// Descend makes Root, when Whole, collide with every lock inside it too: the change
	// may touch anything (a forced push replacing commits guard cannot see).
	Descend bool
	// Fence and FenceFile are the writer's LOCK_FENCE and LOCK_FENCE_FILE (a gate run
	// in the holder's environment asks them once; ci and the server have none).
	Fence, FenceFile string
	// Server is the server's configuration for the server's gates (its [server]
	// visibility), nil on a client.
	Server *Config
}

// Change is how a path changes in what a gate judges.
type Change byte

const (
	// Changed: the path is added or modified, or found in a tree or history.
	Changed Change = iota
	// Added: the path is new in the index (a lock file staged for the first time).
	Added
	// Removed: the change takes the path away (removing a committed marker repairs it).
	Removed
)

// CommitCheck is the one answer to "may these paths be committed or pushed?" for
// pre-commit, pre-merge-commit, pre-push, pre-receive, update and `guard ci`. The
// gate gathers from git what the change touches and hands it in; CommitCheck decides
// everything else: the locks (Stream, Check: the Policy), the committed-marker rule
// (CommittedMarker) and, on a public server, PRIVATE.txt (PrivateOnPublic) for the
// names it is given (Name), the warning on a lock file staged for commit; and
// JudgeCommit then decides, over all of a gate's questions, whether a bypass lets a
// refusal through.
//
// Name may run on one goroutine while Stream or Check runs on another (a hook judges
// names as git prints them); Merge and Decision come after both.
type CommitCheck struct {
	q      Commit
	policy *Policy
	dec    *Decision
	// named are the refusals and warnings that come from a path's name alone.
	named    []Block
	warnings []string
	done     bool
}

// CommitCheck starts the answer to q, judged by p (for p's identity, at p's moment).
func (p *Policy) CommitCheck(q Commit) *CommitCheck {
	return &CommitCheck{q: q, policy: p}
}

// Policy is the policy the check judges locks with.
func (c *CommitCheck) Policy() *Policy { return c.policy }

// request is the question about the locks, with the repository-wide path and the
// fence when the change has them.
func (c *CommitCheck) request() Request {
	req := Request{Ops: c.q.Ops, RepoRoot: c.q.Root, Fence: c.q.Fence, FenceFile: c.q.FenceFile}
	if c.q.Whole {
		req.Paths, req.Descend = []string{c.q.Root}, c.q.Descend
	}
	return req
}

// Stream judges, for the locks, the paths that arrive on paths (absolute, in batches
// as git prints them), the repository-wide path and the fence included; it reads paths
// to its end. The error is the policy's (an unreadable backend: exit 2).
func (c *CommitCheck) Stream(paths <-chan []string) error {
	d, err := c.policy.CheckStream(c.request(), paths)
	c.Merge(d)
	return err
}

// Check is Stream for paths known at once (the repository-wide path after them).
func (c *CommitCheck) Check(paths []string) error {
	req := c.request()
	req.Paths = append(slices.Clip(paths), req.Paths...)
	d, err := c.policy.Check(req)
	c.Merge(d)
	return err
}

// Merge adds a decision about more paths of the same question, made by another Policy
// of the same identity (a parallel worker, the commits a forced update drops).
func (c *CommitCheck) Merge(d *Decision) {
	if d == nil {
		return
	}
	if c.dec == nil {
		c.dec = d
		return
	}
	c.dec.Merge(d)
}

// Name judges what the name of one path decides, with no lock directory read: rel is
// the path as git names it (slash-separated, from the top), abs where it is judged,
// place where the gate found it, ch how it changes. A publication marker is refused
// (CommittedMarker; and PRIVATE.txt on a server that marks the repository public); a
// lock file staged for the first time is committed with a warning: committed, it binds
// every clone and guard ci, which may be meant.
func (c *CommitCheck) Name(rel, abs string, place MarkerPlace, ch Change) {
	if reason, refused := CommittedMarker(rel, place, ch == Removed); refused {
		c.named = append(c.named, Block{Path: abs, Reason: reason})
	}
	if ch != Removed {
		if reason, refused := PrivateOnPublic(c.q.Server, rel); refused {
			c.named = append(c.named, Block{Path: abs, Reason: reason})
		}
	}
	if place == MarkerStaged && ch == Added && lockcore.IsLockName(path.Base(rel)) {
		c.warnings = append(c.warnings, fmt.Sprintf("committing the lock file %s: every clone and guard ci will see it as held; if it is meant to stay local, unstage it (git rm --cached -- %q) and add LOCK*.txt to .git/info/exclude", abs, rel))
	}
}

// Decision is the answer: the locks' decision with the names' refusals and warnings
// after it. It settles the check; ask it once the paths are all in.
func (c *CommitCheck) Decision() *Decision {
	if c.done {
		return c.dec
	}
	c.done = true
	c.Locks()
	if len(c.named) > 0 {
		c.dec.Blocking = append(c.dec.Blocking, c.named...)
		c.dec.Allowed = false
	}
	for _, w := range c.warnings {
		if !slices.Contains(c.dec.Warnings, w) {
			c.dec.Warnings = append(c.dec.Warnings, w)
		}
	}
	return c.dec
}

// Merge adds o's refusals and warnings to d (both from policies of one identity).
func (d *Decision) Merge(o *Decision) {
	d.Blocking = append(d.Blocking, o.Blocking...)
	for _, w := range o.Warnings {
		if !slices.Contains(d.Warnings, w) {
			d.Warnings = append(d.Warnings, w)
		}
	}
	d.Allowed = d.Allowed && o.Allowed
}

// Locks is the locks' decision so far (an allowed one before any path), for a caller
// that merges its own workers' decisions into it and orders them.
func (c *CommitCheck) Locks() *Decision {
	if c.dec == nil {
		ops := c.q.Ops
		if len(ops) == 0 {
			ops = []string{OpEdit}
		}
		c.dec = &Decision{Ops: ops, Allowed: true, now: c.policy.now}
	}
	return c.dec
}
