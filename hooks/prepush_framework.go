package hooks

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// frameworkRest covers what the pre-commit framework leaves out. It tells its hooks
// about the first ref of a push only (pre-commit 3.0.4 to 4.6: hook_impl's
// _pre_push_ns returns at the first ref line with something to push), so a second
// pushed ref would go unchecked. guard cannot learn which other refs are pushed, so it
// checks every commit that a local branch, tag or HEAD has and that neither the
// remote nor the described ref has: anything a push could publish from a ref. If
// that is clean the push is judged in full; if not, the push is refused (fail
// closed) with the reason.
func (s *session) frameworkRest(ctx context.Context, remote string, described RefUpdate) (check, error) {
	revs := []string{"--branches", "--tags"}
	if _, err := s.git.Line(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err == nil {
		revs = append(revs, "HEAD")
	}
	rt, err := trustedRemoteTips(ctx, s.git, remote, s.commonDir())
	if err != nil {
		return check{}, fmt.Errorf("reading what %s already has: %w", remote, err)
	}
	revs = append(revs, "--not")
	revs = append(revs, rt.tips...)
	if !described.Deletion() {
		revs = append(revs, described.LocalSHA)
	}
	ops := []string{guard.OpPush}
	c := check{what: "local commits that " + remote + " lacks", ref: "(refs the pre-commit framework did not name)", ops: ops,
		note: fmt.Sprintf("the pre-commit framework names only the first ref of a push to its hooks (here %s), and local branches or tags that %s lacks carry the commits refused above; guard cannot tell whether this push includes them, so it refuses (fail closed). "+
			"Let guard's own pre-push hook see every ref (`guard install --hooks pre-push`; pre-commit keeps it as pre-push.legacy, or guard keeps pre-commit's as pre-push.pre-guard), or push after those commits are fixed", described, remote)}
	cc := s.commitCheck(ops, false, false)
	if err := cc.Check(nil); err != nil {
		return c, err
	}
	if err := s.checkPublished(ctx, cc, &c, revs, "", ""); err != nil {
		return c, fmt.Errorf("local commits that %s lacks: %w", remote, err)
	}
	c.dec = cc.Decision()
	if !c.dec.Allowed {
		if refs := s.unpublishedRefs(ctx, revs[slices.Index(revs, "--not"):]); len(refs) > 0 {
			c.note += "; local refs with commits " + remote + " lacks: " + strings.Join(refs, ", ")
		}
		if len(rt.distrusted) > 0 {
			c.note += "; " + (&pushBase{distrusted: rt.distrusted}).note(remote)
		}
	}
	return c, nil
}

// unpublishedRefs names the local branches and tags (at most maxNamedRefs) that have
// commits outside exclude (`--not ...`), to tell the user which refs frameworkRest
// refused for. It is asked only after a refusal; a git error names nothing.
func (s *session) unpublishedRefs(ctx context.Context, exclude []string) []string {
	const maxNamedRefs = 20
	out, err := s.git.Run(ctx, "for-each-ref", "--format=%(refname)", "refs/heads", "refs/tags")
	if err != nil {
		return nil
	}
	var named []string
	for i, ref := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if ref == "" || i >= 10*maxNamedRefs {
			break
		}
		args := append([]string{"rev-list", "-1", ref}, exclude...)
		if line, err := s.git.Line(ctx, append(args, "--")...); err == nil && line != "" {
			named = append(named, strings.TrimPrefix(ref, "refs/heads/"))
			if len(named) == maxNamedRefs {
				break
			}
		}
	}
	return named
}

// frameworkRef builds the pushed ref from the pre-commit framework's variables:
// PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF (the remote's commit, or the parent of the
// first commit it lacks), or, when the framework gives no commits (it pushes a branch
// whose root is new to the remote), PRE_COMMIT_LOCAL_BRANCH as a new ref: everything
// the remote does not have yet.
func frameworkRef(ctx context.Context, env *guard.Env, g gitrun.Git) (RefUpdate, error) {
	zero := strings.Repeat("0", 40)
	u := RefUpdate{
		LocalRef: env.Env("PRE_COMMIT_LOCAL_BRANCH"), LocalSHA: env.Env("PRE_COMMIT_TO_REF"),
		RemoteRef: env.Env("PRE_COMMIT_REMOTE_BRANCH"), RemoteSHA: env.Env("PRE_COMMIT_FROM_REF"),
	}
	if u.LocalSHA == "" {
		local := u.LocalRef
		if local == "" {
			local = "HEAD"
		}
		tip, err := g.Line(ctx, "rev-parse", "--verify", "--end-of-options", local+"^{commit}")
		if err != nil {
			return RefUpdate{}, fmt.Errorf("pre-commit framework: PRE_COMMIT_LOCAL_BRANCH %q is not a commit here: %w", local, err)
		}
		u.LocalSHA, u.RemoteSHA = tip, zero
	}
	if u.RemoteSHA == "" {
		u.RemoteSHA = zero
	}
	if u.LocalRef == "" {
		u.LocalRef = "HEAD"
	}
	if u.RemoteRef == "" {
		u.RemoteRef = u.LocalRef
	}
	if !isHex(u.LocalSHA) || !isHex(u.RemoteSHA) {
		return RefUpdate{}, fmt.Errorf("pre-commit framework variables: PRE_COMMIT_TO_REF %q / PRE_COMMIT_FROM_REF %q are not object names", u.LocalSHA, u.RemoteSHA)
	}
	return u, nil
}
