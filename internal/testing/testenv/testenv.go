// Package testenv gives guard's tests a process environment of their own. A test must
// never depend on what the user has installed: after `go install ./cmd/guard`, a test
// that inherited PATH found that guard and could no longer see a hook fail closed when
// its guard binary was gone.
package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Path is the PATH for the processes a test starts: the test's own PATH without every
// directory that holds a program named guard (the tools tests need, git, sh, npm, go,
// stay reachable).
func Path() string {
	return WithoutGuard(os.Getenv("PATH"))
}

// WithoutGuard drops from the PATH list every directory holding an executable guard.
func WithoutGuard(path string) string {
	name := "guard"
	if runtime.GOOS == "windows" {
		name = "guard.exe"
	}
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() {
			continue
		}
		keep = append(keep, dir)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}
