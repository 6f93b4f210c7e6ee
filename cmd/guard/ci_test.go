package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

func TestCIEndToEnd(t *testing.T) {
	top := t.TempDir()
	origin := filepath.Join(top, "origin.git")
	seed := filepath.Join(top, "seed")
	guardtest.Git(t, top, "init", "-q", "--bare", "-b", "main", origin)
	guardtest.Git(t, top, "clone", "-q", origin, seed)
	guardtest.Git(t, seed, "checkout", "-q", "-b", "main")
	require.NoError(t, os.MkdirAll(filepath.Join(seed, "core"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(seed, "core", "a.go"), []byte("package core\n"), 0o644))
	guardtest.Git(t, seed, "add", ".")
	guardtest.Git(t, seed, "commit", "-q", "-m", "base")
	guardtest.Git(t, seed, "push", "-q", "origin", "main")
	guardtest.Git(t, seed, "checkout", "-q", "-b", "feature")
	require.NoError(t, os.WriteFile(filepath.Join(seed, "core", "b.go"), []byte("package core\n"), 0o644))
	guardtest.Git(t, seed, "add", ".")
	guardtest.Git(t, seed, "commit", "-q", "-m", "feature")
	guardtest.Git(t, seed, "push", "-q", "origin", "feature")

	ci := filepath.Join(top, "ci")
	guardtest.Git(t, top, "clone", "-q", "-b", "feature", "file://"+origin, ci)
	require.NoError(t, os.WriteFile(filepath.Join(ci, "core", "LOCK.txt"), []byte("owner: bob\npurpose: core rewrite\nexpires_after: 100000d\n"), 0o644))
	summary := filepath.Join(top, "summary.md")
	env := []string{"GITHUB_BASE_REF=main", "GITHUB_STEP_SUMMARY=" + summary, "GUARD_OWNER=ci"}

	stdout, stderr, code := runGuard(t, ci, env, "ci", "--format", "github")
	assert.Equal(t, 1, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "::error file=core/b.go::guard: push refused by core/LOCK.txt (held by bob): "), stdout)
	assert.Contains(t, stderr, "core rewrite")
	data, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(data), "## guard ci: refused")

	stdout, _, code = runGuard(t, ci, env, "ci", "--json")
	assert.Equal(t, 1, code)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	assert.Equal(t, []any{"core/b.go"}, rep["paths"])
	assert.Equal(t, false, rep["allowed"])

	_, stderr, code = runGuard(t, ci, env, "ci", "--json", "--format", "text")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--json and --format text exclude each other")

	_, _, code = runGuard(t, ci, []string{"GITHUB_BASE_REF=main", "GUARD_OWNER=bob"}, "ci")
	assert.Equal(t, 0, code, "the lock's owner passes its own gate")

	shallow := filepath.Join(top, "shallow")
	guardtest.Git(t, top, "clone", "-q", "--depth", "1", "-b", "feature", "file://"+origin, shallow)
	stdout, stderr, code = runGuard(t, shallow, env, "ci", "--format", "github")
	assert.Equal(t, 2, code)
	assert.True(t, strings.HasPrefix(stdout, "::error::guard ci: the base origin/main is not in this clone's history because the clone is shallow"), stdout)
	assert.Contains(t, stderr, "fetch-depth: 0")
}
