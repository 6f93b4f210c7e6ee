package guard

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServerConfigIsFoundBesideOrAboveTheBareRepositoryAndValidated(t *testing.T) {
	root := t.TempDir()
	bare := filepath.Join(root, "group", "r.git")
	write(t, filepath.Join(bare, "HEAD"), "ref: refs/heads/main\n")
	cfg, err := FindServerConfig(bare)
	require.NoError(t, err)
	assert.Equal(t, "", cfg.Path, "none at all: the zero config")

	write(t, filepath.Join(root, ConfigFileName), "[server]\npusher_env = \"SRV_USER\"\n")
	cfg, err = FindServerConfig(bare)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, ConfigFileName), cfg.Path, "the first one above")
	assert.Equal(t, "SRV_USER", cfg.Server.PusherEnv)

	write(t, filepath.Join(bare, ConfigFileName), "[server]\nvisibility = \"public\"\nbypass_users = [\"carol\"]\n[server.owners]\nbob = \"robert\"\n")
	cfg, err = FindServerConfig(bare)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(bare, ConfigFileName), cfg.Path, "the repository's own first")
	assert.Equal(t, ServerConfig{Visibility: "public", BypassUsers: []string{"carol"}, Owners: map[string]string{"bob": "robert"}}, cfg.Server)

	p := filepath.Join(bare, ConfigFileName)
	for body, want := range map[string]string{
		"owner = \"x\"\n[server]\nvisibility = \"open\"\n":    p + `:2: [server] visibility = "open": want "public" or "private"`,
		"[server]\npusher_env = \"GUARD_OWNER\"\n":            p + `:1: [server] pusher_env = "GUARD_OWNER": that variable is the client's to set`,
		"[server]\npusher_env = \"A-B\"\n":                    p + `:1: [server] pusher_env = "A-B" is not an environment variable name`,
		"[server]\nbypass_users = [\"\"]\n":                   p + ":1: [server] bypass_users: an empty user name",
		"[server.owners]\nbob = \"\"\n":                       p + `:1: [server] owners: "bob" = "": neither`,
		"[server]\nvisibility = \"public\"\nvisibility = 1\n": p + ":3:",
	} {
		write(t, p, body)
		_, err := FindServerConfig(bare)
		require.Error(t, err, body)
		assert.Contains(t, err.Error(), want, body)
	}
}

func TestResolvePusherTakesTheServersVariablesNeverGuardOwner(t *testing.T) {
	vars := map[string]string{}
	env := testEnv(t.TempDir())
	env.Getenv = func(k string) string { return vars[k] }
	cfg := &Config{Path: "/srv/.guard.toml", Server: ServerConfig{PusherEnv: "GUARD_PUSHER", Owners: map[string]string{"alice-srv": "alice"}}}

	vars["GUARD_OWNER"] = "alice"
	_, err := ResolvePusher(env, cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no pusher identity: GL_USERNAME, GITEA_PUSHER_NAME and GUARD_PUSHER (pusher_env in /srv/.guard.toml) are all unset")
	_, err = ResolvePusher(env, &Config{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "set pusher_env = \"GUARD_PUSHER\" in the server's .guard.toml")

	vars["GUARD_PUSHER"] = "alice-srv"
	p, err := ResolvePusher(env, cfg)
	require.NoError(t, err)
	assert.Equal(t, Pusher{User: "alice-srv", Owner: "alice", Source: "GUARD_PUSHER"}, p)
	vars["GITEA_PUSHER_NAME"] = "gitea-bob"
	p, _ = ResolvePusher(env, cfg)
	assert.Equal(t, Pusher{User: "gitea-bob", Owner: "gitea-bob", Source: GiteaPusherVar}, p)
	vars["GL_USERNAME"] = "gl-carol"
	p, _ = ResolvePusher(env, cfg)
	assert.Equal(t, Pusher{User: "gl-carol", Owner: "gl-carol", Source: GitLabUserVar}, p)
}

func TestBypassRequestAndWhoMayBypass(t *testing.T) {
	reason, asked, err := BypassRequest([]string{"ci.skip", "guard.bypass=prod is down"})
	assert.Equal(t, "prod is down", reason)
	assert.True(t, asked)
	assert.NoError(t, err)
	_, asked, err = BypassRequest([]string{"ci.skip"})
	assert.False(t, asked)
	assert.NoError(t, err)
	for _, o := range []string{"guard.bypass", "guard.bypass=", "guard.bypass=  "} {
		_, asked, err = BypassRequest([]string{o})
		assert.True(t, asked, o)
		require.Error(t, err, o)
		assert.Contains(t, err.Error(), `push option guard.bypass has no reason: push with -o guard.bypass="<why`)
	}
	cfg := &Config{Path: "/srv/.guard.toml", Server: ServerConfig{BypassUsers: []string{"carol"}}}
	ok, _ := ServerBypass(cfg, Pusher{User: "carol", Owner: "c"})
	assert.True(t, ok)
	ok, why := ServerBypass(cfg, Pusher{User: "bob", Owner: "carol"})
	assert.False(t, ok, "the server user counts, not the owner it maps to")
	assert.Equal(t, "bob asked for guard.bypass, but only users in [server] bypass_users (/srv/.guard.toml) may bypass the server's gate", why)
}

func TestPrivateOnPublicOnlyOnAPublicRepository(t *testing.T) {
	pub := &Config{Path: "/srv/.guard.toml", Server: ServerConfig{Visibility: ServerPublic}}
	_, refused := PrivateOnPublic(&Config{}, "PRIVATE.txt")
	assert.False(t, refused)
	_, refused = PrivateOnPublic(pub, "docs/PUBLIC.txt")
	assert.False(t, refused)
	reason, refused := PrivateOnPublic(pub, "sub/private.TXT")
	assert.True(t, refused)
	assert.True(t, strings.HasPrefix(reason, "sub/private.TXT says its project must stay private, and this repository is public (/srv/.guard.toml"), reason)
}

// FuzzBypassRequest: no push option makes the reader panic; a request it accepts has
// a reason with no blank around it.
func FuzzBypassRequest(f *testing.F) {
	f.Add("guard.bypass=why", "x")
	f.Add("guard.bypass", "guard.bypass=")
	f.Fuzz(func(t *testing.T, a, b string) {
		reason, asked, err := BypassRequest([]string{a, b})
		if err == nil && asked && (reason == "" || strings.TrimSpace(reason) != reason) {
			t.Fatalf("accepted reason %q", reason)
		}
		if !asked && (reason != "" || err != nil) {
			t.Fatalf("not asked but %q, %v", reason, err)
		}
	})
}
