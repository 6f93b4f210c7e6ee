package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/guardlocks/guard/github"
	"github.com/guardlocks/guard/internal/gitrun"
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
// git, run with the environment getenv gives. It goes on below a working tree it
// found, within the depth, so that a root kept in git itself (a home folder with its
// dotfiles) does not hide the clones under it. Trees it cannot read are reported
// through warn and skipped.
func FindClones(ctx context.Context, roots []CloneRoot, skipDirs []string, getenv func(string) string, warn func(string)) []Clone {
	return findClones(ctx, roots, skipDirs, getenv, warn, nil)
}

// findClones is FindClones telling walked, when set, the running count of folders
// walked and clones read after every folder (a call and two integers: the walk does
// not get slower for it).
func findClones(ctx context.Context, roots []CloneRoot, skipDirs []string, getenv func(string) string, warn func(string), walked func(dirs, clones int)) []Clone {
	dirs := 0
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
			if dirs++; walked != nil {
				walked(dirs, len(out))
			}
			if p != walkRoot && (skip[strings.ToLower(d.Name())] || d.Name() == ".git") {
				return fs.SkipDir
			}
			if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
				if !seen[p] {
					seen[p] = true
					if c, err := readClone(ctx, p, getenv); err != nil {
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

// readClone reads the remote URLs of the working tree at dir with git itself, which
// knows every config syntax, includes and linked worktrees. (go-git did this before;
// linking it cost every guard process, hooks included, its start-up work.)
func readClone(ctx context.Context, dir string, getenv func(string) string) (Clone, error) {
	g := gitrun.At(dir, getenv) // not the repository a hook's GIT_DIR names
	c := Clone{Path: dir}
	out, err := g.Run(ctx, "config", "-z", "--get-regexp", `^remote\..*\.url$`)
	var gerr *gitrun.Error
	if errors.As(err, &gerr) && gerr.Code == 1 && gerr.Stderr == "" {
		return c, nil // no remote at all
	}
	if err != nil {
		return Clone{}, err
	}
	// -z: each entry is "key\nvalue\x00".
	for _, entry := range bytes.Split(out, []byte{0}) {
		_, u, ok := bytes.Cut(entry, []byte{'\n'})
		if !ok {
			continue
		}
		if k, ok := github.ParseRemoteURL(string(u)); ok && !slices.Contains(c.Keys, k) {
			c.Keys = append(c.Keys, k)
		}
	}
	return c, nil
}
