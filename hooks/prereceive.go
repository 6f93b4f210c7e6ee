package hooks

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// ReceiveUpdate is one line git gives pre-receive and post-receive on stdin (and the
// arguments of update): `<old> SP <new> SP <ref>`.
type ReceiveUpdate struct {
	Old, New, Ref string
}

// Deletion reports whether the push deletes the ref.
func (u ReceiveUpdate) Deletion() bool { return isZero(u.New) }

// Creation reports whether the server does not have the ref yet.
func (u ReceiveUpdate) Creation() bool { return isZero(u.Old) }

// Tag reports whether the ref is a tag: pushing one is a release.
func (u ReceiveUpdate) Tag() bool { return strings.HasPrefix(u.Ref, "refs/tags/") }

// String names the update for messages and the logs.
func (u ReceiveUpdate) String() string {
	switch {
	case u.Deletion():
		return "delete " + u.Ref
	case u.Creation():
		return "create " + u.Ref
	}
	return u.Ref
}

// ParseReceiveLines reads git's pre-receive (or post-receive) stdin. Blank lines are
// skipped; anything else that is not `<old> <new> <ref>` with full object names of
// one length and a ref name without spaces or control characters is an error: the
// gate must not guess what it is asked to let in.
func ParseReceiveLines(r io.Reader) ([]ReceiveUpdate, error) {
	var ups []ReceiveUpdate
	err := scanHookLines(r, "receive input", func(n int, line string, f []string) error {
		if len(f) != 3 {
			return fmt.Errorf("receive input line %d: want `<old> <new> <ref>`, got %q", n, line)
		}
		u, err := NewReceiveUpdate(f[2], f[0], f[1])
		if err != nil {
			return fmt.Errorf("receive input line %d: %w", n, err)
		}
		ups = append(ups, u)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ups, nil
}

// NewReceiveUpdate checks one update as git describes it (the update hook's REF OLD
// NEW arguments, or a line of stdin).
func NewReceiveUpdate(ref, old, new string) (ReceiveUpdate, error) {
	if !isHex(old) || !isHex(new) || len(old) != len(new) {
		return ReceiveUpdate{}, fmt.Errorf("want two full object names, got %q and %q", old, new)
	}
	if ref == "" || strings.ContainsFunc(ref, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return ReceiveUpdate{}, fmt.Errorf("%q is not a ref name", ref)
	}
	if isZero(old) && isZero(new) {
		return ReceiveUpdate{}, fmt.Errorf("%s: both object names are zeros", ref)
	}
	return ReceiveUpdate{Old: old, New: new, Ref: ref}, nil
}

// PushOptions are the push options git hands the receiving hooks
// (GIT_PUSH_OPTION_COUNT, GIT_PUSH_OPTION_0, ...; the repository needs
// receive.advertisePushOptions).
func PushOptions(env *guard.Env) []string {
	n, err := strconv.Atoi(env.Env("GIT_PUSH_OPTION_COUNT"))
	if err != nil || n <= 0 {
		return nil
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, env.Env("GIT_PUSH_OPTION_"+strconv.Itoa(i)))
	}
	return out
}

// receiveCheck is the verdict on one ref update.
type receiveCheck struct {
	u     ReceiveUpdate
	ops   []string
	paths []string // repository-relative, what was checked
	dec   *guard.Decision
	lt    *lockTree
	// notes say, for a refusal, why guard checked what it did.
	notes []string
}

// receiver is one run of a receiving hook in a bare repository.
type receiver struct {
	env    *guard.Env
	hook   string
	git    gitrun.Git
	repo   gitrun.Repo
	cfg    *guard.Config
	pusher guard.Pusher
}

// RunPreReceive is `guard hook pre-receive`: every ref update on stdin is judged
// (see judge), and one refused update refuses the whole push (git then updates no
// ref).
func RunPreReceive(ctx context.Context, env *guard.Env, stdin io.Reader) error {
	return runReceive(ctx, env, guard.GatePreReceive, func() ([]ReceiveUpdate, error) { return ParseReceiveLines(stdin) })
}

// RunUpdate is `guard hook update REF OLD NEW`: the same judgement for one ref, for
// servers that run the update hook (git runs it once per ref, and refuses only that
// ref).
func RunUpdate(ctx context.Context, env *guard.Env, ref, old, new string) error {
	return runReceive(ctx, env, guard.GateUpdate, func() ([]ReceiveUpdate, error) {
		u, err := NewReceiveUpdate(ref, old, new)
		if err != nil {
			return nil, fmt.Errorf("update hook arguments: %w", err)
		}
		return []ReceiveUpdate{u}, nil
	})
}

// say writes text to w as lines of at most about 100 columns, each starting with
// "guard: " (git shows them as `remote: guard: ...`), continuation lines indented.
func say(w io.Writer, indent int, text string) {
	const width = 100
	first := "guard: " + strings.Repeat("  ", indent)
	rest := first + "  "
	line := first
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && len(line)+1+len(word) > width {
			fmt.Fprintln(w, line)
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	if !empty {
		fmt.Fprintln(w, line)
	}
}

// openReceiver finds the repository, the server's configuration and the pusher. Its
// errors are the hook's answer: 2, with the reason.
func openReceiver(ctx context.Context, env *guard.Env, hook string) (*receiver, error) {
	g := gitrun.New(env.Dir, env.Env)
	repo, ok := receiveRepo(env)
	if !ok {
		var err error
		if repo, err = gitrun.OpenRepo(ctx, g); err != nil {
			return nil, err
		}
	}
	cfg, err := guard.FindServerConfig(repo.CommonDir)
	if err != nil {
		return nil, fmt.Errorf("%w; every push is refused until the server's configuration is fixed", err)
	}
	r := &receiver{env: env, hook: hook, git: g, repo: repo, cfg: cfg}
	if r.pusher, err = guard.ResolvePusher(env, cfg); err != nil {
		return nil, err
	}
	return r, nil
}

// receiveRepo is the repository git runs a receiving hook in, as git tells it
// (GIT_DIR, "." in a bare repository), without asking git: a git directory of its
// own (no commondir file, no GIT_COMMON_DIR) is its own common directory. ok is false
// when that cannot be told, and git is asked.
func receiveRepo(env *guard.Env) (gitrun.Repo, bool) {
	gd := env.Env("GIT_DIR")
	if gd == "" || env.Env("GIT_COMMON_DIR") != "" {
		return gitrun.Repo{}, false
	}
	if !filepath.IsAbs(gd) {
		if !filepath.IsAbs(env.Dir) {
			return gitrun.Repo{}, false
		}
		gd = filepath.Join(env.Dir, gd)
	}
	gd = filepath.Clean(gd)
	for _, need := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(gd, need)); err != nil {
			return gitrun.Repo{}, false
		}
	}
	if _, err := os.Lstat(filepath.Join(gd, "commondir")); err == nil {
		return gitrun.Repo{}, false
	}
	return gitrun.Repo{GitDir: gd, CommonDir: gd, Hooks: filepath.Join(gd, "hooks")}, true
}

