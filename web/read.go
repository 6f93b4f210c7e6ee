package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// LockID is a lock's id in the API: the first 16 hex digits of its path's SHA-256,
// stable across restarts and opaque (no path in URLs).
func LockID(path string) string {
	sum := sha256.Sum256([]byte(path))
	return hex.EncodeToString(sum[:8])
}

type lockOut struct {
	ID   string `json:"id"`
	Room string `json:"room"`
	// RelativePath is the path within its room (slash-separated): what the page shows.
	RelativePath string `json:"relative_path"`
	// Mine: the lock is the own lock of the identity guard serve acts as in its
	// folder, so renew and release (without force) apply to it.
	Mine bool `json:"mine"`
	lockcore.JSON
}

func (s *Server) lockOut(ids identities, l *lockcore.Lock, now time.Time) lockOut {
	return lockOut{ID: LockID(l.Path), Room: s.room(l.Path), RelativePath: relativePath(s.roomRoot(l.Path), l.Path),
		Mine: ids.mine(l), JSON: l.ToJSON(now)}
}

func (s *Server) scan(ctx context.Context) []*lockcore.Lock {
	res := lockcore.Scan(s.o.Roots, lockcore.ScanOptions{SkipDirs: s.o.SkipDirs, Loc: s.o.Env.Clock.Now().Location()})
	if s.o.Held == nil {
		return res.Locks
	}
	// A lock held in a backend stands for its follower file, and shows where no file
	// is (a lock claimed on another machine).
	held := s.o.Held(ctx)
	byPath := map[string]bool{}
	for _, l := range held {
		byPath[strings.ToLower(l.Path)] = true
	}
	out := held
	for _, l := range res.Locks {
		if !byPath[strings.ToLower(l.Path)] {
			out = append(out, l)
		}
	}
	return out
}

// room is the key of the root holding path: the longest root that contains it.
func (s *Server) room(path string) string {
	best := s.roomRoot(path)
	if best == "" {
		return ""
	}
	return LockID(best)
}

// within reports whether p is root or below it (lexically, both absolute and clean).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// inRoots resolves p (absolute, symlinks followed) and reports whether it lies in a
// configured root, resolved the same way: a symlink out of the roots is outside.
func (s *Server) inRoots(p string) (string, bool) {
	if p == "" || !filepath.IsAbs(p) {
		return "", false
	}
	p = filepath.Clean(p)
	rp, err := filepath.EvalSymlinks(p)
	if err != nil {
		rp = p
	}
	for _, r := range s.o.Roots {
		rr, err := filepath.EvalSymlinks(r.Path)
		if err != nil {
			rr = r.Path
		}
		if within(rr, rp) || within(r.Path, p) && rp == p {
			return p, true
		}
	}
	return "", false
}

func (s *Server) getLocks(w http.ResponseWriter, r *http.Request) {
	status := r.URL.Query().Get("status")
	if status == "" {
		status = "active"
	}
	if status != "active" && status != "all" {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("status must be active or all, not %q", status))
		return
	}
	now := s.o.Env.Clock.Now()
	out := []lockOut{}
	ids := s.identities()
	for _, l := range s.scan(r.Context()) {
		if status == "active" && !l.Active(now) {
			continue
		}
		out = append(out, s.lockOut(ids, l, now))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) findLock(ctx context.Context, id string) *lockcore.Lock {
	for _, l := range s.scan(ctx) {
		if LockID(l.Path) == id {
			return l
		}
	}
	return nil
}

func (s *Server) getLock(w http.ResponseWriter, r *http.Request) {
	l := s.findLock(r.Context(), r.PathValue("id"))
	if l == nil {
		writeError(w, http.StatusNotFound, "no lock with id "+r.PathValue("id")+" under the roots (released, or never there)")
		return
	}
	evs := []guard.Event{}
	if s.o.History != nil {
		got, err := s.o.History(r.Context(), Query{Path: l.Path, Limit: 50})
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		evs = append(evs, got...)
	}
	writeJSON(w, http.StatusOK, struct {
		lockOut
		Events []guard.Event `json:"events"`
	}{s.lockOut(s.identities(), l, s.o.Env.Clock.Now()), evs})
}

type roomOut struct {
	Key    string `json:"key"`
	Path   string `json:"path"`
	Label  string `json:"label"`
	Active int    `json:"active"`
	Total  int    `json:"total"`
	// Owner and Host are who guard serve acts as in the room (as guard lock would in
	// its root); IdentityError names the .guard.toml there that could not be read.
	Owner         string `json:"owner"`
	Host          string `json:"host"`
	IdentityError string `json:"identity_error,omitempty"`
}

func (s *Server) getRooms(w http.ResponseWriter, r *http.Request) {
	now := s.o.Env.Clock.Now()
	out := make([]roomOut, 0, len(s.o.Roots))
	idx := map[string]int{}
	ids := s.identities()
	for _, rt := range s.o.Roots {
		idx[LockID(rt.Path)] = len(out)
		ro := roomOut{Key: LockID(rt.Path), Path: rt.Path, Label: filepath.Base(rt.Path)}
		id, err := ids.at(rt.Path)
		ro.Owner, ro.Host = id.Owner, id.Host
		if err != nil {
			ro.IdentityError = err.Error()
		}
		out = append(out, ro)
	}
	for _, l := range s.scan(r.Context()) {
		i, ok := idx[s.room(l.Path)]
		if !ok {
			continue
		}
		out[i].Total++
		if l.Active(now) {
			out[i].Active++
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getHistory(w http.ResponseWriter, r *http.Request) {
	v := r.URL.Query()
	q := Query{Owner: v.Get("owner"), Event: v.Get("event"), Limit: 100}
	if q.Event != "" && !contains(guard.Events, q.Event) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("unknown event %q (events: %s)", q.Event, strings.Join(guard.Events, ", ")))
		return
	}
	if l := v.Get("limit"); l != "" {
		var n int
		if _, err := fmt.Sscanf(l, "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != l {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("limit must be 0 (no limit) or more, not %q", l))
			return
		}
		q.Limit = n
	}
	if since := v.Get("since"); since != "" {
		d, ok, _ := lockcore.ParseDuration(since)
		if !ok {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("since %q is not a duration like 30m, 12h or 7d", since))
			return
		}
		q.Since = s.o.Env.Clock.Now().Add(-d)
	}
	if p := v.Get("path"); p != "" {
		abs, ok := s.inRoots(p)
		if !ok {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("path %s is outside the roots guard serve watches", p))
			return
		}
		q.Path = abs
	}
	evs := []guard.Event{}
	if s.o.History != nil {
		got, err := s.o.History(r.Context(), q)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		evs = append(evs, got...)
	}
	writeJSON(w, http.StatusOK, evs)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
