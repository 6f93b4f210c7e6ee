package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guardlocks/guard/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// standIns puts stand-in npm and gh executables in a folder that record each run in
// <folder>/record and exit with $STANDIN_EXIT; it returns the PATH entry and the
// record's path.
func standIns(t *testing.T) (pathEnv, record string) {
	t.Helper()
	bin := t.TempDir()
	record = filepath.Join(bin, "record")
	for _, name := range []string{"npm", "gh"} {
		script := "#!/bin/sh\necho \"" + name + " $*\" >> " + record + "\nexit ${STANDIN_EXIT:-0}\n"
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755))
	}
	return "PATH=" + bin + ":" + testenv.Path(), record
}

func recorded(t *testing.T, record string) string {
	t.Helper()
	data, err := os.ReadFile(record)
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(data)
}

func TestPublishCommandEndToEnd(t *testing.T) {
	path, record := standIns(t)
	cases := []struct {
		name   string
		marker string
		env    []string
		args   []string
		code   int
		ran    string
	}{
		{"npm publish under PRIVATE.txt never runs", "PRIVATE.txt", nil, []string{"publish", "--", "npm", "publish"}, 1, ""},
		{"gh repo edit --visibility public under PRIVATE.txt never runs", "PRIVATE.txt", nil, []string{"publish", "--", "gh", "repo", "edit", "--visibility", "public"}, 1, ""},
		{"gh repo create --private under PRIVATE.txt runs unguarded", "PRIVATE.txt", nil, []string{"publish", "--", "gh", "repo", "create", "x", "--private"}, 0, "gh repo create x --private\n"},
		{"npm publish under PUBLIC.txt passes its exit code through", "PUBLIC.txt", []string{"STANDIN_EXIT=7"}, []string{"publish", "--", "npm", "publish"}, 7, "npm publish\n"},
		{"the command's own flags need no --", "PUBLIC.txt", nil, []string{"publish", "npm", "publish", "--tag", "next"}, 0, "npm publish --tag next\n"},
		{"--dry-run runs nothing", "PUBLIC.txt", nil, []string{"publish", "--dry-run", "--", "npm", "publish"}, 0, ""},
		{"an unknown command is a usage error", "PUBLIC.txt", nil, []string{"publish", "--", "make", "release"}, 2, ""},
		{"no command is a usage error", "PUBLIC.txt", nil, []string{"publish"}, 2, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(record)
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, tc.marker), []byte("conditions: none yet\n"), 0o644))
			_, stderr, code := runGuard(t, dir, append([]string{path}, tc.env...), tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Equal(t, tc.ran, recorded(t, record))
		})
	}
}

func TestPublishCommandForwardsSIGTERM(t *testing.T) {
	bin := t.TempDir()
	started := filepath.Join(bin, "started")
	script := "#!/bin/sh\ntrap 'exit 42' TERM\ntouch " + started + "\nwhile :; do sleep 0.05; done\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "PUBLIC.txt"), nil, 0o644))
	cmd := exec.Command(guardBin, "publish", "--", "npm", "publish")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin + ":" + testenv.Path(), "HOME=" + t.TempDir()}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { _, err := os.Stat(started); return err == nil }, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	assert.Equal(t, 42, ee.ExitCode(), "guard survives the signal, the command gets it, and its exit code is guard's")
}

func TestPreflightCommandEndToEnd(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "PUBLIC.txt"), []byte("check: test -f PUBLIC.txt\n"), 0o644))
	out, stderr, code := runGuard(t, dir, nil, "preflight", "--op", "registry-upload", "--json")
	require.Equal(t, 0, code, stderr)
	var r struct {
		Op    string `json:"op"`
		Ready bool   `json:"ready"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	assert.Equal(t, "registry-upload", r.Op)
	assert.True(t, r.Ready)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "PRIVATE.txt"), nil, 0o644))
	out, stderr, code = runGuard(t, filepath.Dir(dir), nil, "preflight", dir)
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasSuffix(out, "verdict: refused\n"), out)
	assert.Contains(t, stderr, "both PRIVATE.txt and PUBLIC.txt are present")

	_, _, code = runGuard(t, dir, nil, "preflight", "a", "b")
	assert.Equal(t, 2, code)
}
