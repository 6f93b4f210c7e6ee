// Package web is guard serve (CONTRACT.md section 9): a REST API and one embedded page
// over the lock files under a set of roots, fed live by the watcher, for the person at
// the machine. It is loopback only and every request carries a secret token that only
// the terminal that started it has: the page is the person's channel (user locks may be
// made and removed here), and agents on the same machine cannot use it.
package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"

	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

//go:embed static
var static embed.FS

// Query is what GET /api/history selects (the query of guard history).
type Query struct {
	Path, Owner, Event string
	Since              time.Time
	Limit              int
}

// Options configure a server. History and Stats come from the history package and Watch
// from the watch package; cmd/guard wires them in.
type Options struct {
	Env *guard.Env
	// Held, when set, returns the locks the roots' lock backends hold (etcd): the
	// page lists them with the files (main wires them in).
	Held     func(ctx context.Context) []*lockcore.Lock
	Roots    []lockcore.ScanRoot
	SkipDirs []string
	// RootsInput is how the roots were given (prune and lockdown resolve them again).
	RootsInput command.RootsInput
	Token      string
	// History returns the events q selects, newest first.
	History func(ctx context.Context, q Query) ([]guard.Event, error)
	// Stats returns the history's statistics (any JSON value).
	Stats func(ctx context.Context) (any, error)
	// Tally returns what the history knows beyond statistics: how many events it
	// holds, and the lock files whose last event was a release or a prune.
	Tally func(ctx context.Context) (Tally, error)
	// Rescan asks the serving watcher for a full rescan and returns its result (nil:
	// no watcher; POST /api/scan then only reads the roots).
	Rescan func(ctx context.Context) (guard.WatchScan, error)
}

// Tally is the history's part of GET /api/stats.
type Tally struct {
	Total int
	Gone  []string
}

// Server is one guard serve.
type Server struct {
	o     Options
	token string
	port  string
	mu    sync.Mutex // one claim, release, prune or lockdown at a time

	subMu sync.Mutex
	subs  map[chan []byte]struct{}
	// recent are the events published in the last dedupeWindow, by dedupeKey: the
	// watcher and the history both report a claim made by guard lock.
	recent map[string]time.Time

	scanMu   sync.Mutex
	lastScan *guard.WatchScan

	codes oneTimeCodes
}

// New returns a server for o; SetPort must be called with the listening port before
// it serves (the Host check compares it).
func New(o Options) *Server {
	return &Server{o: o, token: o.Token, subs: map[chan []byte]struct{}{}, recent: map[string]time.Time{}}
}

// SetPort sets the port the Host header must name (when it names one).
func (s *Server) SetPort(p string) { s.port = p }

// Handler is the whole server: the API and the page, behind the security gate.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/locks", s.getLocks)
	mux.HandleFunc("GET /api/locks/{id}", s.getLock)
	mux.HandleFunc("POST /api/locks", s.postLock)
	mux.HandleFunc("DELETE /api/locks/{id}", s.deleteLock)
	mux.HandleFunc("GET /api/rooms", s.getRooms)
	mux.HandleFunc("GET /api/history", s.getHistory)
	mux.HandleFunc("GET /api/stats", s.getStats)
	mux.HandleFunc("GET /api/events", s.getEvents)
	mux.HandleFunc("POST /api/scan", s.postScan)
	mux.HandleFunc("POST /api/prune", s.postPrune)
	mux.HandleFunc("POST /api/lockdown", s.postLockdown)
	mux.HandleFunc("POST /api/lockdown/undo", s.postLockdownUndo)
	mux.HandleFunc("POST "+sessionPath, s.postSession)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "unknown API endpoint "+r.URL.Path)
	})
	sub, _ := fs.Sub(static, "static")
	files := http.FileServerFS(sub)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { files.ServeHTTP(w, r) })
	mux.HandleFunc("GET /app.js", func(w http.ResponseWriter, r *http.Request) { files.ServeHTTP(w, r) })
	mux.HandleFunc("GET /app.css", func(w http.ResponseWriter, r *http.Request) { files.ServeHTTP(w, r) })
	return s.secure(mux)
}

// dedupeWindow is how long an event suppresses its twin: the same event about the same
// lock with the same fence, seen by the watcher on disk and recorded by the command that
// did it (a few milliseconds to a second apart).
const dedupeWindow = 10 * time.Second

func dedupeKey(ev guard.Event) string {
	fence := ""
	if ev.Fence != nil {
		fence = fmt.Sprint(*ev.Fence)
	}
	return strings.Join([]string{ev.Event, ev.Path, fence}, "\x00")
}

