package hooks

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// PushRange returns the `git log` revisions whose commits the update would publish:
// remote..local when this repository has the remote's commit (the remote's own word,
// from git's stdin); for a new ref, or a remote commit unknown here, the local tip's
// history minus base, the tips counted as already on the remote (see
// trustedRemoteTips: never a remote-tracking ref on its name alone). A deletion
// publishes no commit (nil).
func PushRange(u RefUpdate, haveRemote bool, base []string) []string {
	switch {
	case u.Deletion():
		return nil
	case !u.NewRef() && haveRemote:
		return []string{u.LocalSHA, "--not", u.RemoteSHA}
	case len(base) == 0:
		return []string{u.LocalSHA}
	default:
		return append([]string{u.LocalSHA, "--not"}, base...)
	}
}

// RunPrePush is `guard hook pre-push REMOTE URL`: for every ref line on stdin, every
// path changed by every commit the push would publish is checked for push (and
// release-tag for tags); a deletion, and any tag, is also checked at the repository
// root; a publication marker in a pushed tree or added by a pushed commit is refused
// (guard.CommittedMarker). Run by the pre-commit framework (no REMOTE), the push is
// described by PRE_COMMIT_* variables instead, which name one ref only; see
// frameworkRest.
//
// vis (nil: none) is the visibility check that runs after the lock checks (cmd/guard
// wires in audit.PushVisibility): its refusal is the hook's like any other, with
// one bypass rule and one record.
func RunPrePush(ctx context.Context, env *guard.Env, remote, url string, stdin io.Reader, vis Visibility) error {
	o := outcome{hook: guard.GatePrePush, remote: remote, url: url}
	err := recovered(func() error {
		if err := prePush(ctx, env, remote, stdin, &o); err != nil {
			return err
		}
		return checkVisibility(ctx, env, vis, &o)
	})
	return finish(ctx, env, o, err)
}

// Visibility is the pre-push check of the remote's visibility against PRIVATE.txt:
// given the working tree's top, the common git directory ("" when not known yet) and
// the push URL, it returns a warning to show, or the refusal (an outcome Refused, its
// message the explanation), or an error it could not judge past.
type Visibility func(ctx context.Context, top, commonDir, url string) (warning string, err error)

// checkVisibility runs vis for the push in o and adds its refusal to o's checks.
func checkVisibility(ctx context.Context, env *guard.Env, vis Visibility, o *outcome) error {
	top := o.repo.Top
	if vis == nil || top == "" {
		return nil
	}
	warning, err := vis(ctx, top, o.repo.CommonDir, o.url)
	if warning != "" {
		fmt.Fprintln(env.Stderr, warning)
	}
	if err == nil || guard.OutcomeOf(err) != guard.Refused {
		return err
	}
	o.checks = append(o.checks, check{what: "the push to " + o.url, ops: []string{guard.OpPush},
		dec: &guard.Decision{Ops: []string{guard.OpPush}, Blocking: []guard.Block{{Path: top, Reason: err.Error()}}}})
	return nil
}

