package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readSideTree holds a live lock in a/, an expired one in b/ and a user lock deep down.
func readSideTree(t *testing.T) string {
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write("a/LOCK.txt", "owner: alice\ncreated: "+time.Now().Add(-time.Hour).Format("2006-01-02T15:04:05")+"\n")
	write("b/LOCK.txt", "owner: bob\ncreated: 2020-01-01T00:00\n")
	write("c/d/e/f/g/LOCK.user.txt", "owner: me\n")
	return root
}

func TestScanStatusPruneCommandLines(t *testing.T) {
	root := readSideTree(t)
	a, b := filepath.Join(root, "a", "LOCK.txt"), filepath.Join(root, "b", "LOCK.txt")

	out, errOut, code := runGuard(t, root, nil, "scan", "--json")
	require.Equal(t, 0, code, errOut)
	var locks []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &locks))
	require.Len(t, locks, 1)
	assert.Equal(t, a, locks[0]["path"])

	out, _, code = runGuard(t, root, nil, "scan", "--all", "--json", "--max-depth", "5", ".")
	assert.Equal(t, 0, code)
	require.NoError(t, json.Unmarshal([]byte(out), &locks))
	assert.Len(t, locks, 3, "--all and --max-depth 5 reach the expired and the deep lock")

	_, _, code = runGuard(t, root, nil, "scan", "--roots-file", "missing.json")
	assert.Equal(t, 2, code)

	_, _, code = runGuard(t, filepath.Join(root, "a"), nil, "status")
	assert.Equal(t, 1, code)
	out, _, code = runGuard(t, root, nil, "status", "b")
	assert.Equal(t, 0, code)
	assert.Equal(t, "guard status: "+filepath.Join(root, "b")+" is free\n", out)
	_, _, code = runGuard(t, root, nil, "status", "a", "b")
	assert.Equal(t, 2, code, "two DIRs is a usage error")
	_, _, code = runGuard(t, root, nil, "status", "nowhere")
	assert.Equal(t, 2, code)

	out, _, code = runGuard(t, root, nil, "prune", "--dry-run")
	assert.Equal(t, 0, code)
	assert.Equal(t, "would remove "+b+"\n", out)
	out, _, code = runGuard(t, root, nil, "prune")
	assert.Equal(t, 0, code)
	assert.Equal(t, "removed "+b+"\n", out)
	assert.NoFileExists(t, b)
	assert.FileExists(t, a)
}
