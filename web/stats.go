package web

import (
	"context"
	"net/http"
	"os"
	"time"

	"github.com/guardlocks/guard/guard"
)

// staleAfter is when the last full scan is too old (the reference's 5 × its 60 s
// period): the watcher is stuck or gone, and the page says so.
const staleAfter = 5 * time.Minute

// rescanWait bounds POST /api/scan: a scan of a very large tree takes seconds.
const rescanWait = 2 * time.Minute

// Scanned records the result of one of the watcher's full scans (GET /api/stats).
func (s *Server) Scanned(r guard.WatchScan) {
	s.scanMu.Lock()
	defer s.scanMu.Unlock()
	s.lastScan = &r
}

func (s *Server) last() *guard.WatchScan {
	s.scanMu.Lock()
	defer s.scanMu.Unlock()
	return s.lastScan
}

// statsOut is GET /api/stats: the reference's fields (active, expired, deleted,
// last_scan_at, last_scan_type, total_events, last_scan_age_seconds, scan_stale) and
// guard's (roots, history: guard history --stats --json, last_scan: the watcher's).
type statsOut struct {
	Active             int              `json:"active"`
	Expired            int              `json:"expired"`
	Deleted            int              `json:"deleted"`
	LastScanAt         *string          `json:"last_scan_at"`
	LastScanType       *string          `json:"last_scan_type"`
	TotalEvents        int              `json:"total_events"`
	LastScanAgeSeconds *int64           `json:"last_scan_age_seconds"`
	ScanStale          bool             `json:"scan_stale"`
	Roots              int              `json:"roots"`
	LastScan           *guard.WatchScan `json:"last_scan"`
	History            any              `json:"history"`
}

func (s *Server) getStats(w http.ResponseWriter, r *http.Request) {
	now := s.o.Env.Clock.Now()
	locks := s.scan(r.Context())
	out := statsOut{Roots: len(s.o.Roots), ScanStale: true}
	present := map[string]bool{}
	for _, l := range locks {
		present[l.Path] = true
		if l.Active(now) {
			out.Active++
		} else {
			out.Expired++
		}
	}
	if s.o.Tally != nil {
		t, err := s.o.Tally(r.Context())
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		out.TotalEvents = t.Total
		for _, p := range t.Gone {
			// Gone by the history and gone from disk: the reference's "deleted".
			if _, err := os.Lstat(p); !present[p] && err != nil {
				out.Deleted++
			}
		}
	}
	if last := s.last(); last != nil {
		at, kind := last.At.Format(time.RFC3339), last.Type
		age := int64(now.Sub(last.At) / time.Second)
		out.LastScanAt, out.LastScanType, out.LastScanAgeSeconds = &at, &kind, &age
		out.ScanStale = now.Sub(last.At) > staleAfter
		out.LastScan = last
	}
	if s.o.Stats != nil {
		st, err := s.o.Stats(r.Context())
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		out.History = st
	}
	writeJSON(w, http.StatusOK, out)
}

// scanOut is POST /api/scan: the watcher's scan with the reference's fields
// (locks_found, new, modified, expired, deleted, message).
type scanOut struct {
	guard.WatchScan
	Watcher bool   `json:"watcher"`
	Message string `json:"message"`
}

func (s *Server) postScan(w http.ResponseWriter, r *http.Request) {
	if s.o.Rescan == nil {
		// No watcher to ask (a server without one): read the roots, report no changes.
		now := s.o.Env.Clock.Now()
		res := guard.WatchScan{At: now, Type: "request"}
		for _, l := range s.scan(r.Context()) {
			res.LocksFound++
			if l.Active(now) {
				res.Active++
			}
		}
		writeJSON(w, http.StatusOK, scanOut{WatchScan: res, Message: "Scan complete (no watcher: nothing compared)"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), rescanWait)
	defer cancel()
	res, err := s.o.Rescan(ctx)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "scan failed: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, scanOut{WatchScan: res, Watcher: true, Message: "Scan complete"})
}