// Publish sends ev to every /api/events subscriber (a slow one misses events rather
// than stalling the watcher). The events come from the serving watcher and from the
// history (guard's commands and the hooks, in this and other processes); the second of
// two reports of one change is dropped.
func (s *Server) Publish(ev guard.Event) {
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	s.subMu.Lock()
	defer s.subMu.Unlock()
	now := s.o.Env.Clock.Now()
	for k, at := range s.recent {
		if now.Sub(at) > dedupeWindow {
			delete(s.recent, k)
		}
	}
	if ev.Event != guard.EventRefused && ev.Event != guard.EventBypassed && ev.Event != guard.EventWaiting {
		// Lock events have twins (disk and journal); gate events happen once each.
		k := dedupeKey(ev)
		if _, dup := s.recent[k]; dup {
			return
		}
		s.recent[k] = now
	}
	for c := range s.subs {
		select {
		case c <- b:
		default:
		}
	}
}

// LockID is a lock's id in the API: the first 16 hex digits of its path's SHA-256,
// stable across restarts and opaque (no path in URLs).
func LockID(path string) string {
	sum := sha256.Sum256([]byte(path))
	return hex.EncodeToString(sum[:8])
}

type lockOut struct {
	ID   string `json:"id"`
	Room string `json:"room"`
	lockcore.JSON
}

