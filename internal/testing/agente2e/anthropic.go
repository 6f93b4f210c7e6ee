package agente2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// claudeToolName is the tool a step calls in Claude Code: Bash, or guard mcp's tool.
func claudeToolName(st Step) string {
	if st.Tool == "" {
		return "Bash"
	}
	return "mcp__" + MCPServer + "__" + st.Tool
}

// anthropic answers POST /v1/messages (Claude Code), streamed or not.
func (s *Server) anthropic(w http.ResponseWriter, req map[string]any) {
	var results []string
	for _, m := range asList(req["messages"]) {
		for _, c := range asList(asMap(m)["content"]) {
			if cm := asMap(c); cm["type"] == "tool_result" {
				results = append(results, strings.Join(stringsIn(cm["content"]), "\n"))
			}
		}
	}
	offered := map[string]bool{}
	for _, tool := range asList(req["tools"]) {
		if n, ok := asMap(tool)["name"].(string); ok {
			offered[n] = true
		}
	}
	step := s.next(results, func(st Step) bool { return offered[claudeToolName(st)] })
	model, _ := req["model"].(string)
	id := fmt.Sprintf("msg_%d", len(s.Requests()))
	var block map[string]any
	stop := "end_turn"
	if step != nil {
		stop = "tool_use"
		input := map[string]any{"command": step.Command, "description": "Run the command"}
		if step.Tool != "" {
			input = step.Args
		}
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", len(results)+1), "name": claudeToolName(*step),
			"input": input}
	} else {
		block = map[string]any{"type": "text", "text": FinalText}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5}
	if stream, _ := req["stream"].(bool); !stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	e := newSSE(w)
	e.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	if step != nil {
		input, _ := json.Marshal(block["input"])
		e.send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{
			"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}})
		e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{
			"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		e.send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{
			"type": "text", "text": ""}})
		e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{
			"type": "text_delta", "text": FinalText}})
	}
	e.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	e.send("message_stop", map[string]any{"type": "message_stop"})
}
