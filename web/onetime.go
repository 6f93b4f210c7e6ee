package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// CodeLife is how long a one-time code stays good.
const CodeLife = 60 * time.Second

// oneTimeCodes are what guard serve --open hands the browser instead of the token. A
// program's command line is readable by every process on the machine (ps, /proc), so
// neither the token nor a code goes there: the browser is started on a file only its
// user can read (OpenPage), which sends it on to the page with a code in the URL's
// fragment; the page trades the code for the token (POST /api/session). A code is good
// once, for CodeLife; then the server forgets it. Only the codes' hashes are kept.
type oneTimeCodes struct {
	mu    sync.Mutex
	codes map[[32]byte]time.Time // hash → expiry
	done  map[[32]byte]func()    // hash → what to do once it is redeemed
}

// onDone runs fn once code has been redeemed.
func (c *oneTimeCodes) onDone(code string, fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = map[[32]byte]func(){}
	}
	c.done[sha256.Sum256([]byte(code))] = fn
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
	if fn := c.done[h]; fn != nil {
		delete(c.done, h)
		go fn()
	}
	for k, t := range c.codes {
		if !now.Before(t) {
			delete(c.codes, k)
		}
	}
	return ok && now.Before(until)
}

// OpenPage writes, in dir (which only its user can enter), a page that sends the
// browser on to base/#code=<a fresh one-time code>, and returns its path and a function
// that removes it. The file is the user's only (0600) and is removed once its code is
// redeemed or has expired: what goes on the browser's command line is its path, never
// a secret.
func (s *Server) OpenPage(dir, base string) (string, error) {
	code, err := s.codes.issue(s.o.Env.Clock.Now())
	if err != nil {
		return "", err
	}
	target := base + "/#code=" + code
	page := "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">" +
		"<meta http-equiv=\"refresh\" content=\"0; url=" + target + "\"><title>guard serve</title>" +
		"<p>Opening <a href=\"" + target + "\">guard serve</a>...</p>\n"
	f, err := os.CreateTemp(dir, "open-*.html")
	if err != nil {
		return "", err
	}
	name := f.Name()
	if err := f.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		f.Close()
		os.Remove(name)
		return "", err
	}
	if _, err := f.WriteString(page); err != nil {
		f.Close()
		os.Remove(name)
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", err
	}
	s.codes.onDone(code, func() { os.Remove(name) })
	time.AfterFunc(CodeLife, func() { os.Remove(name) })
	return name, nil
}

// FileURL is the file: URL of an absolute path.
func FileURL(p string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(p)}
	if runtime.GOOS == "windows" {
		u.Path = "/" + u.Path
	}
	return u.String()
}
