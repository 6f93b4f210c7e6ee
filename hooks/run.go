package hooks

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
)

// check is one question a hook asked the policy and its answer: for pre-commit the
// staged changes, for pre-push one pushed ref.
type check struct {
	what  string // "staged changes", "refs/heads/x -> refs/heads/x"
	ref   string // the pushed ref, for the log ("" for pre-commit)
	ops   []string
	paths []string
	dec   *guard.Decision
	// note explains a refusal beyond the decision (why guard checked what it did).
	note string
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
	// mirrors are the repository's own working trees when git works in another one
	// for this command (`git --work-tree=DIR`, GIT_WORK_TREE): a path is judged in
	// each of them too, so that a lock in the repository's working tree cannot be
	// stepped round by committing or pushing from a folder that holds no lock file.
	mirrors []string
}

func openSession(ctx context.Context, env *guard.Env) (*session, error) {
	g := gitrun.New(env.Dir, env.Env)
	repo, ok := hookRepo(env)
	var mirrors []string
	if !ok {
		var err error
		if repo, err = gitrun.OpenRepo(ctx, g); err != nil {
			return nil, err
		}
		mirrors = foreignTreeMirrors(repo)
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
	return &session{env: env, git: g, repo: repo, id: id, policy: guard.NewPolicy(env, id), mirrors: mirrors}, nil
}

// foreignTreeMirrors returns the repository's registered working trees when the one git
// works in (repo.Top) is not among them, nil otherwise.
func foreignTreeMirrors(repo gitrun.Repo) []string {
	if repo.Top == "" {
		return nil
	}
	trees := gitrun.RegisteredTrees(repo.CommonDir)
	top := realDir(repo.Top)
	for _, t := range trees {
		if realDir(t) == top {
			return nil
		}
	}
	return trees
}

// realDir is dir with its symbolic links resolved (dir itself when that fails), to
// compare the working tree git reports with the ones its files name.
func realDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return filepath.Clean(dir)
}

// mirrorNote explains a refusal that came from a mirrored working tree.
func (s *session) mirrorNote() string {
	if len(s.mirrors) == 0 {
		return ""
	}
	return fmt.Sprintf("git works in %s for this command, which is not one of the repository's working trees (%s); its paths are judged there too, where the repository's locks are",
		s.root(), strings.Join(s.mirrors, ", "))
}

// root is the directory repository-wide operations (a deletion, a tag) are checked at.
func (s *session) root() string {
	if s.repo.Top != "" {
		return s.repo.Top
	}
	return s.repo.CommonDir
}

// abs turns git's top-level-relative, slash-separated paths into absolute ones: under
// the working tree, and under each of the mirrors.
func (s *session) abs(rel []string) []string {
	out := make([]string, 0, len(rel)*(1+len(s.mirrors)))
	for _, p := range rel {
		out = append(out, joinGitPath(s.root(), p))
	}
	for _, m := range s.mirrors {
		for _, p := range rel {
			out = append(out, joinGitPath(m, p))
		}
	}
	return out
}

// joinGitPaths is joinGitPath for each change of a batch, the clean ones built in one
// string (one allocation for the batch, not one per path), and the folder of each
// (filepath.Dir of the path) appended to dirs, for a clean path as a slice of it.
func joinGitPaths(root string, batch []Change, dirs []string) (paths, folders []string) {
	sep := string(filepath.Separator)
	if strings.HasSuffix(root, sep) {
		sep = ""
	}
	size := 0
	for _, c := range batch {
		size += len(root) + len(sep) + len(c.Path)
	}
	var b strings.Builder
	b.Grow(size)
	// cut[i] is where the folder of path i ends in it (-1: a path to clean first).
	cut := make([]int, len(batch))
	for i, c := range batch {
		cut[i] = -1
		if cleanGitPath(c.Path) {
			cut[i] = len(root)
			if j := strings.LastIndexByte(c.Path, '/'); j >= 0 {
				cut[i] += len(sep) + j
			} else if sep == "" {
				cut[i] = len(root) // the file-system root keeps its separator
			}
			b.WriteString(root)
			b.WriteString(sep)
			b.WriteString(filepath.FromSlash(c.Path))
		}
	}
	all := b.String()
	paths = make([]string, len(batch))
	start := 0
	for i, c := range batch {
		if cut[i] < 0 {
			paths[i] = joinGitPath(root, c.Path) // not clean: Join cleans it
			dirs = append(dirs, filepath.Dir(paths[i]))
			continue
		}
		end := start + len(root) + len(sep) + len(c.Path)
		paths[i] = all[start:end]
		dirs = append(dirs, all[start:start+cut[i]])
		start = end
	}
	return paths, dirs
}

