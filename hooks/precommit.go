package hooks

import (
	"context"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

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
	return finish(ctx, env, o, err)
}

func preCommit(ctx context.Context, env *guard.Env, o *outcome) error {
	// git diff --cached needs nothing from the session, so it is started first and
	// runs while the session finds the repository. Its output is read as git writes
	// it: each change is made absolute, its name handed to the commit check (markers,
	// lock files), and each batch to the check's policy, which lists the batch's
	// folders (several at once) and judges its paths while git still prints the rest
	// of a large commit. The hook then costs little more than git's diff.
	type staged struct {
		chunks [][]string // the absolute paths, one slice per batch (no regrowing)
		n      int
		gone   []string // the lock files the index deletes (see judgeGoneLocks)
		err    error
	}
	type where struct {
		root    string
		mirrors []string
		cc      *guard.CommitCheck
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
					ch := guard.Changed
					switch c.Status {
					case 'D':
						ch = guard.Removed
						if guard.MayBindOnceGone(c.Path) {
							st.gone = append(st.gone, c.Path)
						}
					case 'A':
						ch = guard.Added
					}
					at.cc.Name(c.Path, paths[i], guard.MarkerStaged, ch)
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
	ops := []string{guard.OpCommit}
	cc := s.policy.CommitCheck(guard.Commit{Gate: o.hook, Ops: ops, Root: s.root(),
		Fence: s.env.Env("LOCK_FENCE"), FenceFile: s.env.Env("LOCK_FENCE_FILE")})
	rootc <- where{s.root(), s.mirrors, cc}
	cerr := cc.Stream(batches)
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
	// A merge git makes by itself keeps every file both parents hold: what it deletes
	// against HEAD, the merged branch deleted (judged when that commit was made), so
	// pre-merge-commit asks no lock of HEAD's tree.
	if o.hook != "pre-merge-commit" {
		if err := judgeGoneLocks(ctx, s.git, cc, st.gone, paths); err != nil {
			return err
		}
	}
	dec := cc.Decision()
	c := check{what: "staged changes", ops: ops, paths: paths, dec: dec}
	if !dec.Allowed {
		c.note = s.mirrorNote()
	}
	o.checks = append(o.checks, c)
	return nil
}
