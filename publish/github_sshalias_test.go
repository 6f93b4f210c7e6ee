package publish

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSSHHostAliases(t *testing.T) {
	config := `# work account
Host github-work gh-work
    HostName github.com
    User git
    IdentityFile ~/.ssh/id_work

Host *.internal !bastion
    HostName ignored.example

Host=ghe
  HostName = GHE.Example.COM
  HostName second.example

Match host foo
  HostName matched.example

Host plain
  User git
`
	assert.Equal(t, map[string]string{
		"github-work": "github.com",
		"gh-work":     "github.com",
		"ghe":         "ghe.example.com",
	}, SSHHostAliases(strings.NewReader(config)))
}

func TestAuditAndPushResolveSSHHostAliases(t *testing.T) {
	gh := newFakeGitHub(t, "/api/v3/")
	gh.users["acme"] = "Organization"
	gh.repos["acme"] = []fakeRepo{{"open", "public"}}
	host := strings.Split(strings.TrimPrefix(gh.srv.URL, "http://"), ":")[0]
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte("Host work\n  HostName "+host+"\n"), 0o600))
	dir := t.TempDir()
	clone := gitClone(t, filepath.Join(dir, "open"), "git@work:acme/open.git", "PRIVATE.txt")
	vars := map[string]string{"HOME": home, "GITHUB_API_URL": gh.apiURL()}

	r := runAudit(t, dir, vars, AuditOptions{Owners: []string{"acme"}, JSON: true})
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, []row{{"acme/open", "public", clone, "PRIVATE.txt", VerdictViolation}}, rows(decodeReport(t, r.stdout)))

	v := pushCheck(t, clone, "git@work:acme/open.git", vars, pinned, time.Second)
	assert.Equal(t, 1, v.code)
	assert.Contains(t, v.msg, "acme/open is PUBLIC on "+host)
}

func FuzzSSHHostAliases(f *testing.F) {
	f.Add("Host a b\n HostName c\n")
	f.Add("Host=x\nHostName=y\nMatch all\nHostName z\n")
	f.Add("host *\nhostname %h.example\n")
	f.Fuzz(func(t *testing.T, s string) {
		for alias, host := range SSHHostAliases(strings.NewReader(s)) {
			if alias == "" || host == "" || alias == host || strings.ContainsAny(alias, "*?! \t") || alias != strings.ToLower(alias) || host != strings.ToLower(host) {
				t.Fatalf("bad alias %q -> %q from %q", alias, host, s)
			}
		}
	})
}
