package agente2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// openai answers POST /v1/responses (Codex), streamed.
func (s *Server) openai(w http.ResponseWriter, req map[string]any) {
	var results []string
	for _, it := range asList(req["input"]) {
		switch m := asMap(it); m["type"] {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			results = append(results, strings.Join(stringsIn(m["output"]), "\n"))
		}
	}
	// Codex's shell tool has had several names and shapes; answer in the one offered.
	var tool map[string]any
	for _, t := range asList(req["tools"]) {
		switch tm := asMap(t); tm["name"] {
		case "shell", "shell_command", "exec_command", "local_shell":
			if tool == nil {
				tool = tm
			}
		}
		if asMap(t)["type"] == "local_shell" && tool == nil {
			tool = asMap(t)
		}
	}
	// guard mcp's tools: offered directly as functions named mcp__guard__<tool>, or
	// grouped in a namespace tool named mcp__guard whose function is called with the
	// namespace beside its name. (Codex defers MCP tools behind its tool_search for the
	// models that support it, which this model does not play: tests that call them
	// run Codex with a model name it does not know, CodexToolModel.)
	mcpTools := map[string]string{} // tool -> namespace ("" when offered as a plain function)
	prefix := "mcp__" + MCPServer
	for _, t := range asList(req["tools"]) {
		tm := asMap(t)
		name, _ := tm["name"].(string)
		if name == prefix {
			for _, inner := range asList(tm["tools"]) {
				if n, _ := asMap(inner)["name"].(string); n != "" {
					mcpTools[n] = prefix
				}
			}
		} else if tool, ok := strings.CutPrefix(name, prefix+"__"); ok {
			mcpTools[tool] = ""
		}
	}
	step := s.next(results, func(st Step) bool {
		if st.Tool != "" {
			_, ok := mcpTools[st.Tool]
			return ok
		}
		return tool != nil
	})
	cmd := ""
	if step != nil {
		cmd = step.Command
	}
	n := len(s.Requests())
	respID := fmt.Sprintf("resp_%d", n)
	e := newSSE(w)
	e.send("response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": respID}})
	var item map[string]any
	if step != nil && step.Tool != "" {
		callID := fmt.Sprintf("call_%d", len(results)+1)
		args, _ := json.Marshal(step.Args)
		item = map[string]any{"type": "function_call", "id": "fc_" + callID, "call_id": callID, "arguments": string(args)}
		if ns := mcpTools[step.Tool]; ns != "" {
			item["namespace"], item["name"] = ns, step.Tool
		} else {
			item["name"] = prefix + "__" + step.Tool
		}
	} else if cmd != "" {
		callID := fmt.Sprintf("call_%d", len(results)+1)
		if tool["type"] == "local_shell" {
			item = map[string]any{"type": "local_shell_call", "id": "lsh_" + callID, "call_id": callID, "status": "completed",
				"action": map[string]any{"type": "exec", "command": []string{"bash", "-lc", cmd}}}
		} else {
			args, _ := json.Marshal(shellArgs(tool, cmd))
			item = map[string]any{"type": "function_call", "id": "fc_" + callID, "call_id": callID,
				"name": tool["name"], "arguments": string(args)}
		}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": FinalText, "annotations": []any{}}}}
	}
	e.send("response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	e.send("response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	e.send("response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": respID, "output": []any{item},
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}}})
}

// shellArgs shapes cmd as the offered tool's parameters want it: a string under cmd
// (exec_command) or command (shell_command), or an argv under command (shell).
func shellArgs(tool map[string]any, cmd string) map[string]any {
	props := asMap(asMap(tool["parameters"])["properties"])
	if _, ok := props["cmd"]; ok {
		return map[string]any{"cmd": cmd}
	}
	if asMap(props["command"])["type"] == "array" {
		return map[string]any{"command": []string{"bash", "-lc", cmd}}
	}
	return map[string]any{"command": cmd}
}
