package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// Dropped is what a ref update from Old to New takes away from the ref: the commits
// reachable from Old and from none of New and the kept tips, and the paths they
// changed (top-level-relative, slash-separated, sorted, unique).
type Dropped struct {
	Commits []string
	Paths   []string
}

// DroppedByUpdate answers the question a forced update raises, the same for the
// client's pre-push hook and a server's pre-receive: which commits does moving a ref
// from old to new drop, and which paths did they change? A fast-forward drops nothing.
// keep are other tips that still hold commits (a server passes its other refs, so that
// a commit another branch keeps is not counted as dropped; the client knows no other
// tip of the remote for certain and passes none). old and new must be commits g's
// repository has (a server's quarantine included, through g's environment); an
// empty or all-zero new (a deletion) is not an update this rule judges: nothing is
// returned.
//
// The paths are to be checked for OpPush under the pusher's identity (JudgeDropped):
// a forced push that drops commits changing another owner's locked area throws that
// owner's published work away, and is refused like a push into the area.
func DroppedByUpdate(ctx context.Context, g gitrun.Git, old, new string, keep ...string) (Dropped, error) {
	if old == "" || isZero(old) || new == "" || isZero(new) || old == new {
		return Dropped{}, nil
	}
	// A fast-forward drops nothing. merge-base answers that exactly; rev-list's walk
	// (below) stops early by commit dates and, with dates skewed (a parent newer than
	// its children), lists an ancestor of new as dropped.
	if _, err := g.Run(ctx, "merge-base", "--is-ancestor", old, new); err == nil {
		return Dropped{}, nil
	} else if ge := (*gitrun.Error)(nil); !errors.As(err, &ge) || ge.Code != 1 {
		return Dropped{}, fmt.Errorf("whether %s -> %s is a fast-forward: %w", old, new, err)
	}
	revs := append([]string{old, "--not", new}, keep...)
	out, err := g.Run(ctx, append(append([]string{"rev-list"}, revs...), "--")...)
	if err != nil {
		return Dropped{}, fmt.Errorf("commits dropped by %s -> %s: %w", old, new, err)
	}
	d := Dropped{Commits: strings.Fields(string(out))}
	if len(d.Commits) == 0 {
		return d, nil
	}
	if d.Paths, err = gitrun.LogPaths(ctx, g, revs...); err != nil {
		return Dropped{}, fmt.Errorf("paths changed by the commits %s -> %s drops: %w", old, new, err)
	}
	return d, nil
}

// JudgeDropped asks cc (a commit check of OpPush for the pusher) whether the pusher
// may drop the commits of d: every path they changed, made absolute under root and
// under each of also (the other working trees the paths are judged in, if any). A
// refusal names the lock; the caller says that the update is a forced one that drops
// those commits.
func JudgeDropped(cc *guard.CommitCheck, root string, d Dropped, also ...string) (*guard.Decision, error) {
	abs := make([]string, 0, len(d.Paths)*(1+len(also)))
	for _, r := range append([]string{root}, also...) {
		for _, p := range d.Paths {
			abs = append(abs, joinGitPath(r, p))
		}
	}
	if err := cc.Check(abs); err != nil {
		return nil, err
	}
	return cc.Decision(), nil
}
