package audit

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeGitHub is an httptest server that answers the REST endpoints the audit and the
// visibility check use, as GitHub does: JSON bodies, pagination by Link header,
// rate-limit headers, 401 for a bad token, 404 for unknown users and repositories.
type fakeGitHub struct {
	t      testing.TB
	srv    *httptest.Server
	prefix string // "/" for github.com, "/api/v3/" for Enterprise
	token  string // the token that is accepted ("" accepts anonymous requests too)
	self   string // login of the token's user
	// users maps a login to "User" or "Organization".
	users map[string]string
	// repos maps an owner login to its repositories.
	repos    map[string][]fakeRepo
	pageSize int
	// hideUsers makes GET /users/NAME answer 404 for everyone, as a minimal server
	// that only lists repositories would.
	hideUsers bool
	// script maps a request path (without prefix) to answers served, in order,
	// before the normal one.
	script map[string][]func(http.ResponseWriter)

	mu       sync.Mutex
	requests []string
}

type fakeRepo struct {
	Name       string
	Visibility string
}

func newFakeGitHub(t testing.TB, prefix string) *fakeGitHub {
	f := &fakeGitHub{t: t, prefix: prefix, users: map[string]string{}, repos: map[string][]fakeRepo{}, pageSize: 2, script: map[string][]func(http.ResponseWriter){}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// apiURL is the base URL a client is configured with.
func (f *fakeGitHub) apiURL() string { return f.srv.URL + f.prefix }

func (f *fakeGitHub) requestLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

func (f *fakeGitHub) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.RequestURI())
	f.mu.Unlock()
	if !strings.HasPrefix(r.URL.Path, f.prefix) {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	path := strings.TrimPrefix(r.URL.Path, f.prefix)
	f.mu.Lock()
	if s := f.script[path]; len(s) > 0 {
		f.script[path] = s[1:]
		f.mu.Unlock()
		s[0](w)
		return
	}
	f.mu.Unlock()
	w.Header().Set("X-RateLimit-Limit", "5000")
	w.Header().Set("X-RateLimit-Remaining", "4999")
	auth := r.Header.Get("Authorization")
	if auth != "" && auth != "Bearer "+f.token {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
		return
	}
	authed := auth != "" && f.token != ""
	parts := strings.Split(path, "/")
	switch {
	case path == "user":
		if !authed {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Requires authentication"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"login": f.self, "type": "User"})
	case len(parts) == 2 && parts[0] == "users":
		typ, ok := f.users[parts[1]]
		if !ok || f.hideUsers {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"login": parts[1], "type": typ})
	case len(parts) == 3 && parts[0] == "orgs" && parts[2] == "repos":
		if f.users[parts[1]] != "Organization" {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		f.page(w, r, parts[1], true, authed)
	case len(parts) == 3 && parts[0] == "users" && parts[2] == "repos":
		f.page(w, r, parts[1], false, authed)
	case path == "user/repos":
		if !authed {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Requires authentication"})
			return
		}
		if got := r.URL.Query().Get("affiliation"); got != "owner" {
			f.t.Errorf("user/repos asked with affiliation %q, want owner", got)
		}
		f.page(w, r, f.self, true, authed)
	case len(parts) == 3 && parts[0] == "repos":
		for _, rp := range f.repos[parts[1]] {
			if strings.EqualFold(rp.Name, parts[2]) && (rp.Visibility == "public" || authed) {
				writeJSON(w, http.StatusOK, f.repoJSON(parts[1], rp))
				return
			}
		}
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	default:
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	}
}

// page serves one page of owner's repositories with a Link header to the next and
// last pages, as GitHub paginates.
func (f *fakeGitHub) page(w http.ResponseWriter, r *http.Request, owner string, showPrivate, authed bool) {
	if _, ok := f.users[owner]; !ok && owner != f.self {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	var all []fakeRepo
	for _, rp := range f.repos[owner] {
		if rp.Visibility == "public" || (showPrivate && authed) {
			all = append(all, rp)
		}
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page < 1 {
		page = 1
	}
	last := (len(all) + f.pageSize - 1) / f.pageSize
	if last < 1 {
		last = 1
	}
	lo, hi := (page-1)*f.pageSize, page*f.pageSize
	lo, hi = min(lo, len(all)), min(hi, len(all))
	link := func(p int, rel string) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(p))
		return fmt.Sprintf(`<%s%s?%s>; rel="%s"`, f.srv.URL, r.URL.Path, q.Encode(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	out := []map[string]any{}
	for _, rp := range all[lo:hi] {
		out = append(out, f.repoJSON(owner, rp))
	}
	writeJSON(w, http.StatusOK, out)
}

func (f *fakeGitHub) repoJSON(owner string, rp fakeRepo) map[string]any {
	host := strings.TrimPrefix(f.srv.URL, "http://")
	full := owner + "/" + rp.Name
	return map[string]any{
		"name": rp.Name, "full_name": full, "private": rp.Visibility != "public",
		"visibility": rp.Visibility,
		"html_url":   "http://" + host + "/" + full,
		"clone_url":  "http://" + host + "/" + full + ".git",
		"ssh_url":    "git@" + strings.Split(host, ":")[0] + ":" + full + ".git",
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