type apiError struct {
	Error  string `json:"error"`
	Exit   int    `json:"exit,omitempty"`
	Stderr string `json:"stderr,omitempty"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, apiError{Error: msg})
}

func (s *Server) scan() []*lockcore.Lock {
	res := lockcore.Scan(s.o.Roots, lockcore.ScanOptions{SkipDirs: s.o.SkipDirs, Loc: s.o.Env.Clock.Now().Location()})
	if s.o.Held == nil {
		return res.Locks
	}
	// A lock held in a backend stands for its follower file, and shows where no file
	// is (a lock claimed on another machine).
	held := s.o.Held(context.Background())
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
	best := ""
	for _, r := range s.o.Roots {
		if within(r.Path, path) && len(r.Path) > len(best) {
			best = r.Path
		}
	}
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

func (s *Server) lockOut(l *lockcore.Lock, now time.Time) lockOut {
	return lockOut{ID: LockID(l.Path), Room: s.room(l.Path), JSON: l.ToJSON(now)}
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
	for _, l := range s.scan() {
		if status == "active" && !l.Active(now) {
			continue
		}
		out = append(out, s.lockOut(l, now))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) findLock(id string) *lockcore.Lock {
	for _, l := range s.scan() {
		if LockID(l.Path) == id {
			return l
		}
	}
	return nil
}

func (s *Server) getLock(w http.ResponseWriter, r *http.Request) {
	l := s.findLock(r.PathValue("id"))
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
	}{s.lockOut(l, s.o.Env.Clock.Now()), evs})
}

type roomOut struct {
	Key    string `json:"key"`
	Path   string `json:"path"`
	Label  string `json:"label"`
	Active int    `json:"active"`
	Total  int    `json:"total"`
}

func (s *Server) getRooms(w http.ResponseWriter, r *http.Request) {
	now := s.o.Env.Clock.Now()
	out := make([]roomOut, 0, len(s.o.Roots))
	idx := map[string]int{}
	for _, rt := range s.o.Roots {
		idx[LockID(rt.Path)] = len(out)
		out = append(out, roomOut{Key: LockID(rt.Path), Path: rt.Path, Label: filepath.Base(rt.Path)})
	}
	for _, l := range s.scan() {
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

func (s *Server) getEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "streaming is not supported")
		return
	}
	c := make(chan []byte, 64)
	s.subMu.Lock()
	s.subs[c] = struct{}{}
	s.subMu.Unlock()
	defer func() {
		s.subMu.Lock()
		delete(s.subs, c)
		s.subMu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": guard serve events\n\n")
	fl.Flush()
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case b := <-c:
			fmt.Fprintf(w, "event: lock\ndata: %s\n\n", b)
			fl.Flush()
		case <-tick.C:
			fmt.Fprint(w, ": keepalive\n\n")
			fl.Flush()
		}
	}
}

// decode reads a small JSON object body strictly: unknown fields and wrong types are
// 400, so "commit": "false" is an error and never a commit.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "request body: "+err.Error())
		return false
	}
	return true
}

// run runs one of guard's own command functions as the web's person: a copy of the
// server's environment in dir, output captured, events recorded with actor "web".
// It answers the command's JSON, or the refusal with its exit code.
func (s *Server) run(w http.ResponseWriter, dir string, f func(env *guard.Env) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	env := *s.o.Env
	var out, errb bytes.Buffer
	env.Stdout, env.Stderr, env.Stdin = &out, &errb, strings.NewReader("")
	if dir != "" {
		env.Dir = dir
	}
	base := s.o.Env
	env.Recorder = func(ev guard.Event) {
		ev.Actor = "web"
		base.Record(ev)
	}
	err := f(&env)
	if err != nil {
		code := guard.ExitCode(err)
		status := http.StatusBadRequest
		if code == guard.ExitRefused || code == guard.ExitLost {
			status = http.StatusConflict
		}
		msg := err.Error()
		var ee *guard.ExitError
		if errors.As(err, &ee) && ee.Err == nil {
			msg = strings.TrimSpace(errb.String())
		}
		writeJSON(w, status, apiError{Error: msg, Exit: code, Stderr: errb.String()})
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	var compact bytes.Buffer
	if err := json.Compact(&compact, out.Bytes()); err != nil || compact.Len() == 0 {
		compact.Reset()
		compact.WriteString("{}")
	}
	compact.WriteByte('\n')
	_, _ = w.Write(compact.Bytes())
}

type claimIn struct {
	Dir              string `json:"dir"`
	Scope            string `json:"scope"`
	Team             string `json:"team"`
	User             bool   `json:"user"`
	Condition        bool   `json:"condition"`
	ReleaseCondition string `json:"release_condition"`
	Owner            string `json:"owner"`
	Expires          string `json:"expires"`
	Mode             string `json:"mode"`
	Purpose          string `json:"purpose"`
	Operations       string `json:"operations"`
}

func (s *Server) postLock(w http.ResponseWriter, r *http.Request) {
	var in claimIn
	if !decode(w, r, &in) {
		return
	}
	dir, ok := s.inRoots(in.Dir)
	if !ok {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("dir %q is outside the roots guard serve watches (give an absolute folder inside one of them)", in.Dir))
		return
	}
	s.run(w, dir, func(env *guard.Env) error {
		return command.RunLock(command.LockOptions{
			Env: env, Dir: dir, JSON: true,
			LockNaming: command.LockNaming{Scope: in.Scope, Team: in.Team, User: in.User, Condition: in.Condition},
			Owner:      in.Owner, Expires: in.Expires, Mode: in.Mode, Purpose: in.Purpose,
			ReleaseCondition: in.ReleaseCondition, Operations: in.Operations,
		})
	})
}

func (s *Server) deleteLock(w http.ResponseWriter, r *http.Request) {
	l := s.findLock(r.PathValue("id"))
	if l == nil {
		writeError(w, http.StatusNotFound, "no lock with id "+r.PathValue("id")+" under the roots (released already?)")
		return
	}
	force := r.URL.Query().Get("force") == "true"
	owner := r.URL.Query().Get("owner")
	s.run(w, filepath.Dir(l.Path), func(env *guard.Env) error {
		if l.Kind == lockcore.User {
			// The page is the person's channel (CONTRACT.md section 9): a user lock is
			// removed here as by guard unlock --force at a terminal.
			env.StdinTTY, force = true, true
		}
		return command.RunUnlock(command.UnlockOptions{Env: env, Target: l.Path, Owner: owner, Force: force, JSON: true})
	})
}

func (s *Server) rootPaths() []string {
	out := make([]string, len(s.o.Roots))
	for i, r := range s.o.Roots {
		out[i] = r.Path
	}
	return out
}

func (s *Server) postPrune(w http.ResponseWriter, r *http.Request) {
	var in struct {
		DryRun *bool `json:"dry_run"`
	}
	if !decode(w, r, &in) {
		return
	}
	dry := in.DryRun == nil || *in.DryRun // a body without dry_run only previews
	s.run(w, "", func(env *guard.Env) error {
		return command.RunPrune(command.PruneOptions{Env: env, RootsInput: command.RootsInput{Roots: s.rootPaths()}, DryRun: dry, JSON: true})
	})
}

type lockdownIn struct {
	Commit bool   `json:"commit"`
	Owner  string `json:"owner"`
	Reason string `json:"reason"`
}

func (s *Server) postLockdown(w http.ResponseWriter, r *http.Request) {
	var in lockdownIn
	if !decode(w, r, &in) {
		return
	}
	s.run(w, "", func(env *guard.Env) error {
		return command.RunLockdown(command.LockdownOptions{Env: env, Roots: s.rootPaths(), Owner: in.Owner, Reason: in.Reason, Commit: in.Commit, JSON: true})
	})
}

func (s *Server) postLockdownUndo(w http.ResponseWriter, r *http.Request) {
	var in lockdownIn
	if !decode(w, r, &in) {
		return
	}
	s.run(w, "", func(env *guard.Env) error {
		return command.RunLockdown(command.LockdownOptions{Env: env, Roots: s.rootPaths(), Commit: in.Commit, Undo: true, JSON: true})
	})
}
