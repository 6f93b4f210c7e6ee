package hooks

import (
	"path/filepath"
	"strings"
)

// joinGitPaths is joinGitPath for each change of a batch, the clean ones built in one
// string (one allocation for the batch, not one per path), and the folder of each
// (filepath.Dir of the path) appended to dirs, for a clean path as a slice of it.
func joinGitPaths(root string, batch []Change, dirs []string) (paths, folders []string) {
	sep := string(filepath.Separator)
	if strings.HasSuffix(root, sep) {
		sep = ""
	}
	size := 0
	for _, c := range batch {
		size += len(root) + len(sep) + len(c.Path)
	}
	var b strings.Builder
	b.Grow(size)
	// cut[i] is where the folder of path i ends in it (-1: a path to clean first).
	cut := make([]int, len(batch))
	for i, c := range batch {
		cut[i] = -1
		if cleanGitPath(c.Path) {
			cut[i] = len(root)
			if j := strings.LastIndexByte(c.Path, '/'); j >= 0 {
				cut[i] += len(sep) + j
			} else if sep == "" {
				cut[i] = len(root) // the file-system root keeps its separator
			}
			b.WriteString(root)
			b.WriteString(sep)
			b.WriteString(filepath.FromSlash(c.Path))
		}
	}
	all := b.String()
	paths = make([]string, len(batch))
	start := 0
	for i, c := range batch {
		if cut[i] < 0 {
			paths[i] = joinGitPath(root, c.Path) // not clean: Join cleans it
			dirs = append(dirs, filepath.Dir(paths[i]))
			continue
		}
		end := start + len(root) + len(sep) + len(c.Path)
		paths[i] = all[start:end]
		dirs = append(dirs, all[start:start+cut[i]])
		start = end
	}
	return paths, dirs
}

// joinGitPath is filepath.Join(root, filepath.FromSlash(p)) for a git path p: git
// keeps no ".", ".." or empty segment in its paths, so a plain concatenation is
// already clean, without Join's second scan (a commit may name 100,000 paths).
func joinGitPath(root, p string) string {
	if !cleanGitPath(p) {
		return filepath.Join(root, filepath.FromSlash(p))
	}
	if strings.HasSuffix(root, string(filepath.Separator)) {
		return root + filepath.FromSlash(p) // a repository at the file-system root
	}
	return root + string(filepath.Separator) + filepath.FromSlash(p)
}

// cleanGitPath reports whether p, a slash-separated path relative to the top level,
// needs no cleaning: no empty, "." or ".." segment, no leading or trailing slash.
func cleanGitPath(p string) bool {
	if p == "" || filepath.Separator != '/' && strings.ContainsRune(p, filepath.Separator) {
		return false
	}
	// One scan, no iterator: a commit may name 100,000 paths.
	for i := 0; i <= len(p); {
		j := i
		for j < len(p) && p[j] != '/' {
			j++
		}
		switch p[i:j] {
		case "", ".", "..":
			return false
		}
		i = j + 1
	}
	return true
}
