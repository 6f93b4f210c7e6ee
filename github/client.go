// Package github is guard's client of the GitHub REST API (github.com, or an
// Enterprise server): the token and API base a command uses, rate limits waited out
// within a budget, the repositories of an owner, one repository's visibility, and the
// names a git remote gives a hosted repository (URLs and ssh host aliases). What a
// visibility means against the markers is guard's decision, not this package's.
package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/guardlocks/guard/guard"
)

// DefaultAPIURL is the API base of github.com.
const DefaultAPIURL = "https://api.github.com/"

// DefaultRateLimitWait bounds how long one audit waits out GitHub's rate limits in
// total before it gives up and reports itself incomplete.
const DefaultRateLimitWait = 60 * time.Second

// Visibility values of a repository as GitHub reports them, plus the states guard
// adds when it cannot learn more (guard decides what they mean against the markers).
const (
	VisibilityPublic    = guard.VisibilityPublic
	VisibilityPrivate   = guard.VisibilityPrivate
	VisibilityInternal  = guard.VisibilityInternal
	VisibilityNotPublic = guard.VisibilityNotPublic
)

// Token returns the API token: GH_TOKEN, else GITHUB_TOKEN (as gh does).
func Token(env *guard.Env) string {
	if t := strings.TrimSpace(env.Env("GH_TOKEN")); t != "" {
		return t
	}
	return strings.TrimSpace(env.Env("GITHUB_TOKEN"))
}

// APIURL picks the API base: the flag, else GITHUB_API_URL, else .guard.toml
// (cfg may be nil), else github.com's.
func APIURL(env *guard.Env, flag string, cfg *guard.Config) string {
	if flag != "" {
		return flag
	}
	if u := env.Env("GITHUB_API_URL"); u != "" {
		return u
	}
	if cfg != nil && cfg.GitHubAPIURL() != "" {
		return cfg.GitHubAPIURL()
	}
	return DefaultAPIURL
}

// apiBases returns the API base URLs to try for apiURL, in order. github.com's API
// is the default; an Enterprise server answers under /api/v3/, which go-github's
// convention adds to a URL that lacks it, but a server can also answer at the URL as
// given (a proxy, a test server): that is the second candidate, tried when the first
// answers 404 on first contact.
func apiBases(apiURL string) ([]string, error) {
	if apiURL == "" || sameURL(apiURL, DefaultAPIURL) {
		return []string{DefaultAPIURL}, nil
	}
	u, err := url.Parse(apiURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("GitHub API URL %q is not an http(s) URL", apiURL)
	}
	u.RawQuery, u.Fragment = "", ""
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	literal := u.String()
	if strings.HasSuffix(u.Path, "/api/v3/") || strings.HasPrefix(u.Host, "api.") {
		return []string{literal}, nil
	}
	u.Path += "api/v3/"
	return []string{u.String(), literal}, nil
}

// newClientAt builds a go-github client for the API at base (used as given) with
// token (none when empty). httpClient may be nil.
func newClientAt(base, token string, httpClient *http.Client) (*gogithub.Client, error) {
	c := gogithub.NewClient(httpClient)
	if token != "" {
		c = c.WithAuthToken(token)
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("GitHub API URL %q: %w", base, err)
	}
	c.BaseURL, c.UploadURL = u, u
	return c, nil
}

// Client is a go-github client that waits out rate limits and settles, on first
// contact, which of the candidate API bases the server answers under.
type Client struct {
	gh         *gogithub.Client
	wait       *RateWaiter
	bases      []string
	token      string
	httpClient *http.Client
	settled    bool
}

// NewClient returns a client of the API at apiURL with token (none when empty),
// waiting out rate limits through wait (which it also uses to start a fresh client
// after each wait). httpClient may be nil.
func NewClient(apiURL, token string, httpClient *http.Client, wait *RateWaiter) (*Client, error) {
	bases, err := apiBases(apiURL)
	if err != nil {
		return nil, err
	}
	c := &Client{wait: wait, bases: bases, token: token, httpClient: httpClient, settled: len(bases) == 1}
	if c.gh, err = newClientAt(bases[0], token, httpClient); err != nil {
		return nil, err
	}
	// go-github remembers a limit by the machine's clock and would refuse the retry
	// by itself; the waiter is the one place that decides how long to wait, so each
	// retry starts from a fresh client.
	wait.afterWait = func() {
		if gh, err := newClientAt(c.bases[0], token, httpClient); err == nil {
			c.gh = gh
		}
	}
	return c, nil
}

// do runs call against the client, waiting out rate limits. Until some call gets an
// answer from the REST API, a 404 is retried on the other candidate base.
func (c *Client) do(ctx context.Context, call func(gh *gogithub.Client) (*gogithub.Response, error)) (*gogithub.Response, error) {
	resp, err := c.wait.do(ctx, func() (*gogithub.Response, error) { return call(c.gh) })
	if c.settled {
		return resp, err
	}
	if apiAnswered(err) {
		c.settled = true
		return resp, err
	}
	if statusCode(err) != http.StatusNotFound {
		return resp, err // no answer at all (network): decide later
	}
	alt, aerr := newClientAt(c.bases[1], c.token, c.httpClient)
	if aerr != nil {
		return resp, err
	}
	resp2, err2 := c.wait.do(ctx, func() (*gogithub.Response, error) { return call(alt) })
	if !apiAnswered(err2) {
		return resp, err // 404 on both: a real "not found", or still undecided
	}
	c.gh, c.bases, c.settled = alt, c.bases[1:], true
	return resp2, err2
}

func sameURL(a, b string) bool {
	return strings.TrimRight(strings.ToLower(a), "/") == strings.TrimRight(strings.ToLower(b), "/")
}

