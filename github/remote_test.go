package github

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseRemoteURL(t *testing.T) {
	tests := []struct {
		name string
		url  string
		want RepoKey
	}{
		{"an https URL with .git names the repository", "https://github.com/Acme/Web.git", "github.com/acme/web"},
		{"an https URL without .git names the same repository", "https://github.com/acme/web", "github.com/acme/web"},
		{"a trailing slash is ignored", "https://github.com/acme/web/", "github.com/acme/web"},
		{"a user and a token in an https URL are ignored", "https://x-access-token:abc@github.com/acme/web.git", "github.com/acme/web"},
		{"an http URL with a port drops the port", "http://ghe.example.com:8080/acme/web", "ghe.example.com/acme/web"},
		{"an ssh URL with a port drops the port", "ssh://git@ghe.example.com:2222/acme/web.git", "ghe.example.com/acme/web"},
		{"an ssh URL without a user works", "ssh://github.com/acme/web", "github.com/acme/web"},
		{"an scp-like address works", "git@github.com:acme/web.git", "github.com/acme/web"},
		{"an scp-like address without .git works", "git@github.com:Acme/Web", "github.com/acme/web"},
		{"an scp-like address without a user works", "github.com:acme/web.git", "github.com/acme/web"},
		{"an scp-like address with a leading slash works", "git@github.com:/acme/web.git", "github.com/acme/web"},
		{"a git:// URL works", "git://github.com/acme/web.git", "github.com/acme/web"},
		{"a git+ssh URL works", "git+ssh://git@github.com/acme/web.git", "github.com/acme/web"},
		{"the host is compared case-insensitively", "https://GitHub.COM/acme/web.GIT", "github.com/acme/web"},
		{"surrounding blanks are trimmed", "  https://github.com/acme/web \n", "github.com/acme/web"},
		{"a name with dots keeps them", "https://github.com/acme/web.site.git", "github.com/acme/web.site"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseRemoteURL(tc.url)
			assert.True(t, ok)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, strings.Split(string(tc.want), "/")[1], got.Owner())
			assert.Equal(t, strings.Split(string(tc.want), "/")[2], got.Name())
		})
	}
}

func TestParseRemoteURLRejectsWhatNamesNoHostedRepository(t *testing.T) {
	for name, url := range map[string]string{
		"an empty URL":                       "",
		"a local path":                       "/srv/git/web.git",
		"a relative path":                    "../web",
		"a file URL":                         "file:///srv/git/acme/web.git",
		"a Windows path":                     `C:\repos\web`,
		"a URL with only an owner":           "https://github.com/acme",
		"a URL with too deep a path":         "https://github.com/acme/web/tree/main",
		"an scp-like address without a path": "git@github.com:",
		"an unknown scheme":                  "ftp://github.com/acme/web",
		"a dot-dot segment":                  "https://github.com/acme/..",
	} {
		t.Run("rejects "+name, func(t *testing.T) {
			_, ok := ParseRemoteURL(url)
			assert.False(t, ok, url)
		})
	}
}

func TestWebHost(t *testing.T) {
	tests := []struct{ name, api, want string }{
		{"github.com's API names github.com", "https://api.github.com/", "github.com"},
		{"an Enterprise server's API names the server", "https://ghe.example.com/api/v3/", "ghe.example.com"},
		{"a port is dropped", "http://127.0.0.1:8080/api/v3", "127.0.0.1"},
		{"a data-residency API names its host", "https://api.acme.ghe.com/", "acme.ghe.com"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, WebHost(tc.api)) })
	}
}

func TestAPIBases(t *testing.T) {
	tests := []struct {
		name string
		api  string
		want []string
	}{
		{"no URL is github.com's API", "", []string{DefaultAPIURL}},
		{"github.com's API is used alone", "https://api.github.com", []string{DefaultAPIURL}},
		{"an Enterprise URL with /api/v3 is used as given", "https://ghe.example.com/api/v3", []string{"https://ghe.example.com/api/v3/"}},
		{"a bare server URL tries /api/v3/ first, then the URL as given", "https://ghe.example.com", []string{"https://ghe.example.com/api/v3/", "https://ghe.example.com/"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := apiBases(tc.api)
			assert.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	_, err := apiBases("ghe.example.com")
	assert.EqualError(t, err, `GitHub API URL "ghe.example.com" is not an http(s) URL`)
}

func FuzzParseRemoteURL(f *testing.F) {
	for _, s := range []string{"https://github.com/acme/web.git", "git@github.com:acme/web", "ssh://git@h:22/a/b.git/", "C:\\x", "file:///a/b", "::", "@:/", "a@b:c/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, ok := ParseRemoteURL(s)
		if !ok {
			return
		}
		parts := strings.Split(string(k), "/")
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
			t.Fatalf("%q gave malformed key %q", s, k)
		}
		if string(k) != strings.ToLower(string(k)) {
			t.Fatalf("%q gave a key that is not lower-case: %q", s, k)
		}
		if strings.HasSuffix(string(k), ".git") && !strings.HasSuffix(strings.ToLower(strings.TrimRight(strings.TrimSpace(s), "/")), ".git.git") {
			t.Fatalf("%q kept .git: %q", s, k)
		}
		// The key is a fixed point: parsing its https form gives it back.
		if k2, ok := ParseRemoteURL("https://" + string(k)); !ok || k2 != k {
			t.Fatalf("%q: https form of %q parses to %q, %v", s, k, k2, ok)
		}
	})
}
