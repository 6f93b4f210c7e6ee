package hooks

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// judgeGoneLocks hands cc the lock files that HEAD's tree holds and the index deletes
// (gone: the staged deletions whose names guard.MayBindOnceGone accepts): they bind
// the commit as they bind its push on the server. paths are the commit's paths as cc
// judged them. The commit that ends a merge stopped by conflicts counts a lock only
// when every parent holds it (MERGE_HEAD names the others): a lock the merged branch
// deleted was deleted by a commit of that branch, judged when it was made and when it
// was pushed. Nothing runs unless the commit deletes a lock file.
func judgeGoneLocks(ctx context.Context, g gitrun.Git, cc *guard.CommitCheck, gone, paths []string) error {
	if len(gone) == 0 {
		return nil
	}
	parents := []string{"HEAD"}
	merging, err := mergeHeads(ctx, g)
	if err != nil {
		return err
	}
	parents = append(parents, merging...)
	files, err := gitrun.GoneFiles(ctx, g, parents, "", gone, guard.TreeLockBound)
	if err != nil {
		return err
	}
	return cc.Before("HEAD", files, paths)
}

// mergeHeads are the commits a merge under way brings in (.git/MERGE_HEAD), none
// outside a merge.
func mergeHeads(ctx context.Context, g gitrun.Git) ([]string, error) {
	p, err := g.Line(ctx, "rev-parse", "--git-path", "MERGE_HEAD")
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(g.Dir, p)
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(data)), nil
}
