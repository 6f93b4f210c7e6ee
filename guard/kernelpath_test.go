package guard

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// linkTree builds folders and links whose lexical and kernel readings differ:
//
//	a/b/c/         folders
//	l1 -> a/b      a link to a folder
//	l2 -> l1/c     a link through a link
//	up -> ../..    a relative link that climbs (from the root: above it)
//	abs -> ROOT/a/b/c
//	dl -> a/new    dangling
//	dl2 -> dl      a link to a dangling link
//	loop -> loop
func linkTree(t testing.TB) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows removes .. lexically before its file systems see a path")
	}
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a", "b", "c"), 0o755))
	for name, target := range map[string]string{
		"l1": "a/b", "l2": "l1/c", "up": "../..", "abs": filepath.Join(root, "a", "b", "c"),
		"dl": "a/new", "dl2": "dl", "loop": "loop",
	} {
		require.NoError(t, os.Symlink(target, filepath.Join(root, name)))
	}
	return root
}

func TestKernelPathAppliesDotDotWhereTheLinkPoints(t *testing.T) {
	root := linkTree(t)
	cases := []struct{ name, raw, want string }{
		{"a path without .. is cleaned as written", "l1/./x//y", root + "/l1/x/y"},
		{"l1/.. is the parent of a/b, not the root", "l1/../f", root + "/a/f"},
		{"a link is followed before .., the links in its target kept as written", "l2/../f", root + "/l1/f"},
		{"an absolute link target restarts from /", "abs/../../f", root + "/a/f"},
		{"a link that climbs climbs from its own folder", "up/..", filepath.Dir(filepath.Dir(filepath.Dir(root)))},
		{"plain folders before .. are lexical", "a/b/../f", root + "/a/f"},
		{"a name that does not exist is kept as written", "nope/../f", root + "/f"},
		{"the links kept as written stay links (the policy follows them itself)", "l1/c/../c/x", root + "/l1/c/x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := KernelPath(root, tc.raw)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	t.Run("a loop is ELOOP after 40 links, as the kernel fails", func(t *testing.T) {
		got, err := KernelPath(root, "loop/../f")
		assert.True(t, errors.Is(err, syscall.ELOOP), "%v", err)
		assert.Equal(t, root+"/f", got, "the lexical path comes along for messages")
		_, kerr := os.Stat(root + "/loop/../f")
		assert.True(t, errors.Is(kerr, syscall.ELOOP), "the kernel agrees: %v", kerr)
	})
}

func TestRealPathFollowsDanglingLinks(t *testing.T) {
	root := linkTree(t)
	cases := []struct{ name, path, want string }{
		{"a dangling link is its target", root + "/dl", root + "/a/new"},
		{"a link to a dangling link is the last target", root + "/dl2", root + "/a/new"},
		{"every link on the way is followed", root + "/l2/x", root + "/a/b/c/x"},
		{"a name that does not exist is kept", root + "/nope/x", root + "/nope/x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PathResolver{}.RealPath(tc.path)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestEagerLinksAreFollowedWhereverTheyStand(t *testing.T) {
	root := linkTree(t)
	virtual := map[string]string{root + "/v": "a/b", root + "/a/b/w": "../../dl"}
	r := PathResolver{Eager: func(p string) (string, bool) { t, ok := virtual[p]; return t, ok }}
	got, err := r.Resolve(root, "v/x")
	require.NoError(t, err)
	assert.Equal(t, root+"/a/b/x", got)
	got, err = r.Resolve(root, "v/w")
	require.NoError(t, err)
	assert.Equal(t, root+"/dl", got, "eager links end where the disk's begin: dl stays for the policy")
}

// FuzzKernelPath holds the resolver to the kernel: wherever the kernel reaches a file
// by a path, the resolved path (and its real path) reaches the same file.
func FuzzKernelPath(f *testing.F) {
	root := linkTree(f)
	for _, s := range []string{"l1/../a", "l2/../../a/b", "up/x/..", "abs/../..", "loop/..", "dl/..", "a/b/c/../../../l1/c", "dl2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) > 200 || strings.ContainsRune(raw, 0) || strings.HasPrefix(raw, "/") {
			return
		}
		got, err := KernelPath(root, raw)
		if err != nil {
			if !errors.Is(err, syscall.ELOOP) {
				t.Fatalf("KernelPath(%q): %v", raw, err)
			}
			return
		}
		if !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("KernelPath(%q) = %q: not absolute and clean", raw, got)
		}
		kst, kerr := os.Stat(root + "/" + raw)
		if kerr != nil {
			return
		}
		st, err := os.Stat(got)
		if err != nil || !os.SameFile(kst, st) {
			t.Fatalf("KernelPath(%q) = %q, which is not where the kernel goes (%v)", raw, got, err)
		}
		real, err := PathResolver{}.RealPath(got)
		if err != nil {
			t.Fatalf("RealPath(%q): %v", got, err)
		}
		if rst, err := os.Stat(real); err != nil || !os.SameFile(kst, rst) {
			t.Fatalf("RealPath(%q) = %q, which is not where the kernel goes (%v)", got, real, err)
		}
	})
}
