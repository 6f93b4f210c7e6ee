package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
)

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
