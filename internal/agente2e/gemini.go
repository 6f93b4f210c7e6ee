package agente2e

import (
	"net/http"
	"strings"
)

// gemini answers models/MODEL:streamGenerateContent and :generateContent (Gemini CLI).
func (s *Server) gemini(w http.ResponseWriter, req map[string]any, stream bool) {
	var results []string
	for _, c := range asList(req["contents"]) {
		for _, p := range asList(asMap(c)["parts"]) {
			if fr := asMap(asMap(p)["functionResponse"]); fr != nil {
				results = append(results, strings.Join(stringsIn(fr["response"]), "\n"))
			}
		}
	}
	offers := false
	for _, tool := range asList(req["tools"]) {
		for _, fd := range asList(asMap(tool)["functionDeclarations"]) {
			if asMap(fd)["name"] == "run_shell_command" {
				offers = true
			}
		}
	}
	cmd := s.next(results, offers)
	var part map[string]any
	if cmd != "" {
		part = map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
			"args": map[string]any{"command": cmd, "description": "Run the command"}}}
	} else {
		part = map[string]any{"text": FinalText}
	}
	doc := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-2.5-pro",
	}
	if !stream {
		writeJSON(w, doc)
		return
	}
	newSSE(w).send("", doc)
}
