package hooks

import (
	"context"
	"fmt"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// dropped are the commits a forced update drops and the paths they changed.
type dropped struct {
	Commits []string
	Paths   []string
}

// droppedByUpdate lists the commits that moving a ref from old to new drops (reachable
// from old, not from new nor from the tips in keep, which are `git rev-list`
// arguments such as --exclude=REF --all), and the paths they changed, with one `git
// rev-list` and one `git log`. A fast-forward drops nothing.
func droppedByUpdate(ctx context.Context, g gitrun.Git, old, new string, keep ...string) (dropped, error) {
	if old == "" || isZero(old) || new == "" || isZero(new) || old == new {
		return dropped{}, nil
	}
	revs := append([]string{old, "--not", new}, keep...)
	out, err := g.Run(ctx, append(append([]string{"rev-list"}, revs...), "--")...)
	if err != nil {
		return dropped{}, fmt.Errorf("commits dropped by %s -> %s: %w", short(old), short(new), err)
	}
	d := dropped{Commits: strings.Fields(string(out))}
	if len(d.Commits) == 0 {
		return d, nil
	}
	if d.Paths, err = gitrun.LogPaths(ctx, g, revs...); err != nil {
		return dropped{}, fmt.Errorf("paths changed by the commits %s -> %s drops: %w", short(old), short(new), err)
	}
	return d, nil
}

// judgeDropped checks every path the dropped commits changed, under root, for push:
// dropping commits that changed another owner's locked area throws that owner's
// published work away, and is refused like a push into the area.
func judgeDropped(policy *guard.Policy, root string, d dropped) (*guard.Decision, error) {
	abs := make([]string, 0, len(d.Paths))
	for _, p := range d.Paths {
		abs = append(abs, joinGitPath(root, p))
	}
	return policy.Check(guard.Request{Ops: []string{guard.OpPush}, Paths: abs, RepoRoot: root})
}
