package hooks

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

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
		return guard.Explained(guard.BadInput)
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
	whole := u.Deletion() || u.Tag()
	if whole {
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
	cc, err := r.commitCheck(lt, ops, whole, feed)
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
		if cc, err = r.commitCheck(lt, ops, whole, all); err != nil {
			return c, err
		}
	}

	found := lt.markers
	if sawMarker {
		inRange, err := rangeMarkers(ctx, r.git, revs, found)
		if err != nil {
			return c, err
		}
		found = append(found, inRange...)
	}
	for _, m := range found {
		cc.Name(m.rel, lt.abs([]string{m.rel})[0], m.place, guard.Changed)
	}

	if dr.err != nil {
		return c, dr.err
	}
	if d := dr.d; len(d.Commits) > 0 {
		dd, err := JudgeDropped(cc.Policy().CommitCheck(guard.Commit{Gate: r.hook, Ops: []string{guard.OpPush}, Root: lt.root}), lt.root, d)
		if err != nil {
			return c, err
		}
		if !dd.Allowed {
			cc.Merge(dd)
			c.notes = append(c.notes, fmt.Sprintf("this forced update drops %d commit(s) of %s that changed the locked paths above: another owner's work would be lost; rebase onto the server's %s (git pull --rebase) instead of replacing it", len(d.Commits), u.Ref, gitrun.Short(u.Old)))
		}
	}
	c.dec = cc.Decision()
	return c, nil
}

// commitCheck builds the commit check that judges a push against the scratch tree lt
// (a policy for the pusher, the server's configuration pinned with the pushed
// .guard.toml) and hands it the paths arriving on paths (abs'd under lt) in the order
// they come, the top too when whole. It reads paths to its end whatever happens, so
// that what feeds it never blocks. A pushed .guard.toml that cannot be read leaves the
// push unjudged: an error (exit 2, the file and line named), as a client's gate and
// guard ci answer for the same tree (CONTRACT.md section 6).
func (r *receiver) commitCheck(lt *lockTree, ops []string, whole bool, paths <-chan []string) (*guard.CommitCheck, error) {
	defer func() {
		for range paths {
		}
	}()
	policy := guard.NewPolicy(r.env, guard.Identity{Owner: r.pusher.Owner})
	pinned, treeErr, err := guard.ServerTreeConfig(lt.root, r.cfg)
	if err != nil {
		return nil, err
	}
	if treeErr != nil {
		return nil, fmt.Errorf("the pushed %s cannot be read (%s), so guard cannot tell what its locks cover; fix it and push again", guard.ConfigFileName, lt.scrub(treeErr.Error()))
	}
	policy.PinConfig(lt.root, pinned, nil)
	cc := policy.CommitCheck(guard.Commit{Gate: r.hook, Ops: ops, Root: lt.root, Whole: whole, Server: r.cfg})
	return cc, cc.Stream(paths)
}
