package agente2e

import (
	"net/http"
	"strings"
)

// geminiToolName is the tool a step calls in Gemini CLI: run_shell_command, or guard
// mcp's tool.
func geminiToolName(st Step) string {
	if st.Tool == "" {
		return "run_shell_command"
	}
	return "mcp_" + MCPServer + "_" + st.Tool
}

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
	offered := map[string]bool{}
	for _, tool := range asList(req["tools"]) {
		for _, fd := range asList(asMap(tool)["functionDeclarations"]) {
			if n, ok := asMap(fd)["name"].(string); ok {
				offered[n] = true
			}
		}
	}
	step := s.next(results, func(st Step) bool { return offered[geminiToolName(st)] })
	var part map[string]any
	if step != nil {
		args := map[string]any{"command": step.Command, "description": "Run the command"}
		if step.Tool != "" {
			args = step.Args
		}
		part = map[string]any{"functionCall": map[string]any{"name": geminiToolName(*step), "args": args}}
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
