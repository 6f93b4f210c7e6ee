package hooks

import (
	"bytes"
	"context"
	"fmt"

	"github.com/guardlocks/guard/internal/gitrun"
)

// Change is one staged path and git's status letter for it (A added, C copied,
// M modified, D deleted, T type changed, U unmerged, ...).
type Change struct {
	Status byte
	Path   string // relative to the top level, slash-separated
}

// StagedChanges lists what the next commit would change: the index against HEAD, or
// against the empty tree when there is no HEAD yet (git diff --cached does that by
// itself on an unborn branch). Renames are not paired (--no-renames), so both sides
// of a rename appear, as a deletion and an addition. It honours GIT_INDEX_FILE from
// g.Env, which git sets for `git commit -a` and `git commit <paths>`.
func StagedChanges(ctx context.Context, g gitrun.Git) ([]Change, error) {
	wait, err := StartStagedChanges(ctx, g)
	if err != nil {
		return nil, err
	}
	return wait()
}

// StartStagedChanges starts the git diff of StagedChanges and returns the function
// that waits for its answer.
func StartStagedChanges(ctx context.Context, g gitrun.Git) (func() ([]Change, error), error) {
	p, err := g.Start(ctx, nil, "diff", "--cached", "--name-status", "-z", "--no-renames",
		"--no-relative", "--ignore-submodules=none", "--no-ext-diff", "--no-textconv")
	if err != nil {
		return nil, err
	}
	return func() ([]Change, error) {
		out, err := p.Wait()
		if err != nil {
			return nil, err
		}
		return parseNameStatusZ(out)
	}, nil
}

// parseNameStatusZ parses `--name-status -z` output without renames: a status field
// then a path, each NUL-terminated. A trailing record without its path is an error:
// a hook must not guess.
func parseNameStatusZ(out []byte) ([]Change, error) {
	fields := bytes.Split(out, []byte{0})
	if n := len(fields); n > 0 && len(fields[n-1]) == 0 {
		fields = fields[:n-1]
	}
	var changes []Change
	for i := 0; i < len(fields); i++ {
		st := string(fields[i])
		if st == "" {
			return nil, fmt.Errorf("git diff --name-status: empty status field at record %d", len(changes)+1)
		}
		n := 1
		if st[0] == 'R' || st[0] == 'C' {
			n = 2 // a score and two paths, should rename detection be on after all
		}
		if i+n >= len(fields) {
			return nil, fmt.Errorf("git diff --name-status: status %q without a path", st)
		}
		for j := 1; j <= n; j++ {
			p := string(fields[i+j])
			if p == "" {
				return nil, fmt.Errorf("git diff --name-status: status %q with an empty path", st)
			}
			s := st[0]
			if n == 2 && j == 1 && s == 'R' {
				s = 'D' // the old side of a rename leaves the tree
			} else if n == 2 {
				s = 'A'
			}
			changes = append(changes, Change{Status: s, Path: p})
		}
		i += n
	}
	return changes, nil
}