func prePush(ctx context.Context, env *guard.Env, remote string, stdin io.Reader, o *outcome) error {
	// The session (git rev-parse) and the cat-file below run at the same time; the
	// session is waited for even when the input is unreadable, so that such an error
	// can still be bypassed with a record in the repository's log.
	type opened struct {
		s   *session
		err error
	}
	sc := make(chan opened, 1)
	go func() {
		var s *session
		err := recovered(func() (err error) {
			s, err = openSession(ctx, env)
			return err
		})
		sc <- opened{s, err}
	}()
	session := func() (*session, error) {
		r := <-sc
		sc <- r
		if r.err != nil {
			return nil, r.err
		}
		o.repo, o.id = r.s.repo, r.s.id
		return r.s, nil
	}
	g := gitrun.New(env.Dir, env.Env)
	fromFramework := remote == ""
	var ups []RefUpdate
	var err error
	if fromFramework {
		// The pre-commit framework runs pre-push hooks without git's arguments and
		// stdin; it describes the push in PRE_COMMIT_* variables instead.
		remote = env.Env("PRE_COMMIT_REMOTE_NAME")
		if remote == "" {
			_, _ = session()
			return fmt.Errorf("no remote: git passes REMOTE and URL to pre-push hooks (and the pre-commit framework PRE_COMMIT_REMOTE_NAME)")
		}
		o.remote, o.url = remote, env.Env("PRE_COMMIT_REMOTE_URL")
		u, err := frameworkRef(ctx, env, g)
		if err != nil {
			_, _ = session()
			return err
		}
		ups = []RefUpdate{u}
	} else if ups, err = ParseRefLines(stdin); err != nil {
		if _, serr := session(); serr != nil {
			return serr
		}
		return err
	} else if len(ups) == 0 {
		// git itself always describes a push on stdin; a hook manager that drops it
		// (lefthook without use_stdin: true) would make every push pass unchecked.
		fmt.Fprintln(env.Stderr, "guard: warning: pre-push got no ref lines on stdin, so no pushed path was checked; a hook manager must pass git's stdin through (lefthook: use_stdin: true)")
	}
	// One cat-file for the whole push: which pushed objects exist here (a local
	// object that does not is a push guard cannot judge), which remote commits this
	// repository has (an update can then be remote..local), and which pushed objects
	// are commits (a tag of a tree or a blob publishes no history of its own).
	var shas []string
	for _, u := range ups {
		if !u.Deletion() {
			shas = append(shas, u.LocalSHA)
			if !u.NewRef() {
				shas = append(shas, u.RemoteSHA)
			}
		}
	}
	have, herr := lookObjects(ctx, g, shas)
	s, err := session()
	if err != nil {
		return err
	}
	if herr != nil {
		return herr
	}
	// What the remote has, for new refs: asked once, and only when a push needs it.
	var base *pushBase
	baseFor := func() (*pushBase, error) {
		if base != nil {
			return base, nil
		}
		rt, err := trustedRemoteTips(ctx, s.git, remote, s.commonDir())
		if err != nil {
			return nil, fmt.Errorf("reading what %s already has: %w", remote, err)
		}
		base = &pushBase{distrusted: rt.distrusted}
		seen := map[string]bool{}
		add := func(sha string) {
			if !seen[sha] {
				seen[sha] = true
				base.tips = append(base.tips, sha)
			}
		}
		for _, u := range ups {
			if !u.NewRef() && have.commit[u.RemoteSHA] {
				add(u.RemoteSHA)
			}
		}
		for _, t := range rt.tips {
			add(t)
		}
		return base, nil
	}
	for i, u := range ups {
		if !u.Deletion() && !have.exists[u.LocalSHA] {
			return fmt.Errorf("%s: the pushed object %s does not exist in this repository, so guard cannot tell what the push would publish (run `git fsck`, or push a ref that exists)", u, u.LocalSHA)
		}
		ops := []string{guard.OpPush}
		if u.Tag() {
			ops = append(ops, guard.OpReleaseTag)
		}
		c := check{what: u.String(), ref: u.String(), ops: ops}
		// The first question carries the repository-wide path (a deletion, a tag)
		// and, once per push, the caller's fence.
		cc := s.commitCheck(ops, u.Deletion() || u.Tag(), i == 0)
		if err := cc.Check(nil); err != nil {
			return err
		}
		if u.Deletion() || u.Tag() {
			c.paths = append(c.paths, s.root())
		}
		// What a forced update would drop is asked of git while the pushed range
		// is checked (git only: the policy is judged after, on this goroutine).
		dropc := s.startDropped(ctx, u, have)
		var tips []string
		fromBase := !u.Deletion() && have.commit[u.LocalSHA] && (u.NewRef() || !have.commit[u.RemoteSHA])
		if fromBase {
			b, err := baseFor()
			if err != nil {
				return err
			}
			tips = b.tips
		}
		if revs := PushRange(u, have.commit[u.RemoteSHA], tips); revs != nil && have.commit[u.LocalSHA] {
			prev := ""
			if !u.NewRef() && have.commit[u.RemoteSHA] {
				prev = u.RemoteSHA
			}
			if err := s.checkPublished(ctx, cc, &c, revs, u.LocalSHA, prev); err != nil {
				return fmt.Errorf("%s: %w", u, err)
			}
		}
		c.dec = cc.Decision()
		if fromBase && !c.dec.Allowed && len(base.distrusted) > 0 {
			c.note = base.note(remote)
		}
		o.checks = append(o.checks, c)
		dropped, err := s.checkDropped(u, remote, have, dropc)
		if err != nil {
			return fmt.Errorf("%s: %w", u, err)
		}
		if dropped != nil {
			o.checks = append(o.checks, *dropped)
		}
	}
	if fromFramework && len(ups) == 1 {
		c, err := s.frameworkRest(ctx, remote, ups[0])
		if err != nil {
			return err
		}
		o.checks = append(o.checks, c)
	}
	return nil
}

