package github

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
