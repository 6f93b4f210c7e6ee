package guard

import (
	"fmt"
	"path"
	"path/filepath"

	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
)

// A lock file committed in the tree a change starts from binds the change even when
// the change deletes it: the lock bound every clone until then, and the server judges
// a push by the tree the ref had (its scratch tree holds the lock files the pushed
// tree no longer has). A client gate reads its locks from the working tree or the
// checkout, where such a lock is gone; it hands the policy the lock as git still has
// it instead (CommitCheck.Before), and every gate then gives the server's answer.

// TreeLockBound is the most guard reads of one lock-named blob from git: a lock file
// is a few lines, and a committed 1 GB file named LOCK.txt must not be read into
// memory. A larger one stands for a lock guard cannot read (TooLargeLockBody).
const TreeLockBound = 1 << 20

// TooLargeLockBody stands in for a lock-named blob larger than TreeLockBound: no lock
// guard can read, so it holds for everyone (fail closed), as on the server.
var TooLargeLockBody = []byte("this lock file is too large for guard to read\n")

// MayBindOnceGone reports whether rel (slash-separated, from the top), should a change
// take it away, is a lock file whose committed content still binds that change: the
// names a gate asks git about (CommitCheck.Before).
func MayBindOnceGone(rel string) bool { return lockcore.IsLockName(path.Base(rel)) }

// Before judges the change again against the lock files that the commit it starts
// from (commit: HEAD for a commit, the remote's tip for a push, the range's base for
// guard ci) holds and the change takes away, read from git by the gate (files, named
// from the check's Root; gitrun.GoneFiles finds them among the names MayBindOnceGone
// accepts). Each binds the change as a lock file in the working tree would (its
// owner, its expiry, its operations, at the check's moment), so the refusals name it
// and say it is committed. paths are the change's paths, absolute, as Stream or Check
// got them. It adds to the decision; call it before Decision.
func (c *CommitCheck) Before(commit string, files []gitrun.TreeFile, paths []string) error {
	if len(files) == 0 {
		return nil
	}
	p := c.policy.withTreeLocks(c.q.Root, files)
	req := c.request()
	req.Fence, req.FenceFile = "", "" // judged once, by the first look
	req.Paths = append(append([]string{}, paths...), req.Paths...)
	d, err := p.Check(req)
	if err != nil {
		return err
	}
	for i, b := range d.Blocking {
		if b.Lock == nil {
			continue
		}
		d.Blocking[i].Reason = b.Reason + fmt.Sprintf("; the lock is committed in %s and this change deletes it, which does not release it", gitrun.Short(commit))
		d.Blocking[i].WayOut = fmt.Sprintf("ask %s to release it: it holds until a commit of theirs deletes it (`guard unlock %s` in their clone, then a commit); deleting it in your own change does not release it",
			orUnknown(b.Lock.Owner), b.Lock.Path)
	}
	dec := c.Locks()
	for _, b := range d.Blocking {
		if !dec.blocks(b) {
			dec.Blocking = append(dec.Blocking, b)
		}
	}
	dec.Merge(&Decision{Allowed: len(d.Blocking) == 0, Warnings: d.Warnings})
	return nil
}

// blocks reports whether d already refuses b's path for b's lock (the lock file is
// still in the working tree too).
func (d *Decision) blocks(b Block) bool {
	for _, o := range d.Blocking {
		if o.Path == b.Path && o.Lock != nil && b.Lock != nil && o.Lock.Path == b.Lock.Path {
			return true
		}
	}
	return false
}

// withTreeLocks is a policy of p's identity, moment and configuration that sees the
// lock files files (from a commit's tree, named from root) and no other: each folder
// is still listed (for its entries' types), but its locks are those of files; no
// backend is asked.
func (p *Policy) withTreeLocks(root string, files []gitrun.TreeFile) *Policy {
	q := *p
	q.dirs, q.views, q.lastViewDir, q.lastView = map[string]dirLocks{}, map[string]*dirView{}, "", nil
	q.treeLocks = map[string][]*lockcore.Lock{}
	for _, f := range files {
		abs := filepath.Join(root, filepath.FromSlash(f.Path))
		body := f.Data
		if f.Large {
			body = TooLargeLockBody
		}
		if len(body) > lockcore.MaxLockFileSize {
			body = body[:lockcore.MaxLockFileSize] // what reading the file would take of it
		}
		// The file's time is now, as for the server's scratch copy: a lock without a
		// readable created field is as fresh as the file git would write.
		l, err := lockcore.ParseLock(abs, body, p.now, p.loc)
		if err != nil {
			continue // not a lock name
		}
		q.treeLocks[l.Dir] = append(q.treeLocks[l.Dir], l)
	}
	return &q
}

// settle is what the policy takes of a directory's listing: its lock files with the
// backend's locks merged in (withBackend) or, for a policy made by withTreeLocks, the
// tree's locks of that directory alone.
func (p *Policy) settle(dir string, dl dirLocks) dirLocks {
	if p.treeLocks != nil {
		dl.locks, dl.err = p.treeLocks[dir], nil // an unreadable folder: the first look refused it
		return dl
	}
	return p.withBackend(dir, dl)
}
