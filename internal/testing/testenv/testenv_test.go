package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWithoutGuard(t *testing.T) {
	name := "guard"
	if runtime.GOOS == "windows" {
		name = "guard.exe"
	}
	installed, tools := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(installed, name), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sep := string(os.PathListSeparator)
	got := WithoutGuard(strings.Join([]string{tools, installed, "", tools}, sep))
	if want := tools + sep + tools; got != want {
		t.Fatalf("WithoutGuard = %q, want %q", got, want)
	}
}

// Every test in the module builds its processes' PATH with Path: a test that copied
// the user's PATH would find an installed guard.
func TestNoTestInheritsTheUsersPath(t *testing.T) {
	root := filepath.Join("..", "..")
	var bad []string
	_ = filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() && (e.Name() == ".git" || e.Name() == "node_modules" || e.Name() == "testdata") {
			if e != nil && e.IsDir() && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") || strings.HasSuffix(p, "testenv_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), `os.Getenv("PATH")`) {
			bad = append(bad, p)
		}
		return nil
	})
	if len(bad) > 0 {
		t.Fatalf("these tests pass the user's PATH to the processes they start; use testenv.Path() (internal/testenv), which leaves out an installed guard:\n  %s", strings.Join(bad, "\n  "))
	}
}
