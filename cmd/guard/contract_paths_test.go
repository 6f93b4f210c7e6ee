package main

// CONTRACT.md section 4: "A path is judged as the kernel resolves it (a/link/../b is
// where link points, then up)", through guard check and guard agent-hook.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContractAPathIsJudgedWhereTheKernelResolvesIt(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	lock := ctWrite(t, dir, "src/LOCK.txt", "owner: alice\n"+ctLive)
	ctMkdir(t, dir, "src/inner")
	ctMkdir(t, dir, "docs")
	require.NoError(t, os.Symlink("../src/inner", filepath.Join(dir, "docs", "link")))
	env := []string{"GUARD_OWNER=bob"}

	out, errOut, code := ctRun(t, dir, env, "", "check", "--json", "docs/link/../a.go")
	assert.Equal(t, 1, code, errOut)
	doc := ctObject(t, out)
	assert.Equal(t, false, doc["allowed"])
	blocking, _ := doc["blocking"].([]any)
	require.Len(t, blocking, 1)
	b := blocking[0].(map[string]any)
	assert.Equal(t, filepath.Join(dir, "src", "a.go"), b["path"], "docs/link/.. is src, where link points, then up")
	assert.Equal(t, lock, b["lock"].(map[string]any)["path"])

	_, errOut, code = ctRun(t, dir, env, "", "check", "docs/a.go")
	assert.Equal(t, 0, code, "the lexical reading's docs/a.go is free: %s", errOut)

	in, err := json.Marshal(map[string]any{"session_id": "s", "cwd": filepath.Join(dir, "docs"), "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]string{"command": "cd link && echo x > ../a.go"}})
	require.NoError(t, err)
	out, errOut, code = ctRun(t, dir, nil, string(in), "agent-hook", "claude")
	assert.Equal(t, 0, code, errOut)
	var got struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, "deny", got.HookSpecificOutput.PermissionDecision)
	assert.Contains(t, got.HookSpecificOutput.PermissionDecisionReason, "blocked: "+filepath.Join(dir, "src", "a.go")+"\n")
}
