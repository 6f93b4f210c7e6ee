package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLockdownCommand(t *testing.T) {
	base := t.TempDir()
	state := t.TempDir()
	free, busy, prot, expired := filepath.Join(base, "free"), filepath.Join(base, "busy"), filepath.Join(base, "prot"), filepath.Join(base, "expired")
	for _, d := range []string{free, busy, prot, expired} {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(busy, "LOCK.web.txt"), []byte("owner: alice\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(prot, "LOCK.user.txt"), []byte("owner: me\ncreated: 2000-01-01T00:00\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(expired, "LOCK.txt"), []byte("owner: old\ncreated: 2000-01-01T00:00\n"), 0o644))
	env := []string{"XDG_STATE_HOME=" + state, "GUARD_HOST=box1"}
	manifest := filepath.Join(state, "guard", "lockdown.json")
	roots := []string{free, busy, prot, expired, filepath.Join(base, "missing")}

	t.Run("a dry run writes nothing and says what it would lock", func(t *testing.T) {
		out, errOut, code := runGuard(t, base, env, append([]string{"lockdown"}, roots...)...)
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, "would lock "+filepath.Join(free, "LOCK.txt")+"\n"+
			"would lock "+filepath.Join(expired, "LOCK.txt")+"\n"+
			"skipped "+busy+" (active lock LOCK.web.txt)\n"+
			"skipped "+prot+" (protected lock LOCK.user.txt)\n"+
			"skipped "+filepath.Join(base, "missing")+" (not a directory)\n", out)
		assert.NoFileExists(t, filepath.Join(free, "LOCK.txt"))
		assert.NoFileExists(t, manifest)
	})
	t.Run("a dry run in JSON is one object", func(t *testing.T) {
		out, _, code := runGuard(t, base, env, "lockdown", "--json", free, busy)
		require.Equal(t, 0, code)
		var j struct {
			Committed bool
			Manifest  string
			WouldLock []string `json:"would_lock"`
			Locked    []string
			Skipped   []struct{ Root, Reason string }
		}
		require.NoError(t, json.Unmarshal([]byte(out), &j))
		assert.False(t, j.Committed)
		assert.Equal(t, manifest, j.Manifest)
		assert.Equal(t, []string{filepath.Join(free, "LOCK.txt")}, j.WouldLock)
		assert.Empty(t, j.Locked)
		require.Len(t, j.Skipped, 1)
		assert.Equal(t, busy, j.Skipped[0].Root)
	})
	t.Run("commit writes bulk locks and the manifest", func(t *testing.T) {
		out, errOut, code := runGuard(t, base, env, append([]string{"lockdown", "--commit", "--owner", "ops", "--reason", "incident 42"}, roots...)...)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "locked "+filepath.Join(free, "LOCK.txt")+"\n")
		assert.Contains(t, out, "locked "+filepath.Join(expired, "LOCK.txt")+"\n")
		body, err := os.ReadFile(filepath.Join(free, "LOCK.txt"))
		require.NoError(t, err)
		assert.Contains(t, string(body), "owner: ops\n")
		assert.Contains(t, string(body), "created_by: bulk\n")
		assert.Contains(t, string(body), "purpose: incident 42\n")
		var m struct{ Locks []string }
		data, err := os.ReadFile(manifest)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &m))
		assert.ElementsMatch(t, []string{filepath.Join(free, "LOCK.txt"), filepath.Join(expired, "LOCK.txt")}, m.Locks)
	})
	t.Run("a second lockdown changes nothing", func(t *testing.T) {
		out, _, code := runGuard(t, base, env, append([]string{"lockdown", "--commit"}, roots...)...)
		require.Equal(t, 0, code)
		assert.NotContains(t, out, "locked ")
	})
	t.Run("undo removes only what is still a lockdown lock", func(t *testing.T) {
		// Someone turned one lockdown lock into a normal lock meanwhile: it stays.
		require.NoError(t, os.WriteFile(filepath.Join(expired, "LOCK.txt"), []byte("owner: bob\n"), 0o644))
		out, _, code := runGuard(t, base, env, "lockdown", "--undo")
		require.Equal(t, 0, code)
		assert.Contains(t, out, "would unlock "+filepath.Join(free, "LOCK.txt")+"\n")
		assert.FileExists(t, filepath.Join(free, "LOCK.txt"))

		out, errOut, code := runGuard(t, base, env, "lockdown", "--undo", "--commit")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, "unlocked "+filepath.Join(free, "LOCK.txt")+"\n"+
			"kept "+filepath.Join(expired, "LOCK.txt")+" (not a lockdown lock any more)\n", out)
		assert.NoFileExists(t, filepath.Join(free, "LOCK.txt"))
		assert.FileExists(t, filepath.Join(expired, "LOCK.txt"))
		assert.FileExists(t, filepath.Join(busy, "LOCK.web.txt"))
		assert.FileExists(t, filepath.Join(prot, "LOCK.user.txt"))
		assert.NoFileExists(t, manifest)
	})
	t.Run("undo again does nothing", func(t *testing.T) {
		out, _, code := runGuard(t, base, env, "lockdown", "--undo", "--commit")
		assert.Equal(t, 0, code)
		assert.Empty(t, out)
	})
	t.Run("without roots it is a usage error", func(t *testing.T) {
		_, _, code := runGuard(t, t.TempDir(), env, "lockdown")
		assert.Equal(t, 2, code)
	})
	t.Run("the manifest defaults to HOME/.local/state", func(t *testing.T) {
		home := t.TempDir()
		d := filepath.Join(t.TempDir(), "r")
		require.NoError(t, os.Mkdir(d, 0o755))
		cmdEnv := []string{"HOME=" + home}
		_, errOut, code := runGuard(t, base, cmdEnv, "lockdown", "--commit", d)
		require.Equal(t, 0, code, errOut)
		assert.FileExists(t, filepath.Join(home, ".local", "state", "guard", "lockdown.json"))
	})
}