// checkPublished hands cc every path that `git log revs` changes (in batches, while
// git is still walking history, judged by the session's parallel policies), and the
// publication markers the push would publish: in the tree of tip (a commit; "" for
// none) and added by a commit of revs. A lock file of prev (the remote's tip, "" for a
// new ref) that revs change and tip's tree no longer holds binds the push too, as on
// the server (guard.CommitCheck.Before). c gets the paths, for the bypass log.
func (s *session) checkPublished(ctx context.Context, cc *guard.CommitCheck, c *check, revs []string, tip, prev string) error {
	var waitTree func() ([]foundMarker, error)
	if tip != "" {
		var err error
		if waitTree, err = startTreeMarkers(ctx, s.git, tip); err != nil {
			return err
		}
	}
	pc := s.startParallel(c.ops)
	sawMarker := false
	var gone []string // the lock files the range changes, which it may delete
	err := gitrun.LogPathsFunc(ctx, s.git, revs, func(batch []string) error {
		for _, p := range batch {
			sawMarker = sawMarker || guard.IsMarkerName(p)
			if prev != "" && guard.MayBindOnceGone(p) {
				gone = append(gone, p)
			}
		}
		abs := s.abs(batch)
		pc.add(abs)
		c.paths = append(c.paths, abs...)
		return nil
	})
	if werr := pc.wait(cc.Locks()); err == nil {
		err = werr
	}
	if err == nil && len(gone) > 0 {
		var files []gitrun.TreeFile
		if files, err = gitrun.GoneFiles(ctx, s.git, []string{prev}, tip, gone, guard.TreeLockBound); err == nil {
			err = cc.Before(prev, files, c.paths)
		}
	}
	var found []foundMarker
	if waitTree != nil {
		tree, terr := waitTree()
		if err == nil {
			err = terr
		}
		found = tree
	}
	if err != nil {
		return err
	}
	// Only a range that touched a marker-named path needs the second look, which
	// tells an added marker from a removed one.
	if sawMarker {
		inRange, err := rangeMarkers(ctx, s.git, revs, found)
		if err != nil {
			return err
		}
		found = append(found, inRange...)
	}
	for _, m := range found {
		cc.Name(m.rel, s.abs([]string{m.rel})[0], m.place, guard.Changed)
	}
	return nil
}

// pushBase is what a push counts as already on the remote for its new refs: the tips
// (the old values of the push's other refs, and the trusted remote-tracking refs) and
// the tracking refs it did not trust, with why.
type pushBase struct {
	tips       []string
	distrusted []string
}

// note explains, for a refused new ref, which remote-tracking refs were not counted.
func (b *pushBase) note(remote string) string {
	const most = 5
	named := b.distrusted
	more := ""
	if len(named) > most {
		more = fmt.Sprintf(" and %d more", len(named)-most)
		named = named[:most]
	}
	return fmt.Sprintf("guard did not count these remote-tracking refs as what %s has, so the commits behind them were checked as new: %s%s. "+
		"A remote-tracking ref counts when git's own fetch from %s, clone or push wrote its present value (its reflog says so) and no other remote's fetch refspec maps to it; "+
		"to have a genuine one count again: git update-ref -d <ref> && git fetch %s", remote, strings.Join(named, "; "), more, remote, remote)
}

// commonDir is the repository's common git directory: git's answer when the session
// asked git, else read from the working tree's .git (a hook git started in its own
// working tree, hookRepo), "" when neither knows (trustedRemoteTips then asks git).
func (s *session) commonDir() string {
	if s.repo.CommonDir != "" {
		return s.repo.CommonDir
	}
	if s.repo.Top != "" {
		return gitrun.CommonDir(s.repo.Top)
	}
	return ""
}
