package agent

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/guardlocks/guard/internal/gitrun"
)

// commitPaths lists what a commit in dir made without guard's pre-commit hook takes:
// the staged paths, and with all also the changes of the working tree, untracked
// files included (commit -a, commit PATHS, files staged earlier in the same command).
// Paths are absolute. Git reads the repository with the agent's environment.
func commitPaths(ctx context.Context, getenv func(string) string, dir string, all bool) ([]string, error) {
	g := gitrun.New(dir, getenv)
	top, err := g.Line(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	args := []string{"-c", "core.quotePath=false", "diff", "--cached", "--name-only", "-z", "--no-renames",
		"--no-relative", "--ignore-submodules=none", "--no-ext-diff", "--no-textconv"}
	if all {
		args = []string{"-c", "core.quotePath=false", "status", "--porcelain=v1", "-z", "--untracked-files=all",
			"--no-renames", "--ignore-submodules=none"}
	}
	out, err := g.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	var paths []string
	gitrun.EachName(out, func(name string) {
		if all {
			if len(name) < 4 {
				return
			}
			name = name[3:] // "XY path"
		}
		paths = append(paths, filepath.Join(top, filepath.FromSlash(name)))
	})
	return paths, nil
}

// hookless is what a commit made without guard's pre-commit hook takes (commitPaths),
// for the policy to judge as the hook would have; a repository whose index cannot be
// read refuses the commit (fail closed).
func (d *decider) hookless(e Effect) []string {
	what, hook := "commit", "pre-commit"
	read := commitPaths
	if e.Op == OpPush {
		what, hook, read = "push", "pre-push", pushPaths
	}
	paths, err := read(context.Background(), d.env.Env, e.Path, e.AllChanges)
	if err != nil {
		d.deny(fmt.Sprintf("guard: %s skips guard's %s hook, and guard cannot read what it would %s: %v (fail closed).\n  what now: %s without --no-verify (or core.hooksPath), so that the hook judges it.", quoteCmd(e.Command), hook, what, err, what))
		return nil
	}
	return paths
}

// pushPaths lists what a push from dir made without guard's pre-push hook may
// publish: the paths changed by the commits of every local branch (with tags, of
// every tag too) that no remote-tracking ref holds yet. That is more than one pushed
// branch brings (fail closed: the hook that would know exactly was skipped).
func pushPaths(ctx context.Context, getenv func(string) string, dir string, tags bool) ([]string, error) {
	g := gitrun.New(dir, getenv)
	top, err := g.Line(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	revs := []string{"--branches"}
	if tags {
		revs = append(revs, "--tags")
	}
	rel, err := gitrun.LogPaths(ctx, g, append(revs, "--not", "--remotes")...)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(rel))
	for _, p := range rel {
		paths = append(paths, filepath.Join(top, filepath.FromSlash(p)))
	}
	return paths, nil
}
