package lincheck

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// History records operations with one monotonic clock: time since Start, in the
// harness process (time.Since reads Go's monotonic clock).
type History struct {
	start time.Time
	mu    sync.Mutex
	ops   []porcupine.Operation
}

// NewHistory starts a history now.
func NewHistory() *History { return &History{start: time.Now()} }

// Now is the history's clock: nanoseconds since its start.
func (h *History) Now() int64 { return int64(time.Since(h.start)) }

// Pending is an operation invoked and not yet answered.
type Pending struct {
	h  *History
	in Input
}

// Begin records an invocation now.
func (h *History) Begin(client int, kind Kind, via string, fence int64) *Pending {
	return &Pending{h: h, in: Input{Kind: kind, Client: client, Via: via, Fence: fence, Call: h.Now()}}
}

// BeginAt records an invocation that happened at call (a run's claim began when guard
// run was started, its response comes later from COMMAND).
func (h *History) BeginAt(call int64, client int, kind Kind, via string, fence int64) *Pending {
	p := h.Begin(client, kind, via, fence)
	p.in.Call = call
	return p
}

// End records the response now.
func (p *Pending) End(out Output) {
	h := p.h
	in := p.in
	in.Return = h.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ops = append(h.ops, porcupine.Operation{ClientId: in.Client, Input: in, Call: in.Call, Output: out, Return: in.Return})
}

// Operations is the history so far.
func (h *History) Operations() []porcupine.Operation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]porcupine.Operation(nil), h.ops...)
}

// Count is how many operations of each kind (and how many succeeded) the history has,
// for the test log and the README's figures.
func (h *History) Count() string {
	var n, ok [5]int
	for _, op := range h.Operations() {
		k := op.Input.(Input).Kind
		n[k]++
		if op.Output.(Output).OK {
			ok[k]++
		}
	}
	var parts []string
	for k := Acquire; k <= RunEnd; k++ {
		parts = append(parts, fmt.Sprintf("%s %d/%d", k, ok[k], n[k]))
	}
	return strings.Join(parts, ", ")
}

// CheckTimeout bounds porcupine's search (the problem is NP-hard; these histories
// are small and sequential per client, so it answers in milliseconds).
var CheckTimeout = 2 * time.Minute

// Check checks the history against m. A history that is not linearizable fails the
// test; porcupine's visualisation of it (an HTML page) is written into the test's
// artifact folder, or, without go test's -artifacts flag (whose folder is removed
// with the test), into a kept file under the system's temporary folder, and the path
// is printed.
func Check(t testing.TB, m Model, h *History) {
	t.Helper()
	ops := h.Operations()
	res, info := porcupine.CheckOperationsVerbose(m.Porcupine(), ops, CheckTimeout)
	t.Logf("%s: history: %d operations (%s): %s", t.Name(), len(ops), h.Count(), res)
	if res == porcupine.Ok {
		return
	}
	path := visualisationPath(t)
	if err := porcupine.VisualizePath(m.Porcupine(), info, path); err != nil {
		t.Errorf("writing the visualisation %s: %v", path, err)
	}
	t.Errorf("the history is %s against the lock model (%s); its visualisation: %s\n%s", res, m, path, Dump(ops))
}

func (m Model) String() string { return fmt.Sprintf("TTL %s, slack %s", m.TTL, m.Slack) }

// Dump is the history as text, one operation a line in invocation order.
func Dump(ops []porcupine.Operation) string {
	var b strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&b, "  [%8.3fs %8.3fs] %s\n", time.Duration(op.Call).Seconds(), time.Duration(op.Return).Seconds(), Describe(op.Input.(Input), op.Output.(Output)))
	}
	return b.String()
}

func visualisationPath(t testing.TB) string {
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + ".html"
	if f := flag.Lookup("test.artifacts"); f != nil && f.Value.String() == "true" {
		if at, ok := t.(interface{ ArtifactDir() string }); ok {
			return filepath.Join(at.ArtifactDir(), name)
		}
	}
	dir, err := os.MkdirTemp("", "guard-lincheck-")
	if err != nil {
		return filepath.Join(os.TempDir(), name)
	}
	return filepath.Join(dir, name)
}
