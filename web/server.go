// Package web is guard serve (CONTRACT.md section 9): a REST API and one embedded page
// over the lock files under a set of roots, fed live by the watcher, for the person at
// the machine. It is loopback only and every request carries a secret token that only
// the terminal that started it has: the page is the person's channel (user locks may be
// made and removed here), and agents on the same machine cannot use it.
package web

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"

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
	// ExitCode is the exit code the CLI gives for a command's error (cmd/guard wires in
	// its mapping of guard.Outcome): the "exit" of an API error. Required.
	ExitCode func(error) int
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
	mux.HandleFunc("POST /api/locks/{id}/renew", s.postRenew)
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
