package audit

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"

	"github.com/guardlocks/guard/github"
)

// CloneRoot is one directory tree to search for local clones, to a bounded depth
// (the root itself is depth 0).
type CloneRoot struct {
	Path     string
	MaxDepth int
}

// defaultSkipDirs are never searched: they hold dependencies and build output, not
// clones of one's own repositories.
var defaultSkipDirs = []string{"node_modules", ".venv", "venv", "__pycache__", ".tox", "vendor", "build", "dist", "target", ".cache"}

// Clone is a local working tree and the hosted repositories its remotes name.
type Clone struct {
	Path string
	Keys []github.RepoKey
}

// FindClones walks the roots for git working trees (a directory holding .git, a
// folder or, for linked worktrees and submodules, a file) and reads their remotes with
// go-git. It goes on below a working tree it found, within the depth, so that a
// root kept in git itself (a home folder with its dotfiles) does not hide the clones
// under it. Trees it cannot read are reported through warn and skipped.
func FindClones(roots []CloneRoot, skipDirs []string, warn func(string)) []Clone {
	skip := map[string]bool{}
	for _, s := range append(append([]string{}, defaultSkipDirs...), skipDirs...) {
		skip[strings.ToLower(s)] = true
	}
	seen := map[string]bool{}
	var out []Clone
	for _, r := range roots {
		root, err := filepath.Abs(r.Path)
		if err != nil {
			continue
		}
		// WalkDir does not follow a symbolic link, not even the root's: walk the
		// root's target and report paths under the root as given.
		walkRoot := root
		if real, err := filepath.EvalSymlinks(root); err == nil {
			walkRoot = real
		}
		shown := func(p string) string {
			if rel, err := filepath.Rel(walkRoot, p); err == nil {
				return filepath.Join(root, rel)
			}
			return p
		}
		base := strings.Count(filepath.Clean(walkRoot), string(filepath.Separator))
		_ = filepath.WalkDir(walkRoot, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == walkRoot {
					warn(fmt.Sprintf("cannot read root %s: %v", root, err))
				}
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if !d.IsDir() {
				return nil
			}
			if p != walkRoot && (skip[strings.ToLower(d.Name())] || d.Name() == ".git") {
				return fs.SkipDir
			}
			if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
				if !seen[p] {
					seen[p] = true
					if c, err := readClone(p); err != nil {
						warn(fmt.Sprintf("cannot read the git remotes of %s: %v", shown(p), err))
					} else {
						c.Path = shown(p)
						out = append(out, c)
					}
				}
			}
			if strings.Count(filepath.Clean(p), string(filepath.Separator))-base >= r.MaxDepth {
				return fs.SkipDir
			}
			return nil
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// readClone reads the remote URLs of the working tree at dir.
func readClone(dir string) (Clone, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return Clone{}, err
	}
	remotes, err := repo.Remotes()
	if err != nil {
		return Clone{}, err
	}
	c := Clone{Path: dir}
	for _, rm := range remotes {
		for _, u := range rm.Config().URLs {
			if k, ok := github.ParseRemoteURL(u); ok && !slices.Contains(c.Keys, k) {
				c.Keys = append(c.Keys, k)
			}
		}
	}
	return c, nil
}
