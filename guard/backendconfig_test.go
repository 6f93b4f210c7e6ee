package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/guardlocks/guard/lockcore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNormalizeRemoteURLMakesEveryCloneOfOneRepositoryOneProject(t *testing.T) {
	for _, u := range []string{
		"git@github.com:acme/tool.git",
		"ssh://git@github.com/acme/tool",
		"ssh://git@GitHub.com:22/acme/tool.git",
		"https://github.com/acme/tool",
		"https://user:token@github.com/acme/tool.git/",
		"git://github.com/acme/tool.git",
	} {
		assert.Equal(t, "github.com/acme/tool", NormalizeRemoteURL(u), u)
	}
	assert.Equal(t, "git.example:8443/a/b", NormalizeRemoteURL("https://git.example:8443/a/b.git"))
	assert.Equal(t, "/srv/git/tool", NormalizeRemoteURL("/srv/git/tool.git"))
	assert.Equal(t, "", NormalizeRemoteURL("  "))
}

func FuzzNormalizeRemoteURL(f *testing.F) {
	for _, s := range []string{"git@github.com:a/b.git", "https://h/a/b", "/x.git", "a:b", "ssh://u@h:22/p", "://", "@:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := NormalizeRemoteURL(s)
		if n != NormalizeRemoteURL(n) && NormalizeRemoteURL(n) != "" {
			// Normalising twice may only strip what a first pass exposed; it must not
			// panic or grow.
			if len(NormalizeRemoteURL(n)) > len(n) {
				t.Fatalf("%q -> %q -> %q grew", s, n, NormalizeRemoteURL(n))
			}
		}
	})
}

func TestBackendConfigErrorsNameTheFileAndTheTablesLine(t *testing.T) {
	for name, c := range map[string]struct{ body, want string }{
		"unknown kind":     {"owner = \"a\"\n\n[backend]\nkind = \"zookeeper\"\nendpoints = [\"http://127.0.0.1:2379\"]\n", `:3: [backend] kind = "zookeeper" is not a backend guard knows`},
		"no endpoints":     {"[backend]\nkind = \"etcd\"\n", ":1: [backend] endpoints is missing"},
		"bad endpoint":     {"[backend]\nkind = \"etcd\"\nendpoints = [\"127.0.0.1:2379\"]\n", `:1: [backend] endpoint "127.0.0.1:2379" is not a URL`},
		"bad timeout":      {"[backend]\nkind = \"etcd\"\nendpoints = [\"http://h:1\"]\ndial_timeout = \"soon\"\n", `dial_timeout = "soon" is not a positive duration`},
		"bad offline":      {"[backend]\nkind = \"etcd\"\nendpoints = [\"http://h:1\"]\noffline = \"allow\"\n", `offline = "allow"`},
		"cert without key": {"[backend]\nkind = \"etcd\"\nendpoints = [\"https://h:1\"]\ncert = \"c.pem\"\n", "cert and key go together"},
		"prefix without /": {"[backend]\nkind = \"etcd\"\nendpoints = [\"https://h:1\"]\nprefix = \"/guard\"\n", `prefix = "/guard" must end with /`},
		"kind missing":     {"[backend]\nendpoints = [\"https://h:1\"]\n", "kind is missing"},
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), ConfigFileName)
			require.NoError(t, os.WriteFile(p, []byte(c.body), 0o644))
			_, err := LoadConfig(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), p)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	p := filepath.Join(t.TempDir(), ConfigFileName)
	require.NoError(t, os.WriteFile(p, []byte("[backend]\nkind = \"etcd\"\nendpoints = [\"http://127.0.0.1:2379\"]\n"), 0o644))
	cfg, err := LoadConfig(p)
	require.NoError(t, err)
	d, err := cfg.Backend.Timeout()
	require.NoError(t, err)
	assert.Equal(t, DefaultDialTimeout, d)
	assert.Equal(t, "/guard/", cfg.Backend.KeyPrefix())
	assert.False(t, cfg.Backend.FallsBackToFiles())
}

func TestWithoutABackendTableNothingConnects(t *testing.T) {
	dir := t.TempDir()
	env := &Env{Clock: lockcore.FixedClock(testNow), Dir: dir, OpenBackend: func(*Config, string, *Env) (Backend, error) {
		t.Fatal("a project without [backend] connected to a backend")
		return nil, nil
	}}
	d, err := NewPolicy(env, Identity{Owner: "a"}).Check(Request{Paths: []string{filepath.Join(dir, "x")}})
	require.NoError(t, err)
	assert.True(t, d.Allowed)
}