func runReceive(ctx context.Context, env *guard.Env, hook string, read func() ([]ReceiveUpdate, error)) (err error) {
	w := env.Stderr
	var r *receiver
	var checks []*receiveCheck
	defer func() {
		for _, c := range checks {
			c.lt.remove()
		}
	}()
	err = recovered(func() error {
		var err error
		if r, err = openReceiver(ctx, env, hook); err != nil {
			return err
		}
		ups, err := read()
		if err != nil {
			return err
		}
		checks, err = r.judgeAll(ctx, ups)
		return err
	})
	if err != nil {
		say(w, 0, fmt.Sprintf("%s: cannot check this push: %v", hook, err))
		say(w, 0, "refusing it (fail closed); no ref was updated.")
		return guard.Silent(guard.ExitUsage)
	}
	return r.finish(checks)
}

// judgeAll judges every update, with one `git cat-file --batch-check` for the objects
// they name.
func (r *receiver) judgeAll(ctx context.Context, ups []ReceiveUpdate) ([]*receiveCheck, error) {
	var shas []string
	for _, u := range ups {
		if !u.Deletion() {
			shas = append(shas, u.New)
		}
		if !u.Creation() {
			shas = append(shas, u.Old)
		}
	}
	// git's walk of the first update's new commits, the bulk of the work, starts
	// before git says what the pushed objects are; judge drops it unless the new value
	// is a commit.
	var early *logRun
	if len(ups) > 0 && !ups[0].Deletion() {
		early = r.startLog(ctx, ups[0].New)
	}
	have, err := lookObjects(ctx, r.git, shas)
	if err != nil {
		early.stop()
		return nil, err
	}
	var checks []*receiveCheck
	for i, u := range ups {
		var lr *logRun
		if i == 0 {
			lr = early
		}
		c, err := r.judge(ctx, u, have, lr)
		if c != nil {
			checks = append(checks, c)
		}
		if err != nil {
			for _, c := range checks {
				c.lt.remove()
			}
			return nil, fmt.Errorf("%s: %w", u, err)
		}
	}
	return checks, nil
}