// joinGitPath is filepath.Join(root, filepath.FromSlash(p)) for a git path p: git
// keeps no ".", ".." or empty segment in its paths, so a plain concatenation is
// already clean, without Join's second scan (a commit may name 100,000 paths).
func joinGitPath(root, p string) string {
	if !cleanGitPath(p) {
		return filepath.Join(root, filepath.FromSlash(p))
	}
	if strings.HasSuffix(root, string(filepath.Separator)) {
		return root + filepath.FromSlash(p) // a repository at the file-system root
	}
	return root + string(filepath.Separator) + filepath.FromSlash(p)
}

// cleanGitPath reports whether p, a slash-separated path relative to the top level,
// needs no cleaning: no empty, "." or ".." segment, no leading or trailing slash.
func cleanGitPath(p string) bool {
	if p == "" || filepath.Separator != '/' && strings.ContainsRune(p, filepath.Separator) {
		return false
	}
	// One scan, no iterator: a commit may name 100,000 paths.
	for i := 0; i <= len(p); {
		j := i
		for j < len(p) && p[j] != '/' {
			j++
		}
		switch p[i:j] {
		case "", ".", "..":
			return false
		}
		i = j + 1
	}
	return true
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
// refusal or an error through and records it in the bypass log (guard.Bypass: one
// entry for everything the hook refused, locks, markers and visibility alike).
func finish(env *guard.Env, o outcome, runErr error) error {
	w := env.Stderr
	refused := false
	for _, c := range o.checks {
		if c.dec == nil {
			continue
		}
		if !c.dec.Allowed {
			refused = true
			guard.RecordDecision(env, o.hook, o.id.Owner, c.dec)
			if c.ref != "" {
				fmt.Fprintf(w, "guard: %s: push of %s refused\n", o.hook, c.what)
			}
		}
		c.dec.Explain(w)
		if !c.dec.Allowed && c.note != "" {
			fmt.Fprintf(w, "guard: %s: %s\n", o.hook, c.note)
		}
	}
	reason, bypass := guard.Bypass(env, o.hook)
	verb := "commit"
	switch o.hook {
	case "pre-push":
		verb = "push"
	case "pre-merge-commit":
		verb = "merge"
	}
	if runErr != nil {
		fmt.Fprintf(w, "guard: %s: cannot check this %s: %v\n", o.hook, verb, runErr)
	}
	if bypass && (refused || runErr != nil) {
		logPath, err := writeBypass(env, o, reason, refused, runErr)
		if err != nil {
			fmt.Fprintf(w, "guard: %s: GUARD_BYPASS is set but the bypass cannot be recorded: %v\n", o.hook, err)
			fmt.Fprintf(w, "guard: refusing (fail closed): a bypass needs its audit trail. Fix the log, or skip the hook with `git %s --no-verify`.\n", verb)
			return guard.Silent(guard.ExitUsage)
		}
		guard.RecordGate(env, guard.EventBypassed, o.hook, o.id.Owner, env.Dir, fmt.Sprintf("GUARD_BYPASS %q let a refused %s through", reason, verb))
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
//
// git exports GIT_WORK_TREE (as ".") for `git --work-tree=DIR` and GIT_DIR for
// `--git-dir` and in linked worktrees: a work tree or git directory other than the
// working directory's own is git's answer, asked of git itself (OpenRepo), never
// guessed from the folder the hook runs in.
func hookRepo(env *guard.Env) (gitrun.Repo, bool) {
	if env.Env("GIT_EXEC_PATH") == "" && env.Env("GIT_INDEX_FILE") == "" {
		return gitrun.Repo{}, false
	}
	if env.Env("GIT_WORK_TREE") != "" || !filepath.IsAbs(env.Dir) {
		return gitrun.Repo{}, false
	}
	own := gitrun.GitDirOf(env.Dir)
	if own == "" {
		return gitrun.Repo{}, false
	}
	if gd := env.Env("GIT_DIR"); gd != "" {
		if !filepath.IsAbs(gd) {
			gd = filepath.Join(env.Dir, gd)
		}
		if realDir(gd) != realDir(own) {
			return gitrun.Repo{}, false
		}
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
	e := guard.BypassEntry{
		Time: guard.BypassTime(env.Clock.Now()), Owner: o.id.Owner, Host: o.id.Host, User: env.User,
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
			bb := guard.BypassBlock{Path: b.Path, Reason: b.Reason}
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
	return p, guard.AppendBypass(p, e)
}

// RunPreCommit is `guard hook pre-commit`: every staged path (both sides of renames,
// deletions included) is checked for the commit operation, and staging a publication
// marker is refused.
func RunPreCommit(ctx context.Context, env *guard.Env) error {
	return runCommitHook(ctx, env, "pre-commit")
}

// RunPreMergeCommit is `guard hook pre-merge-commit`, which git runs before it
// records a merge it could make by itself (`git merge --no-ff`, `git pull`): the
// index then holds the merge's result, and everything it changes against HEAD is
// checked exactly as pre-commit checks a commit. (A merge that stops for conflicts is
// finished by `git commit`, which runs pre-commit.)
func RunPreMergeCommit(ctx context.Context, env *guard.Env) error {
	return runCommitHook(ctx, env, "pre-merge-commit")
}

func runCommitHook(ctx context.Context, env *guard.Env, hook string) error {
	o := outcome{hook: hook}
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
	// runs while the session finds the repository. Its output is read as git writes
	// it: each change is made absolute, judged for the rules that need only its name
	// (markers, lock files), and each batch handed to the policy, which lists the
	// batch's folders (several at once) and judges its paths while git still prints
	// the rest of a large commit. The hook then costs little more than git's diff.
	type staged struct {
		chunks [][]string // the absolute paths, one slice per batch (no regrowing)
		n      int
		// named are the refusals and warnings that come from a path's name alone.
		named    []guard.Block
		warnings []string
		err      error
	}
	type where struct {
		root    string
		mirrors []string
	}
	rootc := make(chan where, 1)
	batches := make(chan []string, 64)
	done := make(chan staged, 1)
	go func() {
		var st staged
		var at where
		known := false
		var folders []string // reused from batch to batch
		st.err = recovered(func() error {
			return StreamStagedChanges(ctx, gitrun.New(env.Dir, env.Env), func(batch []Change) error {
				if !known {
					at, known = <-rootc, true
				}
				if at.root == "" {
					return nil // no session: the error is the hook's answer
				}
				var paths []string
				paths, folders = joinGitPaths(at.root, batch, folders[:0])
				for _, m := range at.mirrors {
					var more []string
					more, folders = joinGitPaths(m, batch, folders)
					paths = append(paths, more...)
				}
				st.chunks = append(st.chunks, paths)
				st.n += len(paths)
				for i, c := range batch {
					if reason, refused := guard.CommittedMarker(c.Path, guard.MarkerStaged, c.Status == 'D'); refused {
						st.named = append(st.named, guard.Block{Path: paths[i], Reason: reason})
					}
					// A lock file is usually local: committed, it binds every clone
					// and guard ci (which sees only committed locks). Say so; it may
					// be meant.
					if c.Status == 'A' && lockcore.IsLockName(path.Base(c.Path)) {
						st.warnings = append(st.warnings, fmt.Sprintf("committing the lock file %s: every clone and guard ci will see it as held; if it is meant to stay local, unstage it (git rm --cached -- %q) and add LOCK*.txt to .git/info/exclude", paths[i], c.Path))
					}
				}
				batches <- paths
				return nil
			})
		})
		close(batches)
		done <- st
	}()
	s, err := openSession(ctx, env)
	if err != nil {
		rootc <- where{}
		<-done
		return err
	}
	rootc <- where{s.root(), s.mirrors}
	ops := []string{guard.OpCommit}
	dec, cerr := s.policy.CheckStream(guard.Request{Ops: ops, RepoRoot: s.root(),
		Fence: s.env.Env("LOCK_FENCE"), FenceFile: s.env.Env("LOCK_FENCE_FILE")}, batches)
	st := <-done
	o.repo, o.id = s.repo, s.id
	if st.err != nil {
		return st.err
	}
	if cerr != nil {
		return cerr
	}
	paths := make([]string, 0, st.n)
	for _, c := range st.chunks {
		paths = append(paths, c...)
	}
	if len(st.named) > 0 {
		dec.Blocking = append(dec.Blocking, st.named...)
		dec.Allowed = false
	}
	dec.Warnings = append(dec.Warnings, st.warnings...)
	c := check{what: "staged changes", ops: ops, paths: paths, dec: dec}
	if !dec.Allowed {
		c.note = s.mirrorNote()
	}
	o.checks = append(o.checks, c)
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
