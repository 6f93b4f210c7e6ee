package hooks

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// check is one question a hook asked the policy and its answer: for pre-commit the
// staged changes, for pre-push one pushed ref.
type check struct {
	what  string // "staged changes", "refs/heads/x -> refs/heads/x"
	ref   string // the pushed ref, for the log ("" for pre-commit)
	ops   []string
	paths []string
	dec   *guard.Decision
}

// outcome is what a hook found before deciding whether to let git go on.
type outcome struct {
	hook, remote, url string
	repo              gitrun.Repo
	id                guard.Identity
	checks            []check
}

// session holds what every hook needs: the repository, git, the identity and the
// policy (one Policy per hook run, so directories are read once).
type session struct {
	env    *guard.Env
	git    gitrun.Git
	repo   gitrun.Repo
	id     guard.Identity
	policy *guard.Policy
	// workers are the policies of a parallel check (the first is policy).
	workers []*guard.Policy
}

func openSession(ctx context.Context, env *guard.Env) (*session, error) {
	g := gitrun.New(env.Dir, env.Env)
	repo, ok := hookRepo(env)
	if !ok {
		var err error
		if repo, err = gitrun.OpenRepo(ctx, g); err != nil {
			return nil, err
		}
	}
	root := repo.Top
	if root == "" {
		root = repo.CommonDir
	}
	subject, err := guard.ResolveSubject(env, root, guard.Identity{})
	if err != nil {
		return nil, err
	}
	id := subject.Identity
	return &session{env: env, git: g, repo: repo, id: id, policy: guard.NewPolicy(env, id)}, nil
}

// root is the directory repository-wide operations (a deletion, a tag) are checked at.
func (s *session) root() string {
	if s.repo.Top != "" {
		return s.repo.Top
	}
	return s.repo.CommonDir
}

// abs turns git's top-level-relative, slash-separated paths into absolute ones.
func (s *session) abs(rel []string) []string {
	out := make([]string, 0, len(rel))
	for _, p := range rel {
		out = append(out, filepath.Join(s.root(), filepath.FromSlash(p)))
	}
	return out
}

func (s *session) ask(ops, paths []string) (*guard.Decision, error) {
	return s.askFenced(ops, paths, true)
}

// askFenced asks the policy about paths; with fenced, the caller's LOCK_FENCE and
// LOCK_FENCE_FILE are checked too (once per hook is enough).
func (s *session) askFenced(ops, paths []string, fenced bool) (*guard.Decision, error) {
	req := guard.Request{Ops: ops, Paths: paths, RepoRoot: s.root()}
	if fenced {
		req.Fence, req.FenceFile = s.env.Env("LOCK_FENCE"), s.env.Env("LOCK_FENCE_FILE")
	}
	return s.policy.Check(req)
}

// finish turns what a hook found (or the error that stopped it) into the hook's exit:
// 0 to let git go on, 1 refused, 2 internal error (fail closed). GUARD_BYPASS lets a
// refusal or an error through and records it in the bypass log.
func finish(env *guard.Env, o outcome, runErr error) error {
	w := env.Stderr
	refused := false
	for _, c := range o.checks {
		if c.dec == nil {
			continue
		}
		if !c.dec.Allowed {
			refused = true
			if c.ref != "" {
				fmt.Fprintf(w, "guard: %s: push of %s refused\n", o.hook, c.what)
			}
		}
		c.dec.Explain(w)
	}
	reason := strings.TrimSpace(env.Env("GUARD_BYPASS"))
	verb := "commit"
	if o.hook == "pre-push" {
		verb = "push"
	}
	if runErr != nil {
		fmt.Fprintf(w, "guard: %s: cannot check this %s: %v\n", o.hook, verb, runErr)
	}
	if reason != "" && (refused || runErr != nil) {
		logPath, err := writeBypass(env, o, reason, refused, runErr)
		if err != nil {
			fmt.Fprintf(w, "guard: %s: GUARD_BYPASS is set but the bypass cannot be recorded: %v\n", o.hook, err)
			fmt.Fprintf(w, "guard: refusing (fail closed): a bypass needs its audit trail. Fix the log, or skip the hook with `git %s --no-verify`.\n", verb)
			return guard.Silent(guard.ExitUsage)
		}
		fmt.Fprintf(w, "guard: %s: GUARD_BYPASS set (%q): letting this %s through; recorded in %s\n", o.hook, reason, verb, logPath)
		return nil
	}
	switch {
	case runErr != nil:
		fmt.Fprintf(w, "guard: refusing this %s (fail closed). Fix the cause above, or bypass once with an audit trail: GUARD_BYPASS=\"<reason>\" git %s ...\n", verb, verb)
		return guard.Silent(guard.ExitUsage)
	case refused:
		fmt.Fprintf(w, "\nguard: %s refused. To override with an audit trail: GUARD_BYPASS=\"<reason>\" git %s ...\n", verb, verb)
		return guard.Silent(guard.ExitRefused)
	}
	return nil
}

