package gitrun

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// RepoTop returns the working-tree root that holds dir (the nearest directory at or
// above dir with a .git entry), or "" outside a repository. It starts no git process.
func RepoTop(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// gitDirOf returns the git directory of the working tree at top: top/.git itself, or the
// directory a .git file points to (linked worktrees, submodules).
func gitDirOf(top string) string {
	dotgit := filepath.Join(top, ".git")
	st, err := os.Stat(dotgit)
	if err != nil {
		return ""
	}
	if st.IsDir() {
		return dotgit
	}
	data, err := readSmall(dotgit)
	if err != nil {
		return ""
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(top, target)
	}
	return filepath.Clean(target)
}

// CommonDir returns the git directory shared by all working trees of the repository
// whose working tree top is top (the common directory of a linked worktree), or ""
// when top holds no .git. It starts no git process.
func CommonDir(top string) string {
	gitDir := gitDirOf(top)
	if gitDir == "" {
		return ""
	}
	return commonDirOf(gitDir)
}

// commonDirOf returns the common git directory shared by all working trees of the
// repository whose git directory is gitDir.
func commonDirOf(gitDir string) string {
	data, err := readSmall(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	c := strings.TrimSpace(string(data))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

// WorkingTrees returns the roots of every working tree of the repository whose working
// tree top is top: the main one and each linked worktree, read from the git directory's
// files (no git process, so the agent hook stays fast). It returns just top when the
// repository has no linked worktrees, and nil outside a repository.
func WorkingTrees(top string) []string {
	common := CommonDir(top)
	if common == "" {
		return nil
	}
	return append([]string{top}, registeredTrees(common, top)...)
}

// GitDirOf returns the git directory of the working tree at top (top/.git, or where a
// .git file points), or "" when top holds no .git. It starts no git process.
func GitDirOf(top string) string { return gitDirOf(top) }

// RegisteredTrees returns the working trees the repository whose common git directory
// is common knows of: its main working tree (unless it is bare) and each linked
// worktree. A working tree given to git for one command (`git --work-tree=DIR`,
// GIT_WORK_TREE) is not among them.
func RegisteredTrees(common string) []string { return registeredTrees(common, "") }

// registeredTrees lists the repository's working trees other than skip.
func registeredTrees(common, skip string) []string {
	var trees []string
	seen := map[string]bool{}
	if skip != "" {
		seen[filepath.Clean(skip)] = true
	}
	add := func(t string) {
		t = filepath.Clean(t)
		if seen[t] {
			return
		}
		if st, err := os.Stat(t); err == nil && st.IsDir() {
			seen[t] = true
			trees = append(trees, t)
		}
	}
	// The main working tree is the parent of a common dir named .git (not a bare
	// repository, and not a submodule's modules/ directory).
	if filepath.Base(common) == ".git" {
		add(filepath.Dir(common))
	}
	entries, err := os.ReadDir(filepath.Join(common, "worktrees"))
	if err != nil {
		return trees
	}
	for _, e := range entries {
		data, err := readSmall(filepath.Join(common, "worktrees", e.Name(), "gitdir"))
		if err != nil {
			continue
		}
		// gitdir holds the path of the linked tree's .git file.
		p := strings.TrimSpace(string(data))
		if !filepath.IsAbs(p) {
			p = filepath.Join(common, "worktrees", e.Name(), p)
		}
		add(filepath.Dir(p))
	}
	return trees
}

// readSmall reads the first 4 KiB of a small git metadata file (.git, commondir,
// gitdir).
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4096))
}
