package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CacheDir is where the .ci/setup-* scripts install a test tool: name below
// $XDG_CACHE_HOME/guard-ci, else below ~/.cache/guard-ci.
func CacheDir(name string) string {
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "guard-ci", name)
}

// CommitTree copies the working tree of the repository at root as it is (tracked
// files and new ones git does not ignore; what is deleted stays out) into a new
// repository at dst, commits it, and returns the commit: a clone of "this tree" for
// tools that build from a git repository (pre-commit, goreleaser), uncommitted
// changes included.
func CommitTree(t testing.TB, root, dst string) string {
	t.Helper()
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + Path(), "HOME=" + dst, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=guard tests", "GIT_AUTHOR_EMAIL=tests@example.com", "GIT_COMMITTER_NAME=guard tests", "GIT_COMMITTER_EMAIL=tests@example.com"}
		out, err := cmd.Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				t.Fatalf("git %v in %s: %v: %s", args, dir, err, ee.Stderr)
			}
			t.Fatalf("git %v in %s: %v", args, dir, err)
		}
		return string(out)
	}
	list := git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for _, rel := range strings.Split(strings.TrimRight(list, "\x00"), "\x00") {
		src := filepath.Join(root, filepath.FromSlash(rel))
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the working tree, or not a plain file
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	git(dst, "init", "-q", "-b", "main")
	git(dst, "add", "-A")
	git(dst, "commit", "-q", "-m", "the working tree")
	return strings.TrimSpace(git(dst, "rev-parse", "HEAD"))
}