// judge decides one ref update, as pre-push would for the same push:
//   - every path changed by the commits the server does not have yet (reachable from
//     the new value, not from any ref the server has) is checked for push, and for
//     release-tag on a tag, against the locks committed in the pushed tree and in the
//     tree the ref had (and etcd's, with the server's [backend]); a deletion, and any
//     tag, is also checked at the repository's top;
//   - publication markers in the pushed tree or added by a pushed commit are refused
//     (guard.CommittedMarker), and PRIVATE.txt on a public repository
//     (guard.PrivateOnPublic);
//   - a forced update that drops commits changing another's locked area is refused
//     (DroppedByUpdate, JudgeDropped, shared with pre-push).
func (r *receiver) judge(ctx context.Context, u ReceiveUpdate, have objects, lr *logRun) (*receiveCheck, error) {
	if u.Deletion() || !have.commit[u.New] {
		lr.stop() // not a walk of commits: nothing of it is used
		lr = nil
	}
	if !u.Deletion() && !have.exists[u.New] {
		return nil, fmt.Errorf("the pushed object %s is not in the repository or its quarantine", u.New)
	}
	ops := []string{guard.OpPush}
	if u.Tag() {
		ops = append(ops, guard.OpReleaseTag)
	}
	c := &receiveCheck{u: u, ops: ops}
	// The locks that govern the update: those of the pushed tree, and those of the
	// tree the ref had (a push that removes another's lock is still judged by it).
	var tip, prev string
	if !u.Deletion() && have.commit[u.New] {
		tip = u.New
	}
	if !u.Creation() && have.commit[u.Old] {
		prev = u.Old
	}
	if tip == "" && prev == "" {
		// A tag of a tree or a blob: the server's default branch says what is locked.
		if head, err := r.git.Line(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err == nil && head != "" {
			prev = head
		}
	}
	// git's walk of the new commits (the bulk of the work) runs while the lock files
	// are read and written out, and its paths are judged as it prints them.
	var revs []string
	if !u.Deletion() && have.commit[u.New] {
		// What the server does not have yet: no ref of it reaches these commits (in
		// pre-receive no ref has moved yet, so the ref's old value is among them).
		revs = logRevs(u.New)
		if lr == nil {
			lr = r.startLog(ctx, u.New)
		}
	} else {
		lr = noLog()
	}
	defer lr.cancel()
	logc, batches := lr.done, lr.batches
	// The forced-update question (what the update drops) is git's too, and runs
	// beside the rest; commits another ref keeps are not dropped: every ref but this
	// one counts (not --all, which adds HEAD, and HEAD is usually this very branch).
	type droppedRes struct {
		d   Dropped
		err error
	}
	dropc := make(chan droppedRes, 1)
	if !u.Deletion() && !u.Creation() && have.commit[u.Old] && have.commit[u.New] {
		go func() {
			var dr droppedRes
			dr.err = recovered(func() (err error) {
				dr.d, err = DroppedByUpdate(ctx, r.git, u.Old, u.New, "--exclude="+u.Ref, "--glob=refs/*")
				return err
			})
			dropc <- dr
		}()
	} else {
		dropc <- droppedRes{}
	}
	var err error
	c.lt, err = buildLockTree(ctx, r.git, filepath.Join(r.repo.GuardDir(), "receive"), tip, prev)
	if err != nil {
		for range batches { // let the walk finish before the hook answers
		}
		<-logc
		<-dropc
		return nil, err
	}
	lt := c.lt
	if tip == "" {
		lt.markers = nil // the tree listed in full was not the pushed one
	}
	var first []string
	if u.Deletion() || u.Tag() {
		first = []string{lt.root}
		c.paths = append(c.paths, "")
	}
	// The pushed paths are judged as git prints them, against the locks of the pushed
	// tree. Should a path be a lock file (or .guard.toml) of the previous tree that
	// the pushed tree no longer holds, that file must be in place first: the batches
	// stop going to this check, and the whole push is judged again once it is (below).
	again := false
	feed := make(chan []string)
	go func() {
		defer close(feed)
		for b := range batches {
			if !again && len(lt.prevPaths(b)) > 0 {
				again = true
			}
			if !again {
				feed <- lt.abs(b)
			}
		}
	}()
	policy, blocks, dec, err := r.policyFor(lt, guard.Request{Ops: ops, Paths: first, RepoRoot: lt.root}, feed)
	lg, dr := <-logc, <-dropc
	if err != nil {
		return c, err
	}
	if lg.err != nil {
		return c, fmt.Errorf("listing the paths the pushed commits change: %w", lg.err)
	}
	changed, sawMarker := lg.changed, lg.sawMarker
	c.paths = append(c.paths, changed...)
	if again || len(lt.prevPaths(dr.d.Paths)) > 0 {
		if err := lt.addPrev(ctx, r.git, append(append([]string{}, changed...), dr.d.Paths...)); err != nil {
			return c, err
		}
		all := make(chan []string, 1)
		all <- lt.abs(changed)
		close(all)
		if policy, blocks, dec, err = r.policyFor(lt, guard.Request{Ops: ops, Paths: first, RepoRoot: lt.root}, all); err != nil {
			return c, err
		}
	}
	c.dec = dec

	found := lt.markers
	if sawMarker {
		inRange, err := rangeMarkers(ctx, r.git, revs, found)
		if err != nil {
			return c, err
		}
		found = append(found, inRange...)
	}
	for _, m := range found {
		if reason, refused := guard.CommittedMarker(m.rel, m.place, false); refused {
			blocks = append(blocks, guard.Block{Path: lt.abs([]string{m.rel})[0], Reason: reason})
		}
		if reason, refused := guard.PrivateOnPublic(r.cfg, m.rel); refused {
			blocks = append(blocks, guard.Block{Path: lt.abs([]string{m.rel})[0], Reason: reason})
		}
	}

	if dr.err != nil {
		return c, dr.err
	}
	if d := dr.d; len(d.Commits) > 0 {
		dd, err := JudgeDropped(policy, lt.root, d)
		if err != nil {
			return c, err
		}
		if !dd.Allowed {
			mergeDecision(c.dec, dd)
			c.notes = append(c.notes, fmt.Sprintf("this forced update drops %d commit(s) of %s that changed the locked paths above: another owner's work would be lost; rebase onto the server's %s (git pull --rebase) instead of replacing it", len(d.Commits), u.Ref, gitrun.Short(u.Old)))
		}
	}
	if len(blocks) > 0 {
		c.dec.Blocking = append(c.dec.Blocking, blocks...)
		c.dec.Allowed = false
	}
	return c, nil
}

// finish prints the verdict and gives the hook's exit: 0 to let git update the refs,
// 1 refused, 2 when a bypass cannot be recorded. The push option guard.bypass lets a
// refusal through for users in [server] bypass_users, recorded in the bypass log and
// the history; for anyone else it changes nothing.
func (r *receiver) finish(checks []*receiveCheck) error {
	w := r.env.Stderr
	refused := 0
	for _, c := range checks {
		for _, wn := range c.dec.Warnings {
			say(w, 0, "warning: "+c.lt.scrub(wn))
		}
		if c.dec.Allowed {
			continue
		}
		refused++
		guard.RecordDecision(r.env, r.hook, r.pusher.Owner, c.dec)
		r.explain(c)
	}
	reason, asked, berr := guard.BypassRequest(PushOptions(r.env))
	if refused == 0 {
		if asked {
			say(w, 0, fmt.Sprintf("%s: nothing was refused, so push option %s was not needed", r.hook, guard.BypassOption))
		}
		return nil
	}
	if asked && berr == nil {
		ok, why := guard.ServerBypass(r.cfg, r.pusher)
		if ok {
			logPath, err := r.writeBypass(checks, reason)
			if err != nil {
				say(w, 0, fmt.Sprintf("%s: %s is set but the bypass cannot be recorded: %v; refusing (fail closed): a bypass needs its audit trail", r.hook, guard.BypassOption, err))
				return guard.Silent(guard.ExitUsage)
			}
			guard.RecordGate(r.env, guard.EventBypassed, r.hook, r.pusher.Owner, r.repo.CommonDir,
				fmt.Sprintf("%s %q by %s let a refused push through", guard.BypassOption, reason, r.pusher.User))
			say(w, 0, fmt.Sprintf("%s: %s by %s (%q): letting this push through; recorded in %s", r.hook, guard.BypassOption, r.pusher.User, reason, logPath))
			return nil
		}
		say(w, 0, fmt.Sprintf("%s: %s", r.hook, why))
		guard.RecordGate(r.env, guard.EventRefused, r.hook, r.pusher.Owner, r.repo.CommonDir,
			fmt.Sprintf("%s %q by %s refused: not in [server] bypass_users", guard.BypassOption, reason, r.pusher.User))
	} else if berr != nil {
		say(w, 0, fmt.Sprintf("%s: %v", r.hook, berr))
	}
	plural := "s"
	if refused == 1 {
		plural = ""
	}
	say(w, 0, fmt.Sprintf("%s: %d ref update%s refused for %s; no ref was updated.", r.hook, refused, plural, r.who()))
	return guard.Silent(guard.ExitRefused)
}

// who names the pusher as the gate judged them.
func (r *receiver) who() string {
	if r.pusher.Owner != r.pusher.User {
		return fmt.Sprintf("%s (lock owner %s)", r.pusher.User, r.pusher.Owner)
	}
	return r.pusher.User
}

// maxShownPaths is how many blocked paths one lock's refusal lists.
const maxShownPaths = 5

// explain writes one refused update: per lock (or reason) the paths, whose lock, why,
// and what to do now, in short lines with repository-relative names.
func (r *receiver) explain(c *receiveCheck) {
	w := r.env.Stderr
	say(w, 0, fmt.Sprintf("%s: refusing %s (%s by %s):", r.hook, c.u, strings.Join(c.ops, "+"), r.who()))
	type group struct {
		b     guard.Block
		paths []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, b := range c.dec.Blocking {
		key := b.Reason
		if b.Lock != nil {
			key = b.Lock.Path
		}
		g := byKey[key]
		if g == nil {
			g = &group{b: b}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.paths = append(g.paths, c.lt.rel(b.Path))
	}
	for _, g := range groups {
		sort.Strings(g.paths)
		shown := g.paths
		more := ""
		if len(shown) > maxShownPaths {
			more = fmt.Sprintf(" (and %d more)", len(shown)-maxShownPaths)
			shown = shown[:maxShownPaths]
		}
		l := g.b.Lock
		if l == nil {
			say(w, 1, strings.Join(shown, ", ")+more+": "+c.lt.scrub(g.b.Reason))
			continue
		}
		say(w, 1, strings.Join(shown, ", ")+more+": "+c.lt.scrub(g.b.Reason))
		var facts []string
		if l.Purpose != "" {
			facts = append(facts, "purpose: "+l.Purpose)
		}
		if at, ok := l.ExpiresAt(); ok {
			facts = append(facts, "expires "+at.UTC().Format("2006-01-02 15:04 UTC"))
		}
		if len(facts) > 0 {
			say(w, 2, strings.Join(facts, "; "))
		}
		owner := l.Owner
		if owner == "" {
			owner = "its owner"
		}
		if l.HeldIn != "" {
			say(w, 2, fmt.Sprintf("what now: ask %s to release it (guard unlock), or wait until it expires; then push again", owner))
		} else {
			say(w, 2, fmt.Sprintf("what now: ask %s to release it (remove %s in a commit and push that), or wait until it expires; then push again", owner, c.lt.rel(l.Path)))
		}
	}
	for _, n := range c.notes {
		say(w, 1, n)
	}
}

// writeBypass appends the bypass to the repository's log and returns the log's path.
func (r *receiver) writeBypass(checks []*receiveCheck, reason string) (string, error) {
	e := guard.BypassEntry{
		Time: guard.BypassTime(r.env.Clock.Now()), Owner: r.pusher.Owner, User: r.pusher.User,
		Reason: reason, Hook: r.hook, Refused: true,
	}
	seenOp := map[string]bool{}
	for _, c := range checks {
		e.Refs = append(e.Refs, c.u.String())
		for _, op := range c.ops {
			if !seenOp[op] {
				seenOp[op] = true
				e.Ops = append(e.Ops, op)
			}
		}
		e.Paths = append(e.Paths, c.paths...)
		for _, b := range c.dec.Blocking {
			bb := guard.BypassBlock{Path: c.lt.rel(b.Path), Reason: c.lt.scrub(b.Reason)}
			if b.Lock != nil {
				bb.Lock, bb.Owner = c.lt.rel(b.Lock.Path), b.Lock.Owner
			}
			e.Blocking = append(e.Blocking, bb)
		}
	}
	if e.Ops == nil {
		e.Ops = []string{}
	}
	p := r.repo.BypassLogPath()
	return p, guard.AppendBypass(p, e)
}

// RunPostReceive is `guard hook post-receive`: one history event (pushed) per ref
// update git made, with the pusher as the actor. It never fails a push (git has
// already updated the refs): what it cannot do, it says, and exits 0.
func RunPostReceive(ctx context.Context, env *guard.Env, stdin io.Reader) error {
	w := env.Stderr
	ups, err := ParseReceiveLines(stdin)
	if err != nil {
		say(w, 0, fmt.Sprintf("post-receive: %v; nothing recorded", err))
		return nil
	}
	repo, err := gitrun.OpenRepo(ctx, gitrun.New(env.Dir, env.Env))
	if err != nil {
		say(w, 0, fmt.Sprintf("post-receive: %v; nothing recorded", err))
		return nil
	}
	var p guard.Pusher
	cfg, cerr := guard.FindServerConfig(repo.CommonDir)
	if cerr == nil {
		p, cerr = guard.ResolvePusher(env, cfg)
	}
	if cerr != nil {
		say(w, 0, fmt.Sprintf("post-receive: %v; recording the push without a pusher", cerr))
	}
	for _, u := range ups {
		detail := fmt.Sprintf("%s: %s %s..%s", guard.GatePostReceive, u.Ref, gitrun.Short(u.Old), gitrun.Short(u.New))
		if p.User != "" {
			detail += fmt.Sprintf(" by %s (%s)", p.User, p.Source)
		}
		env.Record(guard.Event{Event: guard.EventPushed, Path: repo.CommonDir, Name: u.Ref, Actor: p.Owner, Detail: detail})
	}
	return nil
}

// policyFor builds the policy that judges a push against the scratch tree lt (the
// server's configuration, pinned with the pushed .guard.toml) and checks req's paths,
// then those arriving on paths (abs'd under lt) in the order they come. It reads
// paths to its end whatever happens, so that what feeds it never blocks. blocks are
// the refusals of an unreadable pushed .guard.toml.
func (r *receiver) policyFor(lt *lockTree, req guard.Request, paths <-chan []string) (policy *guard.Policy, blocks []guard.Block, dec *guard.Decision, err error) {
	defer func() {
		for range paths {
		}
	}()
	policy = guard.NewPolicy(r.env, guard.Identity{Owner: r.pusher.Owner})
	pinned, treeErr, err := guard.ServerTreeConfig(lt.root, r.cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	policy.PinConfig(lt.root, pinned, nil)
	if treeErr != nil {
		blocks = append(blocks, guard.Block{Path: lt.root, Reason: fmt.Sprintf("the pushed %s cannot be read (%v), so guard cannot tell what its locks cover; fix it and push again", guard.ConfigFileName, treeErr)})
	}
	dec, err = policy.CheckStream(req, paths)
	return policy, blocks, dec, err
}

// logged is what a logRun found: the paths the pushed commits change, and whether
// one of them is named like a publication marker.
type logged struct {
	changed   []string
	sawMarker bool
	err       error
}

// logRun is git's walk of the commits a push brings (gitrun.LogPathsFunc over
// logRevs) under way: batches has the paths as git prints them (closed at the end),
// then done the whole.
type logRun struct {
	batches chan []string
	done    chan logged
	cancel  context.CancelFunc
}

// logRevs are the commits of a push the server does not have yet: those of new that
// no ref reaches.
func logRevs(new string) []string { return []string{new, "--not", "--all"} }

// startLog starts the walk of the commits new brings.
func (r *receiver) startLog(ctx context.Context, new string) *logRun {
	ctx, cancel := context.WithCancel(ctx)
	lr := &logRun{batches: make(chan []string, 64), done: make(chan logged, 1), cancel: cancel}
	go func() {
		var l logged
		defer func() { lr.done <- l }()
		defer close(lr.batches)
		l.err = recovered(func() error {
			return gitrun.LogPathsFunc(ctx, r.git, logRevs(new), func(batch []string) error {
				for _, p := range batch {
					l.sawMarker = l.sawMarker || guard.IsMarkerName(p)
				}
				l.changed = append(l.changed, batch...)
				lr.batches <- batch
				return nil
			})
		})
	}()
	return lr
}

// noLog is a logRun of nothing, for an update that brings no commits.
func noLog() *logRun {
	lr := &logRun{batches: make(chan []string), done: make(chan logged, 1), cancel: func() {}}
	close(lr.batches)
	lr.done <- logged{}
	return lr
}

// stop ends a walk whose result is not wanted, and waits for git to be gone.
func (lr *logRun) stop() {
	if lr == nil {
		return
	}
	lr.cancel()
	for range lr.batches {
	}
	<-lr.done
}
