package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Only JSON-RPC messages reach the SDK, one a line; every other line is answered with
// a JSON-RPC error (the request's id when it has one) and the input goes on.
func TestTheInputFilterPassesMessagesAndAnswersTheRest(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`not json`,
		``,
		`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		`{"jsonrpc":"1.0","id":"x","method":"ping"}`,
		`   {"jsonrpc":"2.0","method":"notifications/initialized"}   `,
	}, "\n")
	var out bytes.Buffer
	drained := false
	r := filterInput(strings.NewReader(in), &out, func() { drained = true })
	passed, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.True(t, drained, "the end of the input waits for the answers in flight")
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n", string(passed))
	var answers []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		answers = append(answers, m)
	}
	require.Len(t, answers, 3)
	assert.Equal(t, float64(-32700), answers[0]["error"].(map[string]any)["code"])
	assert.Nil(t, answers[0]["id"])
	assert.Equal(t, float64(-32600), answers[1]["error"].(map[string]any)["code"], "a batch")
	assert.Equal(t, "x", answers[2]["id"], "an invalid request with an id is answered with it")
}

func FuzzJudgeLine(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`"str"`))
	f.Fuzz(func(t *testing.T, line []byte) {
		code, msg, id, ok := judgeLine(line)
		if ok {
			_, err := jsonrpc.DecodeMessage(line)
			assert.NoError(t, err, "what passes, the SDK reads")
			return
		}
		assert.NotZero(t, code)
		assert.NotEmpty(t, msg)
		var out bytes.Buffer
		answerError(&out, id, code, msg)
		assert.True(t, json.Valid(bytes.TrimSpace(out.Bytes())), out.String())
	})
}
