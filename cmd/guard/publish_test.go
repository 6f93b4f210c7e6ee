package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
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

// The gates of issue 11 and the help of issue 13, through the built binary: the
// last flag wins, runners are seen through, bodies are read from files, the
// artifact's project decides, and help runs under PRIVATE.txt.
func TestPublishCommandGates(t *testing.T) {
	path, record := standIns(t)
	bin := strings.SplitN(strings.TrimPrefix(path, "PATH="), ":", 2)[0]
	for _, name := range []string{"poetry", "twine"} {
		script := "#!/bin/sh\necho \"" + name + " $*\" >> " + record + "\n"
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755))
	}
	cases := []struct {
		name string
		args []string
		code int
		ran  string
	}{
		{"npm publish --dry-run --no-dry-run is refused", []string{"npm", "publish", "--dry-run", "--no-dry-run"}, 1, ""},
		{"poetry run twine upload is refused", []string{"poetry", "run", "twine", "upload", "dist/x.whl"}, 1, ""},
		{"gh api -F visibility=@file is refused", []string{"gh", "api", "-X", "PATCH", "repos/o/r", "-F", "visibility=@visibility.txt"}, 1, ""},
		{"gh api creating a release is refused", []string{"gh", "api", "repos/o/r/releases", "-f", "tag_name=v1"}, 1, ""},
		{"gh release create --help runs", []string{"gh", "release", "create", "--help"}, 0, "gh release create --help\n"},
		{"npm publish --help runs", []string{"npm", "publish", "--help"}, 0, "npm publish --help\n"},
		{"poetry run of an unknown program is refused as unknown", []string{"poetry", "run", "./release.sh"}, 2, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(record)
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "PRIVATE.txt"), []byte("conditions: none yet\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "visibility.txt"), []byte("public\n"), 0o644))
			_, stderr, code := runGuard(t, dir, []string{path}, append([]string{"publish", "--"}, tc.args...)...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Equal(t, tc.ran, recorded(t, record))
		})
	}

	t.Run("a private project's tarball published from outside is refused", func(t *testing.T) {
		os.Remove(record)
		outer := t.TempDir()
		free, priv := filepath.Join(outer, "free"), filepath.Join(outer, "priv")
		require.NoError(t, os.MkdirAll(free, 0o755))
		require.NoError(t, os.MkdirAll(priv, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(free, "PUBLIC.txt"), nil, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(priv, "PRIVATE.txt"), []byte("priv stays in-house\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(priv, "pkg-1.0.0.tgz"), []byte("x"), 0o644))
		_, stderr, code := runGuard(t, free, []string{path}, "publish", "--", "npm", "publish", "../priv/pkg-1.0.0.tgz")
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "refused registry-upload of "+priv)
		assert.Contains(t, stderr, "priv stays in-house")
		assert.Equal(t, "", recorded(t, record))
	})
}

// The agent hook asks the same classifier (wired in by cmd/guard): the gates hold
// there too.
func TestAgentHookPublicationGates(t *testing.T) {
	repo := agentRepo(t) // holds PRIVATE.txt
	free := filepath.Join(repo, "..", filepath.Base(repo)+"-free")
	require.NoError(t, os.MkdirAll(free, 0o755))
	t.Cleanup(func() { os.RemoveAll(free) })
	require.NoError(t, os.WriteFile(filepath.Join(repo, "pkg-1.0.0.tgz"), []byte("x"), 0o644))
	cases := []struct {
		name, cwd, command, decision string
	}{
		{"the last --no-dry-run wins", repo, "npm publish --dry-run --no-dry-run", "deny"},
		{"poetry run twine upload", repo, "poetry run twine upload dist/*", "deny"},
		{"lerna exec -- npm publish", repo, "lerna exec -- npm publish", "deny"},
		{"gh api creating a release", repo, "gh api repos/o/r/releases -f tag_name=v1", "deny"},
		{"a private project's tarball published from outside", free, "npm publish ../" + filepath.Base(repo) + "/pkg-1.0.0.tgz", "deny"},
		{"a private project's file as a release asset from outside", free, "gh release create v1 notes.md ../" + filepath.Base(repo) + "/pkg-1.0.0.tgz", "deny"},
		{"a free project's release from outside", free, "gh release create v1", ""},
		{"gh release create --help", repo, "gh release create --help", ""},
		{"npm publish --help", repo, "npm publish --help", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, _, code := runShell(t, tc.cwd, bashInput(tc.cwd, tc.command), guardBin+" agent-hook claude")
			assert.Equal(t, 0, code)
			if tc.decision == "" {
				assert.True(t, ctNoObjection(t, out), out)
				return
			}
			var ans struct {
				HookSpecificOutput struct{ PermissionDecision, PermissionDecisionReason string }
			}
			require.NoError(t, json.Unmarshal([]byte(out), &ans), out)
			assert.Equal(t, tc.decision, ans.HookSpecificOutput.PermissionDecision)
			assert.Contains(t, ans.HookSpecificOutput.PermissionDecisionReason, "marks this project private")
		})
	}
}
