package command_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/command"
)

func pruneFixture(t *testing.T) string {
	root := t.TempDir()
	old := "created: 2026-06-10T11:00:00\n"
	files(t, root, map[string]string{
		"a/LOCK.txt":           old,
		"b/LOCK.team.x.h.txt":  old,
		"c/LOCK.txt":           "created: 2026-06-15T11:00:00\n",
		"d/LOCK.user.txt":      old,
		"e/LOCK.until.txt":     "not_before: 2026-06-01T00:00\n",
		"f/TEST.txt":           old,
		"g/LOCK.condition.txt": old + "release_condition: x\n",
		"h/LOCK.and.or.txt":    old,
	})
	return root
}

func TestRunPrune(t *testing.T) {
	root := pruneFixture(t)
	a, b := filepath.Join(root, "a", "LOCK.txt"), filepath.Join(root, "b", "LOCK.team.x.h.txt")

	env, out, errb := readEnv(root, nil)
	require.NoError(t, command.RunPrune(t.Context(), command.PruneOptions{Env: env, DryRun: true}))
	assert.Equal(t, "would remove "+a+"\nwould remove "+b+"\n", out.String())
	assert.Empty(t, errb.String())
	assert.FileExists(t, a)
	assert.FileExists(t, b)

	env, out, errb = readEnv(root, nil)
	require.NoError(t, command.RunPrune(t.Context(), command.PruneOptions{Env: env}))
	assert.Equal(t, "removed "+a+"\nremoved "+b+"\n", out.String())
	assert.Empty(t, errb.String())
	assert.NoFileExists(t, a)
	assert.NoFileExists(t, b)
	for _, kept := range []string{"c/LOCK.txt", "d/LOCK.user.txt", "e/LOCK.until.txt", "f/TEST.txt", "g/LOCK.condition.txt", "h/LOCK.and.or.txt"} {
		assert.FileExists(t, filepath.Join(root, kept))
	}

	env, out, _ = readEnv(root, nil)
	require.NoError(t, command.RunPrune(t.Context(), command.PruneOptions{Env: env}))
	assert.Empty(t, out.String(), "nothing left to prune")
}

func TestRunPruneRootsAndJSON(t *testing.T) {
	root := pruneFixture(t)
	a := filepath.Join(root, "a", "LOCK.txt")
	env, out, _ := readEnv(t.TempDir(), nil)
	require.NoError(t, command.RunPrune(t.Context(), command.PruneOptions{Env: env, DryRun: true, JSON: true, RootsInput: command.RootsInput{Roots: []string{filepath.Join(root, "a"), filepath.Join(root, "d")}}}))
	assert.JSONEq(t, `{"ok": true, "dry_run": true, "removed": [], "would_remove": ["`+a+`"], "kept": [], "errors": []}`, out.String())

	env, out, _ = readEnv(root, nil)
	require.NoError(t, command.RunPrune(t.Context(), command.PruneOptions{Env: env, JSON: true, RootsInput: command.RootsInput{Roots: []string{"a"}}}))
	var got command.PruneJSON
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, []string{a}, got.Removed)
	assert.False(t, got.DryRun)

	files(t, root, map[string]string{"roots.json": "{not json"})
	env, _, _ = readEnv(root, nil)
	err := command.RunPrune(t.Context(), command.PruneOptions{Env: env, RootsInput: command.RootsInput{RootsFile: "roots.json"}})
	assert.Equal(t, 2, exitcode.Of(err))
	assert.ErrorContains(t, err, filepath.Join(root, "roots.json")+":1:")
}
