package github

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
)

// Issue 6, item 1: the token comes from GH_TOKEN, then GITHUB_TOKEN; the API base
// from --api-url, then GITHUB_API_URL, then .guard.toml, then github.com's.
func TestGitHubTokenAndAPIURLFollowTheirPrecedence(t *testing.T) {
	envOf := func(vars map[string]string) *guard.Env {
		return envtest.New(envtest.Vars(vars)).Env
	}
	tokens := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"GH_TOKEN wins over GITHUB_TOKEN", map[string]string{"GH_TOKEN": "gh", "GITHUB_TOKEN": "github"}, "gh"},
		{"GITHUB_TOKEN is used when GH_TOKEN is unset", map[string]string{"GITHUB_TOKEN": "github"}, "github"},
		{"a blank GH_TOKEN falls through to GITHUB_TOKEN", map[string]string{"GH_TOKEN": "  ", "GITHUB_TOKEN": "github"}, "github"},
		{"no token at all is empty", map[string]string{}, ""},
	}
	for _, tc := range tokens {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Token(envOf(tc.vars)))
		})
	}

	cfg := &guard.Config{}
	cfg.GitHub.APIURL = "https://ghe.example.com/api/v3"
	urls := []struct {
		name string
		flag string
		vars map[string]string
		cfg  *guard.Config
		want string
	}{
		{"the flag wins over the environment and the config", "https://flag.example.com", map[string]string{"GITHUB_API_URL": "https://env.example.com"}, cfg, "https://flag.example.com"},
		{"GITHUB_API_URL wins over the config", "", map[string]string{"GITHUB_API_URL": "https://env.example.com"}, cfg, "https://env.example.com"},
		{"the config is used when nothing else says", "", map[string]string{}, cfg, "https://ghe.example.com/api/v3"},
		{"without anything it is github.com's API", "", map[string]string{}, nil, DefaultAPIURL},
	}
	for _, tc := range urls {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, APIURL(envOf(tc.vars), tc.flag, tc.cfg))
		})
	}
}
