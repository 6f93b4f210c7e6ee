package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/guardlocks/guard/guard"
)

// FetchVisibility asks the API at apiURL for the repository key names, within ctx
// and never waiting out a rate limit. It returns the visibility (VisibilityNotPublic
// for a 404: GitHub shows every public repository to anyone), or "" and the reason it
// could not learn it, in words for a warning. hc may be nil.
func FetchVisibility(ctx context.Context, apiURL, token string, hc *http.Client, env *guard.Env, key RepoKey) (visibility, reason string) {
	// A push never waits out a rate limit: zero budget.
	client, err := NewClient(apiURL, token, hc, &RateWaiter{Now: env.Clock.Now, Sleep: SleepContext})
	if err != nil {
		return "", err.Error()
	}
	var repo *gogithub.Repository
	_, err = client.do(ctx, func(gh *gogithub.Client) (*gogithub.Response, error) {
		var resp *gogithub.Response
		var err error
		repo, resp, err = gh.Repositories.Get(ctx, key.Owner(), key.Name())
		return resp, err
	})
	switch {
	case err == nil:
		return repoOf(repo).Visibility, ""
	case statusCode(err) == http.StatusNotFound:
		return VisibilityNotPublic, ""
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil:
		return "", "no answer from " + apiURL + " in time"
	}
	var rl *RateLimitedError
	if errors.As(err, &rl) {
		return "", "GitHub's rate limit is exhausted"
	}
	if code := statusCode(err); code != 0 {
		return "", fmt.Sprintf("GitHub answered %d %s", code, http.StatusText(code))
	}
	return "", err.Error()
}
