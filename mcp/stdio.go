package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The SDK's stdio connection ends the whole session on the first line that is not a
// JSON-RPC message (a stray log line from a wrapper, a half-written request). guard
// mcp must outlive bad input (CONTRACT.md section 12), so every line is read here
// first: a message goes on to the SDK, anything else is answered with a JSON-RPC error
// (parse error, or invalid request) and dropped.

// maxLine bounds one message (the SDK's own default).
const maxLine = 16 << 20

// lockedWriter serialises the SDK's writes and the filter's error answers: each is one
// whole line, so they never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// filterInput copies the JSON-RPC messages of in to the returned reader, one a line,
// and answers every other line on out. The reader ends when in does, once drain
// returns.
func filterInput(in io.Reader, out io.Writer, drain func()) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 0, 64<<10), maxLine)
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			if code, msg, id, ok := judgeLine(line); !ok {
				answerError(out, id, code, msg)
				continue
			}
			if _, err := pw.Write(append(append([]byte(nil), line...), '\n')); err != nil {
				return
			}
		}
		if err := sc.Err(); err != nil {
			// A line longer than maxLine: nothing after it can be read in step.
			answerError(out, nil, -32700, "guard mcp: a line longer than 16 MiB; the session ends")
			pw.CloseWithError(err)
			return
		}
		drain()
		pw.Close()
	}()
	return pr
}

// judgeLine accepts one JSON-RPC message (a request, notification or response; not a
// batch, which this protocol version no longer has).
func judgeLine(line []byte) (code int64, msg string, id any, ok bool) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(line, &probe); err != nil {
		if json.Valid(line) {
			return -32600, "guard mcp: not a JSON-RPC message object (batches are not supported)", nil, false
		}
		return -32700, "guard mcp: parse error: the line is not JSON", nil, false
	}
	if raw, has := probe["id"]; has {
		_ = json.Unmarshal(raw, &id)
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return -32600, "guard mcp: invalid request: " + err.Error(), id, false
	}
	return 0, "", nil, true
}

func answerError(out io.Writer, id any, code int64, msg string) {
	switch id.(type) {
	case string, float64:
	default:
		id = nil
	}
	data, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	if err != nil {
		return
	}
	_, _ = out.Write(append(data, '\n'))
}
