package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

// `go run ./cmd/guard install` records go run's temporary binary in the hooks; guard
// says so instead of leaving hooks that fail closed once Go removes it.
func TestInstallFromGoRunWarns(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	guardtest.InitRepo(t, repo)
	goenv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	require.NoError(t, err)
	f := strings.Fields(string(goenv))
	cmd := exec.Command("go", "run", ".", "install", "--repo", repo)
	cmd.Env = []string{"PATH=" + testenv.Path(), "HOME=" + t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null",
		"GOCACHE=" + f[0], "GOMODCACHE=" + f[1], "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	assert.Contains(t, errb.String(), "is a temporary binary built by go run; the hooks will fail closed once Go removes it. Install guard first (go install ./cmd/guard)")
	assert.Contains(t, out.String(), "pre-commit")

	_, stderr, code := runGuard(t, t.TempDir(), nil, "install", "--repo", repo)
	assert.Equal(t, 0, code)
	assert.NotContains(t, stderr, "temporary binary")
}