// WebHost returns the host that a repository's git remotes name for an API base:
// github.com for api.github.com, the server itself for an Enterprise base
// (https://ghe.example.com/api/v3/ → ghe.example.com). Ports are dropped, as remote
// URLs are compared without them.
func WebHost(apiURL string) string {
	u, err := url.Parse(apiURL)
	if err != nil || u.Host == "" {
		return ""
	}
	h := strings.ToLower(u.Hostname())
	if h == "api.github.com" {
		return "github.com"
	}
	// GitHub Enterprise Cloud with data residency serves its API from api.<host>.
	if rest, ok := strings.CutPrefix(h, "api."); ok && strings.Contains(rest, ".") && !strings.HasSuffix(u.Path, "/api/v3/") && !strings.HasSuffix(u.Path, "/api/v3") {
		return rest
	}
	return h
}

// RateWaiter waits out GitHub's rate limits within a total budget. Its zero Budget
// waits for nothing: a rate limit is then a *RateLimitedError at once.
type RateWaiter struct {
	// Budget bounds the total time spent waiting.
	Budget time.Duration
	// Now is the clock the limits' reset times are compared with.
	Now func() time.Time
	// Sleep waits for a duration or until the context ends (SleepContext).
	Sleep func(context.Context, time.Duration) error
	// Notify, when set, is told before each wait.
	Notify func(wait, budget time.Duration)
	spent  time.Duration
	// afterWait runs after each wait (Client starts a fresh client there).
	afterWait func()
}

// SleepContext waits for d or until ctx ends.
func SleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// rateLimitWait reports whether err is a rate limit and how long GitHub asks to wait.
// Primary limits (403 or 429 with X-RateLimit-Remaining: 0) last until
// X-RateLimit-Reset; secondary limits say Retry-After, or nothing (then GitHub's
// documentation asks for at least a minute).
func rateLimitWait(err error, now time.Time) (time.Duration, bool) {
	var rle *gogithub.RateLimitError
	if errors.As(err, &rle) {
		return untilReset(rle.Rate.Reset.Time, now), true
	}
	var are *gogithub.AbuseRateLimitError
	if errors.As(err, &are) {
		if are.RetryAfter != nil {
			return max(*are.RetryAfter, 0), true
		}
		return time.Minute, true
	}
	// go-github recognises a 403 with X-RateLimit-Remaining: 0 or a secondary-limit
	// documentation URL; GitHub also answers 429, and a 403 with Retry-After.
	var er *gogithub.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return 0, false
	}
	code, h := er.Response.StatusCode, er.Response.Header
	if code != http.StatusTooManyRequests && code != http.StatusForbidden {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.Atoi(v); err == nil {
			return time.Duration(max(s, 0)) * time.Second, true
		}
	}
	if strings.TrimSpace(h.Get("X-RateLimit-Remaining")) == "0" {
		if s, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-RateLimit-Reset")), 10, 64); err == nil {
			return untilReset(time.Unix(s, 0), now), true
		}
	}
	if code == http.StatusTooManyRequests || strings.Contains(strings.ToLower(er.Message), "rate limit") {
		return time.Minute, true
	}
	return 0, false
}

func untilReset(reset, now time.Time) time.Duration {
	if reset.IsZero() {
		return time.Minute
	}
	// One second of slack: the reset time has a one-second resolution.
	return max(reset.Sub(now)+time.Second, 0)
}

// RateLimitedError says that GitHub's rate limit outlasted the wait budget.
type RateLimitedError struct {
	Wait   time.Duration // what GitHub asked for
	Waited time.Duration // what was already spent
	Err    error
}

// Error says how long GitHub asked to wait and how much of the budget was spent.
func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("GitHub rate limit: asked to wait %s more after %s already waited (limit of the wait reached): %v",
		e.Wait.Round(time.Second), e.Waited.Round(time.Second), e.Err)
}

// Unwrap returns the API error that reported the limit.
func (e *RateLimitedError) Unwrap() error { return e.Err }

// do runs call, waiting out rate limits while the budget lasts.
func (w *RateWaiter) do(ctx context.Context, call func() (*gogithub.Response, error)) (*gogithub.Response, error) {
	for {
		resp, err := call()
		if err == nil {
			return resp, nil
		}
		d, limited := rateLimitWait(err, w.Now())
		if !limited {
			return resp, err
		}
		if w.spent+d > w.Budget {
			return resp, &RateLimitedError{Wait: d, Waited: w.spent, Err: err}
		}
		if w.Notify != nil {
			w.Notify(d, w.Budget)
		}
		if serr := w.Sleep(ctx, d); serr != nil {
			return resp, fmt.Errorf("waiting out the GitHub rate limit: %w", serr)
		}
		w.spent += d
		if w.afterWait != nil {
			w.afterWait()
		}
		// A zero wait must still make progress: count it as a tick so that a server
		// that keeps answering "limited, reset now" cannot loop forever.
		if d == 0 {
			w.spent += time.Millisecond
		}
	}
}

// apiAnswered reports whether a call reached a GitHub REST API: it succeeded, or
// failed with GitHub's JSON error body (other than 404). A web page (a login
// redirect, an HTML 404) is no API.
func apiAnswered(err error) bool {
	if err == nil {
		return true
	}
	var rle *gogithub.RateLimitError
	var are *gogithub.AbuseRateLimitError
	if errors.As(err, &rle) || errors.As(err, &are) {
		return true
	}
	var er *gogithub.ErrorResponse
	return errors.As(err, &er) && er.Message != "" && statusCode(err) != http.StatusNotFound
}

// statusCode returns the HTTP status of a go-github error (0 when there is none).
func statusCode(err error) int {
	var er *gogithub.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}
