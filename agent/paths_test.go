package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pathsTree builds a repository where the lexical reading of a path and the kernel's
// differ:
//
//	repo/.git/
//	repo/locked/LOCK.txt        alice's live lock
//	repo/locked/a.go, x/, src/
//	repo/free/src/              a free folder of the same name as locked/src
//	repo/free/sub -> ../locked/x
//	repo/free/dl  -> ../locked/new.go   dangling
func pathsTree(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	repo := filepath.Join(root, "repo")
	for _, d := range []string{".git", "locked/x", "locked/src", "free/src"} {
		require.NoError(t, os.MkdirAll(filepath.Join(repo, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(repo, "locked", "LOCK.txt"), []byte("owner: alice\ncreated: 2026-11-29T09:30:00\nhost: laptop\nexpires_after: 2h\nmode: hard\npurpose: refactoring\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "locked", "a.go"), []byte("package a\n"), 0o644))
	require.NoError(t, os.Symlink("../locked/x", filepath.Join(repo, "free", "sub")))
	require.NoError(t, os.Symlink("../locked/new.go", filepath.Join(repo, "free", "dl")))
	return repo
}

// hookAnswer runs the Claude Code hook on one tool call in cwd and returns its
// decision and reason (both "" when it lets the call through).
func hookAnswer(t *testing.T, repo, cwd, tool string, input map[string]string, vars map[string]string) (string, string) {
	t.Helper()
	in, err := json.Marshal(map[string]any{"session_id": "sess-1", "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input})
	require.NoError(t, err)
	env, out, _ := fixtureEnv(filepath.Dir(repo), string(in), vars)
	require.NoError(t, RunHook(HookOptions{Env: env, Agent: Claude}))
	if strings.TrimSpace(out.String()) == "" {
		return "", ""
	}
	var got struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
	return got.HookSpecificOutput.PermissionDecision, got.HookSpecificOutput.PermissionDecisionReason
}

func TestTheHookJudgesPathsWhereTheKernelResolvesThem(t *testing.T) {
	repo := pathsTree(t)
	free := filepath.Join(repo, "free")
	lock := filepath.Join(repo, "locked", "LOCK.txt")
	home := filepath.Join(filepath.Dir(repo), "home")
	cases := []struct {
		name, command string
		vars          map[string]string
		// blocked is the path the refusal names, relative to repo.
		blocked string
	}{
		{"sub/../a.go is locked/a.go: .. applies where sub points", "echo hi > sub/../a.go", nil, "locked/a.go"},
		{"after cd into a link, ../a.go is above where the link points", "cd sub && echo hi > ../a.go", nil, "locked/a.go"},
		{"cd -P applies .. where the kernel does", "cd -P sub/.. && echo hi > a.go", nil, "locked/a.go"},
		{"after set -P a plain cd is physical", "set -P; cd sub/.. && echo hi > a.go", nil, "locked/a.go"},
		{"env -C calls chdir: the kernel resolves it", "env -C sub/.. touch a.go", nil, "locked/a.go"},
		{"a glob's literal .. is applied where the kernel applies it", "rm sub/../*.go", nil, "locked/a.go"},
		{"CDPATH set for cd is searched before the current folder", "CDPATH=" + repo + "/locked cd src && echo hi > f", nil, "locked/src/f"},
		{"CDPATH exported earlier in the command", "export CDPATH=" + repo + "/locked; cd src && echo hi > f", nil, "locked/src/f"},
		{"CDPATH from the environment", "cd src && echo hi > f", map[string]string{"HOME": home, "CDPATH": repo + "/locked"}, "locked/src/f"},
		{"HOME=dir cd goes to dir", "HOME=" + repo + "/locked cd && echo hi > f", nil, "locked/f"},
		{"cd ~ after HOME is assigned goes to the new home", "HOME=" + repo + "/locked; cd ~ && echo hi > f", nil, "locked/f"},
		{"~ after HOME is assigned is the new home", "HOME=" + repo + "/locked; echo hi > ~/f", nil, "locked/f"},
		{"a link made earlier in the command is followed", "ln -s ../locked x && echo hi > x/f", nil, "locked/f"},
		{"cd through a link made earlier in the command", "ln -s ../locked x; cd x; touch f", nil, "locked/f"},
		{"a dangling link made earlier is its target", "ln -sf ../locked/new.go y && echo hi > y", nil, "locked/new.go"},
		{"a dangling link on disk is its target", "echo hi > dl", nil, "free/dl"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vars := tc.vars
			if vars == nil {
				vars = map[string]string{"HOME": home}
			}
			decision, reason := hookAnswer(t, repo, free, "Bash", map[string]string{"command": tc.command}, vars)
			assert.Equal(t, "deny", decision, reason)
			assert.Contains(t, reason, "exclusive lock "+lock+" held by alice")
			assert.Contains(t, reason, "blocked: "+filepath.Join(repo, filepath.FromSlash(tc.blocked))+"\n")
		})
	}
	t.Run("a file tool's path is resolved the same way", func(t *testing.T) {
		decision, reason := hookAnswer(t, repo, free, "Write", map[string]string{"file_path": free + "/sub/../a.go", "content": "x"}, map[string]string{"HOME": home})
		assert.Equal(t, "deny", decision, reason)
		assert.Contains(t, reason, "exclusive lock "+lock+" held by alice")
		assert.Contains(t, reason, "blocked: "+filepath.Join(repo, "locked", "a.go")+"\n")
	})
	allowed := []struct{ name, command string }{
		{"cd -L (the default) removes sub/.. as written, as bash does", "cd sub/.. && echo hi > a.go"},
		{"without CDPATH cd src is the free src", "cd src && echo hi > f"},
		{"CDPATH is not searched for ./src", "CDPATH=" + repo + "/locked cd ./src && echo hi > f"},
		{"a link to a free folder leads there", "ln -s src x && echo hi > x/f"},
	}
	for _, tc := range allowed {
		t.Run(tc.name, func(t *testing.T) {
			decision, reason := hookAnswer(t, repo, free, "Bash", map[string]string{"command": tc.command}, map[string]string{"HOME": home})
			assert.Equal(t, "", decision, reason)
		})
	}
	t.Run("a link whose target is only known when it runs is asked about near a lock", func(t *testing.T) {
		decision, reason := hookAnswer(t, repo, free, "Bash", map[string]string{"command": `ln -s "$T" z && echo hi > z/f`}, map[string]string{"HOME": home})
		assert.Equal(t, "ask", decision, reason)
		assert.Contains(t, reason, "(z/f) cannot be located")
	})
}

func TestAPatchsPathsAreResolvedAsTheKernelDoes(t *testing.T) {
	repo := pathsTree(t)
	free := filepath.Join(repo, "free")
	patch := "--- sub/../a.go\n+++ sub/../a.go\n@@ -1 +1 @@\n-package a\n+package b\n"
	require.NoError(t, os.WriteFile(filepath.Join(free, "fix.patch"), []byte(patch), 0o644))
	decision, reason := hookAnswer(t, repo, free, "Bash", map[string]string{"command": "patch -p0 < fix.patch"}, map[string]string{"HOME": filepath.Join(filepath.Dir(repo), "home")})
	assert.Equal(t, "deny", decision, reason)
	assert.Contains(t, reason, "blocked: "+filepath.Join(repo, "locked", "a.go")+"\n")
}
