// Package webhook posts one JSON document to a URL and says whether it arrived: the
// notification of guard prune --webhook (CONTRACT.md section 9). A notification is a
// courtesy: callers turn a failure into a warning, never into a different outcome.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Timeout bounds a whole post (connect, send, answer), as the reference's 5 s.
const Timeout = 5 * time.Second

// UserAgent names guard to the receiver.
const UserAgent = "guard-prune/1"

// Check reports whether raw is a URL a notification can be posted to: http or https
// with a host. It is checked before anything is done, so a typo never costs the
// notification of real work.
func Check(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("webhook %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("webhook %q: the URL must use http(s)", raw)
	}
	if u.Host == "" {
		return fmt.Errorf("webhook %q: the URL has no host", raw)
	}
	return nil
}

// Post sends doc as JSON to raw within timeout (Timeout when 0) and returns nil only
// for a 2xx answer. Redirects are not followed (a POST turned into a GET elsewhere is
// not a delivery), and no proxy from the environment is used: the receiver is
// reached directly.
func Post(ctx context.Context, raw string, doc any, timeout time.Duration) error {
	if err := Check(raw); err != nil {
		return err
	}
	if timeout <= 0 {
		timeout = Timeout
	}
	body, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("webhook %s: %w", raw, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, raw, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook %s: %w", raw, err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", UserAgent)
	client := &http.Client{
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("webhook %s: no answer within %s", raw, timeout)
		}
		return fmt.Errorf("webhook %s: %w", raw, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook %s: answered %s", raw, resp.Status)
	}
	return nil
}
