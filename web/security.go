package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"path"
	"strings"
)

// The token is never a cookie. Browsers send a host's cookies to every port of it, so
// a cookie on 127.0.0.1 would reach any other server on this machine, and with it
// anyone could act as the person. The page takes the token from the printed URL's
// fragment (#token=..., which the browser never sends anywhere), keeps it in the
// tab's sessionStorage and sends it as Authorization: Bearer, the event stream
// included (read with fetch, not EventSource, which cannot set a header).

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
		// The page's own files carry no data: they load without the token, which
		// the page then sends on every API call. Everything under /api/ needs it.
		if api := path.Clean("/" + r.URL.Path); api != "/api" && !strings.HasPrefix(api, "/api/") {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				writeError(w, http.StatusMethodNotAllowed, "the page's files are read-only")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == sessionPath {
			// The one-time code's exchange: no token yet, but a same-origin page.
			if origin, has := r.Header["Origin"]; !has || !originAllowed(origin[0], r.Host) {
				writeError(w, http.StatusForbidden, "forbidden origin: only guard serve's own page trades a one-time code")
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		a := r.Header.Get("Authorization")
		t, isBearer := strings.CutPrefix(a, "Bearer ")
		if !isBearer || !s.tokenOK(t) {
			msg := "token required: send Authorization: Bearer <token> (the page takes it from the URL guard serve printed, after #token=)"
			if isBearer {
				msg = "wrong token"
			}
			writeError(w, http.StatusUnauthorized, msg)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if origin, has := r.Header["Origin"]; has && !originAllowed(origin[0], r.Host) {
				writeError(w, http.StatusForbidden, "forbidden origin: writes come only from guard serve's own page")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
