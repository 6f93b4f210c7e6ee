package gitrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// HeadUnborn reports whether HEAD names a branch that has no commit yet (a repository's
// first commit). The usual answers come from git's files without a process: a
// detached HEAD, or a branch whose loose ref file exists, has a commit. When the ref
// file is missing (the branch is unborn, or its ref is packed or in a reftable), git
// is asked, so that a packed branch is never taken for an unborn one: the caller
// lists the whole index as the change then, which would miss a deletion.
func HeadUnborn(ctx context.Context, g Git) (bool, error) {
	if born, known := headBornFromFiles(g); known && born {
		return false, nil
	}
	_, err := g.Run(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	var gerr *Error
	if errors.As(err, &gerr) && gerr.Code == 1 && strings.TrimSpace(gerr.Stderr) == "" {
		return true, nil
	}
	return false, err
}

// headBornFromFiles reads HEAD and its ref from the git directory git would use for
// g (GIT_DIR and GIT_COMMON_DIR from g's environment, else g.Dir's .git). known is
// false where the files do not settle it.
func headBornFromFiles(g Git) (born, known bool) {
	gitDir, commonDir := g.env("GIT_DIR"), g.env("GIT_COMMON_DIR")
	if gitDir == "" {
		gitDir = gitDirOf(g.Dir)
		if gitDir == "" {
			return false, false
		}
	} else if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(g.Dir, gitDir)
	}
	if commonDir == "" {
		commonDir = commonDirOf(gitDir)
	} else if !filepath.IsAbs(commonDir) {
		commonDir = filepath.Join(g.Dir, commonDir)
	}
	head, err := readSmall(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return false, false
	}
	ref, symbolic := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !symbolic {
		return true, true // detached: HEAD is a commit's name
	}
	if !strings.HasPrefix(ref, "refs/heads/") || strings.Contains(ref, "..") {
		return false, false
	}
	if st, err := os.Stat(filepath.Join(commonDir, filepath.FromSlash(ref))); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		return true, true
	}
	return false, false
}

// env returns the value of k in g's environment.
func (g Git) env(k string) string {
	for i := len(g.Env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(g.Env[i], k+"="); ok {
			return v
		}
	}
	return ""
}
