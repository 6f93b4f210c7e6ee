package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runIn(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	w := startGuardOut(t, dir, env, args...)
	return w.stdout, w.stderr, w.code
}

func TestResourceLocksLiveInTheResourcesDirectory(t *testing.T) {
	env := waitEnv(t)
	var home string
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "XDG_STATE_HOME="); ok {
			home = v
		}
	}
	work := t.TempDir()
	uri := "postgres://db.example.com:5432/App"
	out, errOut, code := runIn(t, work, env, "lock", "--owner", "job", "--purpose", "migrate", "--resource", uri)
	require.Equal(t, 0, code, errOut)
	path := strings.TrimSpace(out)
	assert.Equal(t, filepath.Join(home, "guard", "resources", "LOCK.postgres-db-example-com-5432-app-"+slugHash(uri)+".txt"), path)
	body := ctRead(t, path)
	assert.Contains(t, body, "resource: "+uri+"\n")
	assert.Contains(t, body, "expires_after: 24h\n", "every resource lock has a lifetime")

	// Someone else is refused, naming the holder; status says locked.
	_, errOut, code = runIn(t, work, env, "lock", "--owner", "other", "--resource", uri)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "held by job")
	out, _, code = runIn(t, work, env, "status", "--resource", uri, "--json")
	assert.Equal(t, 1, code)
	var st map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &st))
	assert.Equal(t, true, st["locked"])
	assert.Equal(t, uri, st["locks"].([]any)[0].(map[string]any)["resource"])

	// Another resource is free; scan of the directory lists the lock with its URI,
	// and folder locks carry resource: null.
	_, _, code = runIn(t, work, env, "status", "--resource", "postgres://db.example.com:5432/other")
	assert.Equal(t, 0, code)
	out, _, _ = runIn(t, work, env, "scan", "--json", filepath.Dir(path))
	locks := ctLocks(t, out)
	require.Len(t, locks, 1)
	assert.Equal(t, uri, locks[0]["resource"])
	folder := t.TempDir()
	_, _, code = runIn(t, folder, env, "lock", "--owner", "job", folder)
	require.Equal(t, 0, code)
	out, _, _ = runIn(t, folder, env, "scan", "--json", folder)
	locks = ctLocks(t, out)
	require.Len(t, locks, 1)
	v, has := locks[0]["resource"]
	assert.True(t, has && v == nil, "a folder lock's resource is null, got %v", locks[0])

	// Renew and unlock by URI.
	_, errOut, code = runIn(t, work, env, "renew", "--owner", "job", "--resource", uri)
	assert.Equal(t, 0, code, errOut)
	_, _, code = runIn(t, work, env, "unlock", "--owner", "other", "--resource", uri)
	assert.Equal(t, 1, code)
	out, errOut, code = runIn(t, work, env, "unlock", "--owner", "job", "--resource", uri)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, path+"\n", out)
	_, err := os.Stat(path)
	assert.True(t, os.IsNotExist(err))
}

func TestResourcesDirectoryFromGuardToml(t *testing.T) {
	env := waitEnv(t)
	work := t.TempDir()
	ctWrite(t, work, ".guard.toml", "[resources]\ndir = \"locks/res\"\n")
	out, errOut, code := runIn(t, work, env, "lock", "--owner", "job", "--expires", "2h", "--resource", "deploy:prod")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, filepath.Join(work, "locks", "res", "LOCK.deploy-prod-"+slugHash("deploy:prod")+".txt"), strings.TrimSpace(out))
	assert.Contains(t, ctRead(t, strings.TrimSpace(out)), "expires_after: 2h\n")
}

func TestResourceFlagsThatDoNotGoTogether(t *testing.T) {
	env := waitEnv(t)
	work := t.TempDir()
	for _, args := range [][]string{
		{"lock", "--resource", "db:x", "--scope", "web"},
		{"lock", "--resource", "db:x", "--user"},
		{"lock", "--resource", "db:x", work},
		{"lock", "--resource", "db:x", "--release-condition", "later"},
		{"lock", "--resource", " "},
		{"unlock", "--resource", "db:x", "--team", "h"},
		{"status", "--resource", "db:x", work},
	} {
		_, errOut, code := runIn(t, work, env, append(args, "--owner", "o")...)
		assert.Equal(t, 2, code, "%v: %s", args, errOut)
	}
}

func slugHash(uri string) string {
	// The first 8 hex digits of the URI's SHA-256, as CONTRACT.md section 8 names them.
	return sha8(uri)
}

func TestAnEmptyResourceIsAUsageErrorAndLocksNothing(t *testing.T) {
	env := waitEnv(t)
	work := t.TempDir()
	for _, args := range [][]string{
		{"lock", "--resource", ""},
		{"lock", "--resource="},
		{"run", "--resource", "", work, "--", "true"},
		{"unlock", "--resource", ""},
		{"renew", "--resource", ""},
		{"status", "--resource", ""},
	} {
		out, errOut, code := runIn(t, work, env, args...)
		assert.Equal(t, 2, code, "%v: %s", args, errOut)
		assert.Equal(t, "", out, "%v", args)
		assert.Contains(t, errOut, "the resource URI is empty", "%v", args)
		assert.Contains(t, errOut, "to lock the current folder, leave --resource out", "%v", args)
	}
	entries, err := os.ReadDir(work)
	require.NoError(t, err)
	assert.Empty(t, entries, "no lock file in the current folder")
}
