package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	gogithub "github.com/google/go-github/v62/github"
)

// Repo is what the audit needs to know about one hosted repository.
type Repo struct {
	FullName   string
	Visibility string // public, private or internal
	Keys       []RepoKey
}

// OwnerError says that listing one owner's repositories failed, and why, in words
// that name the owner.
type OwnerError struct {
	Owner string
	Err   error
}

// Error names the owner and turns the API failure into advice.
func (e *OwnerError) Error() string {
	return fmt.Sprintf("owner %s: %s", e.Owner, describeAPIError(e.Err, e.Owner))
}

// Unwrap returns the API failure.
func (e *OwnerError) Unwrap() error { return e.Err }

// describeAPIError turns an API failure into advice.
func describeAPIError(err error, owner string) string {
	var rl *RateLimitedError
	if errors.As(err, &rl) {
		return rl.Error() + "; run the audit again later or with a token (GH_TOKEN) that has a higher limit"
	}
	switch statusCode(err) {
	case http.StatusUnauthorized:
		return "GitHub rejected the token (401 Unauthorized): check GH_TOKEN / GITHUB_TOKEN"
	case http.StatusForbidden:
		return fmt.Sprintf("GitHub refused access (403 Forbidden) to the repositories of %s: the token lacks the scope or the organisation's approval (SSO)", owner)
	case http.StatusNotFound:
		return fmt.Sprintf("no GitHub user or organisation named %s (404 Not Found) is visible with this token", owner)
	}
	return err.Error()
}

// Lister lists owners' repositories through one client and one rate-limit budget.
type Lister struct {
	// Client is the API client the lists come through.
	Client *Client
	// Token says whether Client has a token (without one, only public
	// repositories can be listed and the authenticated user is not asked).
	Token bool
	// self is the authenticated user's login, learnt on first use ("" without a
	// token, or when the token cannot read its user).
	self  string
	asked bool
	// Progress, when set, is told after each page: the page, the number of pages
	// (from GitHub's Link rel="last"; 0 when GitHub did not say) and the running count
	// of repositories listed.
	Progress func(owner string, page, pages, n int)
}

const perPage = 100

func (l *Lister) authenticatedLogin(ctx context.Context) string {
	if !l.Token {
		return ""
	}
	if !l.asked {
		l.asked = true
		var u *gogithub.User
		_, err := l.Client.do(ctx, func(gh *gogithub.Client) (*gogithub.Response, error) {
			var resp *gogithub.Response
			var err error
			u, resp, err = gh.Users.Get(ctx, "")
			return resp, err
		})
		// An installation token (GITHUB_TOKEN in Actions) may not read /user: then
		// nobody is "the authenticated user", and the calls that follow report
		// their own errors (a rejected token among them).
		if err == nil {
			l.self = u.GetLogin()
		}
	}
	return l.self
}

// lister fetches one page of an owner's repositories.
type lister func(gh *gogithub.Client, page int) ([]*gogithub.Repository, *gogithub.Response, error)

// list returns every repository of owner, page by page: an organisation's through
// ListByOrg, the authenticated user's own through ListByAuthenticatedUser (so private
// ones are included), anyone else's through ListByUser (public ones only: that is all
// GitHub shows). When GitHub does not say what the owner is (GET /users/NAME is 404,
// as some servers answer for organisations), the organisation listing is tried, then
// the user listing.
func (l *Lister) List(ctx context.Context, owner string) ([]Repo, error) {
	byOrg := func(gh *gogithub.Client, page int) ([]*gogithub.Repository, *gogithub.Response, error) {
		return gh.Repositories.ListByOrg(ctx, owner, &gogithub.RepositoryListByOrgOptions{
			Type: "all", ListOptions: gogithub.ListOptions{Page: page, PerPage: perPage}})
	}
	byUser := func(gh *gogithub.Client, page int) ([]*gogithub.Repository, *gogithub.Response, error) {
		return gh.Repositories.ListByUser(ctx, owner, &gogithub.RepositoryListByUserOptions{
			Type: "owner", ListOptions: gogithub.ListOptions{Page: page, PerPage: perPage}})
	}
	var candidates []lister
	if self := l.authenticatedLogin(ctx); self != "" && strings.EqualFold(self, owner) {
		candidates = []lister{func(gh *gogithub.Client, page int) ([]*gogithub.Repository, *gogithub.Response, error) {
			return gh.Repositories.ListByAuthenticatedUser(ctx, &gogithub.RepositoryListByAuthenticatedUserOptions{
				Affiliation: "owner", ListOptions: gogithub.ListOptions{Page: page, PerPage: perPage}})
		}}
	} else {
		var u *gogithub.User
		_, err := l.Client.do(ctx, func(gh *gogithub.Client) (*gogithub.Response, error) {
			var resp *gogithub.Response
			var err error
			u, resp, err = gh.Users.Get(ctx, owner)
			return resp, err
		})
		switch {
		case err == nil && u.GetType() == "Organization":
			candidates = []lister{byOrg}
		case err == nil:
			candidates = []lister{byUser}
		case statusCode(err) == http.StatusNotFound:
			candidates = []lister{byOrg, byUser}
		default:
			return nil, &OwnerError{Owner: owner, Err: err}
		}
	}
	var firstErr error
	for _, fetch := range candidates {
		repos, err := l.pages(ctx, owner, fetch)
		if err == nil {
			return repos, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		var oe *OwnerError
		if !errors.As(err, &oe) || statusCode(oe.Err) != http.StatusNotFound || len(repos) > 0 {
			return nil, err
		}
	}
	return nil, firstErr
}

// pages fetches every page through fetch.
func (l *Lister) pages(ctx context.Context, owner string, fetch lister) ([]Repo, error) {
	var out []Repo
	for page := 1; ; {
		var repos []*gogithub.Repository
		resp, err := l.Client.do(ctx, func(gh *gogithub.Client) (*gogithub.Response, error) {
			var resp *gogithub.Response
			var err error
			repos, resp, err = fetch(gh, page)
			return resp, err
		})
		if err != nil {
			if page == 1 && statusCode(err) == http.StatusNotFound {
				return nil, &OwnerError{Owner: owner, Err: err}
			}
			return out, &OwnerError{Owner: owner, Err: fmt.Errorf("page %d: %w", page, err)}
		}
		for _, r := range repos {
			out = append(out, repoOf(r))
		}
		last := resp == nil || resp.NextPage == 0 || resp.NextPage <= page
		if l.Progress != nil {
			pages := 0
			switch {
			case last:
				pages = page
			case resp.LastPage >= page:
				pages = resp.LastPage
			}
			l.Progress(owner, page, pages, len(out))
		}
		if last {
			return out, nil
		}
		page = resp.NextPage
	}
}

// repoOf keeps what the audit needs from an API repository.
func repoOf(r *gogithub.Repository) Repo {
	rp := Repo{FullName: r.GetFullName(), Visibility: strings.ToLower(r.GetVisibility())}
	if rp.Visibility == "" {
		// Older servers omit visibility; private is always there.
		rp.Visibility = VisibilityPublic
		if r.GetPrivate() {
			rp.Visibility = VisibilityPrivate
		}
	}
	for _, u := range []string{r.GetCloneURL(), r.GetSSHURL(), r.GetHTMLURL(), r.GetGitURL()} {
		if k, ok := ParseRemoteURL(u); ok && !slices.Contains(rp.Keys, k) {
			rp.Keys = append(rp.Keys, k)
		}
	}
	return rp
}