// hookRepo is the repository of a hook that git started: git runs hooks in the top
// level of the working tree (GIT_WORK_TREE and core.worktree included), and it tells
// its children where its programs are (GIT_EXEC_PATH) and, for pre-commit, which index
// to read (GIT_INDEX_FILE). When that holds and the working directory has its .git,
// the top level is known without asking git, which saves a process on every commit.
// Only Top is filled in; the git directories are asked for when a bypass needs them.
func hookRepo(env *guard.Env) (gitrun.Repo, bool) {
	if env.Env("GIT_EXEC_PATH") == "" && env.Env("GIT_INDEX_FILE") == "" {
		return gitrun.Repo{}, false
	}
	if wt := env.Env("GIT_WORK_TREE"); wt != "" && filepath.Clean(wt) != filepath.Clean(env.Dir) {
		return gitrun.Repo{}, false
	}
	if !filepath.IsAbs(env.Dir) {
		return gitrun.Repo{}, false
	}
	if _, err := os.Lstat(filepath.Join(env.Dir, ".git")); err != nil {
		return gitrun.Repo{}, false
	}
	return gitrun.Repo{Top: filepath.Clean(env.Dir)}, true
}

// writeBypass appends the bypass to the repository's log and returns the log's path.
func writeBypass(env *guard.Env, o outcome, reason string, refused bool, runErr error) (string, error) {
	if o.repo.CommonDir == "" {
		// A hook started by git knows only its top level so far.
		r, err := gitrun.OpenRepo(context.Background(), gitrun.New(env.Dir, env.Env))
		if err != nil {
			return "", fmt.Errorf("no git directory to keep the log in: %w", err)
		}
		o.repo = r
	}
	e := BypassEntry{
		Time: formatTime(env.Clock.Now()), Owner: o.id.Owner, Host: o.id.Host, User: env.User,
		Reason: reason, Hook: o.hook, Remote: o.remote, URL: o.url, Refused: refused,
	}
	if runErr != nil {
		e.Error = runErr.Error()
	}
	seenOp := map[string]bool{}
	for _, c := range o.checks {
		if c.ref != "" {
			e.Refs = append(e.Refs, c.ref)
		}
		for _, op := range c.ops {
			if !seenOp[op] {
				seenOp[op] = true
				e.Ops = append(e.Ops, op)
			}
		}
		e.Paths = append(e.Paths, c.paths...)
		if c.dec == nil {
			continue
		}
		for _, b := range c.dec.Blocking {
			bb := BypassBlock{Path: b.Path, Reason: b.Reason}
			if b.Lock != nil {
				bb.Lock, bb.Owner = b.Lock.Path, b.Lock.Owner
			}
			e.Blocking = append(e.Blocking, bb)
		}
	}
	if e.Ops == nil {
		e.Ops = []string{}
	}
	p := o.repo.BypassLogPath()
	return p, AppendBypass(p, e)
}

// RunPreCommit is `guard hook pre-commit`: every staged path (both sides of renames,
// deletions included) is checked for the commit operation, and staging a publication
// marker is refused.
func RunPreCommit(ctx context.Context, env *guard.Env) error {
	o := outcome{hook: "pre-commit"}
	err := recovered(func() error { return preCommit(ctx, env, &o) })
	return finish(env, o, err)
}

// recovered runs fn and turns a panic into an error, so that a bug fails the hook
// closed like any other internal error: the reason, the way to bypass it, exit 2.
func recovered(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v (please report it)", r)
		}
	}()
	return fn()
}

