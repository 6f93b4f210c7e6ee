package hooks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

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

// commitCheck starts the commit check of one question of the hook: whole says the
// change is repository-wide (a deletion, a tag: the top is judged too); with fenced,
// the caller's LOCK_FENCE and LOCK_FENCE_FILE are checked too (once per hook is
// enough).
func (s *session) commitCheck(ops []string, whole, fenced bool) *guard.CommitCheck {
	q := guard.Commit{Gate: guard.GatePrePush, Ops: ops, Root: s.root(), Whole: whole}
	if fenced {
		q.Fence, q.FenceFile = s.env.Env("LOCK_FENCE"), s.env.Env("LOCK_FENCE_FILE")
	}
	return s.policy.CommitCheck(q)
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
