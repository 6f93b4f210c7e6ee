package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestJQFiltersEveryJSONCommand: --jq runs the command's JSON through a jq expression
// (strings raw, anything else compact JSON, one result a line), implies --json, keeps
// the command's exit code, and a bad expression is a usage error before anything runs.
func TestJQFiltersEveryJSONCommand(t *testing.T) {
	dir := ctRepo(t, nil)
	ctWrite(t, dir, "locked/LOCK.txt", "owner: alice\n"+ctLive+"purpose: parser\n")
	lock := filepath.Join(dir, "locked", "LOCK.txt")

	out, errOut, code := ctRun(t, dir, nil, "", "scan", "--jq", ".[].path")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, lock+"\n", out)

	out, _, code = ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "--jq", "{allowed, owner: .blocking[0].lock.owner}", "locked/f")
	assert.Equal(t, 1, code, "the refusal's exit code stays")
	assert.Equal(t, `{"allowed":false,"owner":"alice"}`+"\n", out)

	out, _, code = ctRun(t, dir, nil, "", "status", "locked", "--json", "--jq", ".locks[].fence")
	assert.Equal(t, 1, code)
	assert.Equal(t, "null\n", out)

	out, errOut, code = ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "lock", "free", "--jq", ".[")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `lock: --jq ".[": unexpected EOF`)
	assert.NoFileExists(t, filepath.Join(dir, "free", "LOCK.txt"), "a bad expression claims nothing")

	out, errOut, code = ctRun(t, dir, nil, "", "version", "--jq", `.version | error("no " + .)`)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "guard: --jq")
}
