package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"
)

// CodeLife is how long a one-time code stays good.
const CodeLife = 60 * time.Second

// oneTimeCodes are what guard serve --open hands the browser instead of the token: a
// program's command line is readable by every process on the machine (ps, /proc), so
// the URL given to xdg-open must not carry the token. A code is good once, for
// CodeLife, and only for the first page load, which trades it for the token's cookie;
// then the server forgets it. Only the codes' hashes are kept.
type oneTimeCodes struct {
	mu    sync.Mutex
	codes map[[32]byte]time.Time // hash → expiry
}

// issue returns a fresh code, good until now + CodeLife.
func (c *oneTimeCodes) issue(now time.Time) (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	code := hex.EncodeToString(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.codes == nil {
		c.codes = map[[32]byte]time.Time{}
	}
	c.codes[sha256.Sum256([]byte(code))] = now.Add(CodeLife)
	return code, nil
}

// redeem reports whether code is good at now, and forgets it either way (and every
// expired one).
func (c *oneTimeCodes) redeem(code string, now time.Time) bool {
	if code == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	h := sha256.Sum256([]byte(code))
	until, ok := c.codes[h]
	delete(c.codes, h)
	for k, t := range c.codes {
		if !now.Before(t) {
			delete(c.codes, k)
		}
	}
	return ok && now.Before(until)
}

// OneTimeURL is base (http://host:port) with a fresh one-time code instead of the
// token: the URL guard serve --open gives the browser.
func (s *Server) OneTimeURL(base string) (string, error) {
	code, err := s.codes.issue(s.o.Env.Clock.Now())
	if err != nil {
		return "", err
	}
	return base + "/?code=" + code, nil
}