func preCommit(ctx context.Context, env *guard.Env, o *outcome) error {
	// git diff --cached needs nothing from the session, so it is started first and
	// runs while the session asks git where the repository is: the hook costs little
	// more than git's diff.
	waitStaged, err := StartStagedChanges(ctx, gitrun.New(env.Dir, env.Env))
	if err != nil {
		return err
	}
	s, err := openSession(ctx, env)
	if err == nil {
		// While git still diffs, the policy reads the directories every staged path
		// shares (the repository root and those above it) into its cache; the answer
		// itself is asked again below with the real paths.
		_, _ = s.askFenced([]string{guard.OpCommit}, []string{s.root()}, false)
	}
	changes, serr := waitStaged()
	if err != nil {
		return err
	}
	o.repo, o.id = s.repo, s.id
	err = serr
	if err != nil {
		return err
	}
	rel := make([]string, 0, len(changes))
	for _, c := range changes {
		rel = append(rel, c.Path)
	}
	paths := s.abs(rel)
	ops := []string{guard.OpCommit}
	dec, err := s.ask(ops, paths)
	if err != nil {
		return err
	}
	for i, c := range changes {
		// Staging a marker's removal is how one fixes a committed marker: allowed.
		if c.Status != 'D' && guard.IsMarkerName(c.Path) {
			dec.Blocking = append(dec.Blocking, guard.Block{
				Path: paths[i],
				Reason: fmt.Sprintf("%s is a publication marker, a local control file that is never committed; unstage it with `git rm --cached -- %s` (guard install keeps it in .git/info/exclude)",
					filepath.Base(c.Path), c.Path),
			})
			dec.Allowed = false
		}
	}
	o.checks = append(o.checks, check{what: "staged changes", ops: ops, paths: paths, dec: dec})
	return nil
}

// RunPrePush is `guard hook pre-push REMOTE URL`: for every ref line on stdin, every
// path changed by every commit the push would publish is checked for push (and
// release-tag for tags); a deletion, and any tag, is also checked at the repository
// root.
func RunPrePush(ctx context.Context, env *guard.Env, remote, url string, stdin io.Reader) error {
	o := outcome{hook: "pre-push", remote: remote, url: url}
	err := recovered(func() error { return prePush(ctx, env, remote, stdin, &o) })
	return finish(env, o, err)
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
	// One cat-file for the whole push: which remote commits this repository has (an
	// update can then be remote..local), and which pushed objects are commits (a tag
	// of a tree or a blob publishes no history of its own).
	var shas []string
	for _, u := range ups {
		if !u.Deletion() {
			shas = append(shas, u.LocalSHA)
			if !u.NewRef() {
				shas = append(shas, u.RemoteSHA)
			}
		}
	}
	have, herr := presentCommits(ctx, g, shas)
	s, err := session()
	if err != nil {
		return err
	}
	if herr != nil {
		return herr
	}
	for i, u := range ups {
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
		if revs := PushRange(u, remote, have[u.RemoteSHA]); revs != nil && have[u.LocalSHA] {
			// Paths are checked in batches while git log is still walking history.
			pc := s.startParallel(ops)
			err := gitrun.LogPathsFunc(ctx, s.git, revs, func(batch []string) error {
				abs := s.abs(batch)
				pc.add(abs)
				c.paths = append(c.paths, abs...)
				return nil
			})
			if werr := pc.wait(c.dec); err == nil {
				err = werr
			}
			if err != nil {
				return fmt.Errorf("%s: %w", u, err)
			}
		}
		o.checks = append(o.checks, c)
	}
	return nil
}

// mergeDecision adds d's refusals and warnings to into (both from one Policy).
func mergeDecision(into, d *guard.Decision) {
	into.Blocking = append(into.Blocking, d.Blocking...)
	for _, w := range d.Warnings {
		if !slices.Contains(into.Warnings, w) {
			into.Warnings = append(into.Warnings, w)
		}
	}
	into.Allowed = into.Allowed && d.Allowed
}

// frameworkRef builds the pushed ref from the pre-commit framework's variables. When
// the framework gives no commits (it pushes a branch whose root is new to the remote),
// HEAD is checked as a new ref: everything the remote does not have yet.
func frameworkRef(ctx context.Context, env *guard.Env, g gitrun.Git) (RefUpdate, error) {
	zero := strings.Repeat("0", 40)
	u := RefUpdate{
		LocalRef: env.Env("PRE_COMMIT_LOCAL_BRANCH"), LocalSHA: env.Env("PRE_COMMIT_TO_REF"),
		RemoteRef: env.Env("PRE_COMMIT_REMOTE_BRANCH"), RemoteSHA: env.Env("PRE_COMMIT_FROM_REF"),
	}
	if u.LocalSHA == "" {
		head, err := g.Line(ctx, "rev-parse", "--verify", "HEAD^{commit}")
		if err != nil {
			return RefUpdate{}, err
		}
		u.LocalSHA, u.RemoteSHA = head, zero
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
