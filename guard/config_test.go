package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadConfigReadsEveryTable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ConfigFileName)
	write(t, p, `owner = "alice"
host = "laptop"
roots_file = "/etc/lock_roots.json"
api_url = "https://ghe.example/api/v3/"

[scopes]
api = ["server/**", "proto/*.proto"]

[publish]
require_public = true
[publish.commands]
"make release" = "publish-release"

[github]
owners = ["acme", "alice"]
strict = true
`)
	cfg, err := LoadConfig(p)
	require.NoError(t, err)
	assert.Equal(t, "alice", cfg.Owner)
	assert.Equal(t, "laptop", cfg.Host)
	assert.Equal(t, "/etc/lock_roots.json", cfg.RootsFile)
	assert.Equal(t, []string{"server/**", "proto/*.proto"}, cfg.Scopes["api"])
	assert.True(t, cfg.Publish.RequirePublic)
	assert.Equal(t, "publish-release", cfg.Publish.Commands["make release"])
	assert.Equal(t, []string{"acme", "alice"}, cfg.GitHub.Owners)
	assert.True(t, cfg.GitHub.Strict)
	assert.Equal(t, "https://ghe.example/api/v3/", cfg.GitHubAPIURL())
	assert.Equal(t, dir, cfg.Dir)
}

func TestLoadConfigNamesFileAndLineOfASyntaxError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ConfigFileName)
	write(t, p, "owner = \"alice\"\n\n[scopes\napi = []\n")
	_, err := LoadConfig(p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), p+":3:")
}

func TestFindConfigStopsAtTheRepositoryRoot(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ConfigFileName), "owner = \"outer\"\n")
	repo := filepath.Join(root, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "a", "b"), 0o755))

	cfg, err := FindConfig(filepath.Join(repo, "a", "b"))
	require.NoError(t, err)
	assert.Equal(t, "", cfg.Owner, "a config above the repository root does not govern it")

	write(t, filepath.Join(repo, ConfigFileName), "owner = \"inner\"\n")
	cfg, err = FindConfig(filepath.Join(repo, "a", "b"))
	require.NoError(t, err)
	assert.Equal(t, "inner", cfg.Owner)

	cfg, err = FindConfig(root)
	require.NoError(t, err)
	assert.Equal(t, "outer", cfg.Owner, "outside a repository the nearest config above applies")
}

func TestResolveIdentityPrecedence(t *testing.T) {
	vars := map[string]string{}
	env := &Env{User: "u", Hostname: "h", Getenv: func(k string) string { return vars[k] }}
	cfg := &Config{Owner: "cfg-owner", Host: "cfg-host"}

	assert.Equal(t, Identity{Owner: "u@h", Host: "h"}, ResolveIdentity(env, "", "", nil))
	assert.Equal(t, Identity{Owner: "cfg-owner", Host: "cfg-host"}, ResolveIdentity(env, "", "", cfg))
	vars["GUARD_OWNER"], vars["GUARD_HOST"] = "env-owner", "env-host"
	assert.Equal(t, Identity{Owner: "env-owner", Host: "env-host"}, ResolveIdentity(env, "", "", cfg))
	assert.Equal(t, Identity{Owner: "flag-owner", Host: "flag-host"}, ResolveIdentity(env, "flag-owner", "flag-host", cfg))
}
