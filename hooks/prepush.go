package hooks

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// RefUpdate is one line git gives a pre-push hook on stdin:
// `<local ref> SP <local sha> SP <remote ref> SP <remote sha>`.
type RefUpdate struct {
	LocalRef, LocalSHA, RemoteRef, RemoteSHA string
}

// Deletion reports whether the push deletes the remote ref (the local sha is zeros).
func (u RefUpdate) Deletion() bool { return isZero(u.LocalSHA) }

// NewRef reports whether the remote does not have the ref yet (the remote sha is zeros).
func (u RefUpdate) NewRef() bool { return isZero(u.RemoteSHA) }

// Tag reports whether a tag is pushed: pushing a tag is a release.
func (u RefUpdate) Tag() bool {
	return strings.HasPrefix(u.RemoteRef, "refs/tags/") || strings.HasPrefix(u.LocalRef, "refs/tags/")
}

// String names the update for messages and the bypass log: "<local ref> -> <remote
// ref>", or "delete <remote ref>".
func (u RefUpdate) String() string {
	if u.Deletion() {
		return "delete " + u.RemoteRef
	}
	return u.LocalRef + " -> " + u.RemoteRef
}

func isZero(sha string) bool { return strings.Trim(sha, "0") == "" }

func isHex(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ParseRefLines reads git's pre-push stdin. Blank lines are skipped; anything else
// that is not four fields with full object names is an error (a hook must not guess
// what it is asked to let through).
func ParseRefLines(r io.Reader) ([]RefUpdate, error) {
	var ups []RefUpdate
	err := scanHookLines(r, "pre-push input", func(n int, line string, f []string) error {
		if len(f) != 4 || f[0] == "" || f[2] == "" || !isHex(f[1]) || !isHex(f[3]) {
			return fmt.Errorf("pre-push input line %d: want `<local ref> <local sha> <remote ref> <remote sha>`, got %q", n, line)
		}
		ups = append(ups, RefUpdate{LocalRef: f[0], LocalSHA: f[1], RemoteRef: f[2], RemoteSHA: f[3]})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ups, nil
}

// scanHookLines reads the lines git gives a hook on stdin (pre-push, pre-receive,
// post-receive) and hands each non-blank one, numbered from 1, with its
// space-separated fields to line; the first error stops the reading. what names the
// input in a read error.
func scanHookLines(r io.Reader, what string, line func(n int, line string, fields []string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if err := line(n, l, strings.Split(l, " ")); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// objects is what this repository has of the objects a push names.
type objects struct {
	// exists: the object is in this repository, of any type.
	exists map[string]bool
	// commit: the object is, or peels to, a commit (an annotated tag of a commit
	// counts: pushing it publishes that commit's history).
	commit map[string]bool
}

// lookObjects asks, with one `git cat-file --batch-check`, which of the given object
// names this repository has and which peel to a commit. git answers one line per
// input line, in order; the answers are keyed by the names asked about.
func lookObjects(ctx context.Context, g gitrun.Git, shas []string) (objects, error) {
	have := objects{exists: map[string]bool{}, commit: map[string]bool{}}
	if len(shas) == 0 {
		return have, nil
	}
	var in bytes.Buffer
	for _, s := range shas {
		fmt.Fprintf(&in, "%s\n%s^{commit}\n", s, s)
	}
	out, err := g.RunInput(ctx, in.Bytes(), "cat-file", "--batch-check")
	if err != nil {
		return objects{}, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 2*len(shas) {
		return objects{}, fmt.Errorf("git cat-file --batch-check: %d answers for %d questions", len(lines), 2*len(shas))
	}
	for i, s := range shas {
		if f := strings.Fields(lines[2*i]); len(f) == 3 {
			have.exists[s] = true
		}
		if f := strings.Fields(lines[2*i+1]); len(f) == 3 && f[1] == "commit" {
			have.commit[s] = true
		}
	}
	return have, nil
}

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
	return finish(env, o, err)
}

// Visibility is the pre-push check of the remote's visibility against PRIVATE.txt:
// given the working tree's top, the common git directory ("" when not known yet) and
// the push URL, it returns a warning to show, or the refusal (a *guard.ExitError with
// code 1, its message the explanation), or an error it could not judge past.
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
	var ee *guard.ExitError
	if err == nil || !errors.As(err, &ee) || ee.Code != guard.ExitRefused {
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
		var first []string
		if u.Deletion() || u.Tag() {
			first = []string{s.root()}
		}
		if c.dec, err = s.askFenced(ops, first, i == 0); err != nil {
			return err
		}
		c.paths = append(c.paths, first...)
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
			if err := s.checkPublished(ctx, &c, revs, u.LocalSHA); err != nil {
				return fmt.Errorf("%s: %w", u, err)
			}
		}
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

// checkPublished checks into c every path that `git log revs` changes (in batches,
// while git is still walking history), and the publication markers the push would
// publish: in the tree of tip (a commit; "" for none) and added by a commit of revs.
func (s *session) checkPublished(ctx context.Context, c *check, revs []string, tip string) error {
	var waitTree func() ([]foundMarker, error)
	if tip != "" {
		var err error
		if waitTree, err = startTreeMarkers(ctx, s.git, tip); err != nil {
			return err
		}
	}
	pc := s.startParallel(c.ops)
	sawMarker := false
	err := gitrun.LogPathsFunc(ctx, s.git, revs, func(batch []string) error {
		for _, p := range batch {
			sawMarker = sawMarker || guard.IsMarkerName(p)
		}
		abs := s.abs(batch)
		pc.add(abs)
		c.paths = append(c.paths, abs...)
		return nil
	})
	if werr := pc.wait(c.dec); err == nil {
		err = werr
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
	if blocks := s.markerBlocks(found); len(blocks) > 0 {
		c.dec.Blocking = append(c.dec.Blocking, blocks...)
		c.dec.Allowed = false
	}
	return nil
}

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
	if c.dec, err = s.askFenced(ops, nil, false); err != nil {
		return c, err
	}
	if err := s.checkPublished(ctx, &c, revs, ""); err != nil {
		return c, fmt.Errorf("local commits that %s lacks: %w", remote, err)
	}
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
		dec, err := s.policy.Check(guard.Request{Ops: ops, Paths: []string{s.root()}, Descend: true, RepoRoot: s.root()})
		if err != nil || dec.Allowed {
			return nil, err
		}
		return &check{what: what, ref: u.String(), ops: ops, paths: []string{s.root()}, dec: dec,
			note: fmt.Sprintf("%s's %s is at %s, which this repository does not have, so this push replaces commits guard cannot see; with the locks above in this repository they may be that owner's work. Fetch first (git fetch %s), then push again: guard then checks what the forced push drops",
				remote, u.RemoteRef, u.RemoteSHA, remote)}, nil
	}
	r := <-dropc
	if r.err != nil || len(r.d.Commits) == 0 {
		return nil, r.err
	}
	dec, err := JudgeDropped(s.policy, s.root(), r.d, s.mirrors...)
	if err != nil || dec.Allowed {
		return nil, err
	}
	return &check{what: what, ref: u.String(), ops: ops, paths: s.abs(r.d.Paths), dec: dec,
		note: fmt.Sprintf("this forced push drops %d commit(s) from %s's %s that changed the locked paths above (another owner's work would be lost). Rebase onto %s instead of replacing it (git pull --rebase %s), or ask the lock's owner",
			len(r.d.Commits), remote, u.RemoteRef, u.RemoteSHA, remote)}, nil
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
