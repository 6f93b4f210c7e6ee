package guard

import (
	"path/filepath"
	"testing"
)

// isCleanAbs lets Check skip filepath.Clean: it must say yes exactly for the absolute
// paths Clean leaves unchanged (on Unix), and never for one Clean would change.
func FuzzIsCleanAbs(f *testing.F) {
	for _, s := range []string{"/", "//", "/a", "/a/", "/a//b", "/a/./b", "/a/../b", "/..", "/.", "a/b",
		"", "/a/b.c/..d/.e", "/a/b/.", "/a/b/..", "/...", "/a/.../b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := isCleanAbs(s)
		want := filepath.Separator == '/' && filepath.IsAbs(s) && filepath.Clean(s) == s
		if got != want {
			t.Fatalf("isCleanAbs(%q) = %v, want %v", s, got, want)
		}
	})
}
