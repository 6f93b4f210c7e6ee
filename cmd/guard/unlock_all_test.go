package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnlockAllReleasesOnlyTheOwnersLocks(t *testing.T) {
	env := waitEnv(t)
	root := t.TempDir()
	mine := []string{
		ctWrite(t, root, "a/LOCK.txt", "owner: job\n"+ctLive+"expires_after: 1h\n"),
		ctWrite(t, root, "b/c/LOCK.web.txt", "owner: job\n"+ctLive+"expires_after: 1h\n"),
		ctWrite(t, root, "old/LOCK.txt", "owner: job\n"+ctDead+"expires_after: 1h\n"),
	}
	kept := []string{
		ctWrite(t, root, "d/LOCK.txt", "owner: bob\n"+ctLive+"expires_after: 1h\n"),
		ctWrite(t, root, "e/LOCK.user.txt", "owner: job\n"+ctLive+"removable_by: user\n"),
		ctWrite(t, root, "f/LOCK.txt", "owner: job\n"+ctLive+"removable_by: user\n"),
		ctWrite(t, root, "g/LOCK.txt", "owner: job2\n"+ctLive),
	}
	outside := ctWrite(t, t.TempDir(), "LOCK.txt", "owner: job\n"+ctLive)
	_, errOut, code := runIn(t, root, env, "lock", "--owner", "job", "--resource", "db://x")
	require.Equal(t, 0, code, errOut)

	out, errOut, code := runIn(t, root, env, "unlock", "--all", "--owner", "job", root)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var released []string
	for _, l := range lines {
		p, ok := strings.CutPrefix(l, "released ")
		require.True(t, ok, "line %q", l)
		released = append(released, p)
	}
	want := append([]string{}, mine...)
	sort.Strings(released)
	for _, p := range mine {
		_, err := os.Stat(p)
		assert.True(t, os.IsNotExist(err), "%s should be released", p)
	}
	assert.Len(t, released, len(want)+1, "the three locks and the resource lock: %v", released)
	for _, p := range append(kept, outside) {
		_, err := os.Stat(p)
		assert.NoError(t, err, "%s must stay", p)
	}
	assert.Contains(t, errOut, "kept "+filepath.Join(root, "e", "LOCK.user.txt")+" (a user lock")

	// Nothing left: 0, nothing printed; JSON says so too.
	out, _, code = runIn(t, root, env, "unlock", "--all", "--owner", "job", "--json", root)
	require.Equal(t, 0, code)
	var j map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &j), out)
	assert.Equal(t, "job", j["owner"])
	assert.Equal(t, []any{}, j["released"])
}

func TestUnlockAllTakesRootsOnly(t *testing.T) {
	env := waitEnv(t)
	root := t.TempDir()
	for _, args := range [][]string{
		{"unlock", "--all", "--owner", "o", "--scope", "web", root},
		{"unlock", "--all", "--owner", "o", "--force", root},
		{"unlock", "--all", "--owner", "o", "--resource", "db:x"},
		{"unlock", root, root},
		{"unlock", "--roots-file", "x.json", root},
	} {
		_, errOut, code := runIn(t, root, env, args...)
		assert.Equal(t, 2, code, "%v: %s", args, errOut)
	}
}
