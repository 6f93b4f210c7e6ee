package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
)

// cookieName carries the token after the first visit with ?token=.
const cookieName = "guard_token"

// NewToken is a fresh secret: 32 random bytes, hex.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// LoopbackHost reports whether host (a name or an address, without port) is loopback:
// localhost, 127.0.0.0/8 or ::1. Everything else is refused, including names that only
// resolve to loopback (DNS rebinding goes through exactly such names).
func LoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostAllowed checks a request's Host header: a loopback name or address, and the
// server's own port when a port is given.
func (s *Server) hostAllowed(h string) bool {
	if h == "" || strings.ContainsAny(h, "\r\n /\\@") {
		return false
	}
	host, port, err := net.SplitHostPort(h)
	if err != nil {
		host, port = h, ""
	}
	if !LoopbackHost(host) {
		return false
	}
	return port == "" || port == s.port
}

// originAllowed checks a write's Origin: exactly http://<the request's Host>, which
// hostAllowed has already vetted. "null" (sandboxed frames, file: pages) is foreign.
func originAllowed(origin, host string) bool {
	return origin == "http://"+host
}

func (s *Server) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// secure wraps every handler: headers first, then Host, token and Origin, in that
// order; no CORS header is ever sent, so another site's script cannot read a reply.
func (s *Server) secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if !s.hostAllowed(r.Host) {
			writeError(w, http.StatusForbidden, "forbidden host: guard serve answers only to loopback names and addresses on its own port")
			return
		}
		bearer := false
		authed := false
		if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
			if !s.tokenOK(strings.TrimPrefix(a, "Bearer ")) {
				writeError(w, http.StatusUnauthorized, "wrong token")
				return
			}
			bearer, authed = true, true
		} else if c, err := r.Cookie(cookieName); err == nil && s.tokenOK(c.Value) {
			authed = true
		}
		page := r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/api/")
		if !authed && page && (s.tokenOK(r.URL.Query().Get("token")) || s.codes.redeem(r.URL.Query().Get("code"), s.o.Env.Clock.Now())) {
			// The first visit: trade the URL's token, or the one-time code --open gave
			// the browser, for a cookie and drop it from the address bar (and from any
			// Referer).
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			http.Redirect(w, r, r.URL.Path, http.StatusSeeOther)
			return
		}
		if !authed {
			writeError(w, http.StatusUnauthorized, "token required: open the URL guard serve printed (it carries ?token=), or send Authorization: Bearer <token>")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			origin, has := r.Header["Origin"]
			switch {
			case has && !originAllowed(origin[0], r.Host):
				writeError(w, http.StatusForbidden, "forbidden origin: writes come only from guard serve's own page")
				return
			case !has && !bearer:
				writeError(w, http.StatusForbidden, "a write authenticated by the cookie needs the page's Origin header")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
