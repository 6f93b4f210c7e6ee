package agente2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// FinalText is what the fake model says once every command has been run: the agent
// then stops.
const FinalText = "All done."

// Server is a fake model for all three agents at once. It plays one scripted
// conversation: while fewer tool results than Commands have come back, it answers a
// request that offers the agent's shell tool with a call of that tool running the next
// command; after that (and to every request that offers no shell tool: titles, topic
// checks) it answers FinalText. It records every request and every tool result the
// agent sent back, which is how a test sees what the agent told the model about a
// refused command.
type Server struct {
	// URL is the server's base address, http://127.0.0.1:PORT (no trailing slash).
	URL string

	steps []Step

	mu       sync.Mutex
	requests []Request
	results  []string // the latest text of the i-th tool result, by call order
}

// Request is one HTTP request the server received.
type Request struct {
	Method, Path string
	Body         []byte
}

// Step is one turn of the scripted model: a shell command (Command), or a call of one
// of guard mcp's tools (Tool, its name without the client's prefix, with Args). The
// client names the tool mcp__guard__<tool> (Claude Code, Codex) or mcp_guard_<tool>
// (Gemini CLI); a request that does not offer it is answered with text.
type Step struct {
	Command string
	Tool    string
	Args    map[string]any
}

// MCPServer is the name the tool steps' server is registered under (guard
// agent-install registers guard mcp as "guard").
const MCPServer = "guard"

// NewServer starts a fake model that has the agent run commands, in order, one tool
// call per turn. It stops when the test ends.
func NewServer(t testing.TB, commands ...string) *Server {
	t.Helper()
	steps := make([]Step, len(commands))
	for i, c := range commands {
		steps[i] = Step{Command: c}
	}
	return NewScript(t, steps...)
}

// NewScript starts a fake model that plays steps, in order, one tool call per turn.
func NewScript(t testing.TB, steps ...Step) *Server {
	t.Helper()
	s := &Server{steps: steps}
	hs := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
}

// Requests returns every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ToolResults returns, for each command the model asked to run, the text the agent
// sent back as that call's result (every string in the result, joined by newlines):
// the command's output, or the hook's refusal. A command whose result never came back
// has no entry.
func (s *Server) ToolResults() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.results...)
}

// Log describes every request received, for a failing test's message.
func (s *Server) Log() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		body := string(r.Body)
		if len(body) > 600 {
			body = body[:300] + " ... " + body[len(body)-300:]
		}
		fmt.Fprintf(&b, "%s %s %s\n", r.Method, r.Path, body)
	}
	return b.String()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Body: body})
	s.mu.Unlock()
	var req map[string]any
	if len(body) > 0 && json.Unmarshal(body, &req) != nil {
		http.Error(w, "not JSON", http.StatusBadRequest)
		return
	}
	path := r.URL.Path
	switch {
	case strings.HasSuffix(path, "/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 10})
	case strings.HasSuffix(path, "/messages"):
		s.anthropic(w, req)
	case strings.HasSuffix(path, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": 10})
	case strings.Contains(path, ":streamGenerateContent"), strings.Contains(path, ":generateContent"):
		s.gemini(w, req, strings.Contains(path, ":streamGenerateContent"))
	case strings.HasSuffix(path, "/responses"):
		s.openai(w, req)
	case strings.HasSuffix(path, "/models"):
		writeJSON(w, map[string]any{"data": []any{}, "models": []any{}})
	default:
		http.NotFound(w, r)
	}
}

// next records the tool results of a conversation and returns the step to play now,
// or nil when the model should answer with text: the script is done, or the request
// does not offer the tool the step needs (offers says which it does).
func (s *Server) next(results []string, offers func(Step) bool) *Step {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range results {
		if i < len(s.results) {
			s.results[i] = r
		} else {
			s.results = append(s.results, r)
		}
	}
	if len(results) >= len(s.steps) || !offers(s.steps[len(results)]) {
		return nil
	}
	st := s.steps[len(results)]
	return &st
}

// strings collects every string inside v, in order.
func stringsIn(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, stringsIn(e)...)
		}
		return out
	case map[string]any:
		var out []string
		// The keys that hold text first, in a fixed order, so results read the same
		// every time.
		for _, k := range []string{"text", "content", "output", "error", "llmContent", "returnDisplay"} {
			if e, ok := x[k]; ok {
				out = append(out, stringsIn(e)...)
			}
		}
		return out
	}
	return nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events: each pair is an event name ("" for none) and its data.
type sse struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

func (e sse) send(event string, data any) {
	raw, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(e.w, "event: %s\n", event)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", raw)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
