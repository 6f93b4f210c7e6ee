//go:build linux

package lincheck

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// RunOptions shape one guard run: COMMAND writes Writes times, Gap apart.
type RunOptions struct {
	Wait   time.Duration
	Writes int
	Gap    time.Duration
	// Started, when set, is told once COMMAND said hello (the run holds the lock).
	Started chan<- Procs
}

// Run is guard run whose COMMAND is this test binary again (LINCHECK_CHILD), talking
// to the harness over its socket: its hello ends the claim, its writes go to the
// store, its last word begins the run's end, which guard's exit ends. It returns
// guard's exit code.
func (c *Client) Run(o RunOptions) int {
	h := c.H
	self, err := os.Executable()
	if err != nil {
		h.T.Fatal(err)
	}
	nonce := fmt.Sprintf("%d-%d", c.ID, c.rng.Uint64())
	args := []string{"run", LockDir, "--expires", dur(h.Config.TTL), "--grace", "2s"}
	via := "guard run"
	if o.Wait > 0 {
		args = append(args, "--wait", dur(o.Wait))
		via += " --wait " + dur(o.Wait)
	}
	args = append(args, "--", self)
	rs := &runState{client: c.ID, acquire: h.Hist.Begin(c.ID, Acquire, via, 0), started: o.Started}
	h.mu.Lock()
	h.runs[nonce] = rs
	h.mu.Unlock()
	cmd := c.command(args, "LINCHECK_CHILD=1", "LINCHECK_SOCK="+h.sock, "LINCHECK_NONCE="+nonce,
		fmt.Sprintf("LINCHECK_WRITES=%d", o.Writes), fmt.Sprintf("LINCHECK_GAP=%s", o.Gap))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		h.T.Fatalf("starting guard run: %v", err)
	}
	h.setProcs(c.ID, &Procs{Guard: cmd.Process.Pid})
	r := c.wait(cmd)
	h.setProcs(c.ID, nil)
	r.Stdout, r.Stderr = out.String(), errb.String()
	h.mu.Lock()
	delete(h.runs, nonce)
	h.mu.Unlock()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.acquire != nil { // COMMAND never said hello: the claim failed
		rs.acquire.End(c.outputOf(r, 0))
		rs.acquire = nil
		return r.Code
	}
	if rs.end == nil { // COMMAND said hello and nothing after: the end began at exit
		rs.end = h.Hist.Begin(c.ID, RunEnd, "guard run exit", rs.fence)
	}
	if r.Code == ExitLost {
		h.mu.Lock()
		h.Lost++
		h.mu.Unlock()
	}
	// A lock the client held before (guard lock, left to expire) was renewed by
	// the run and stays held after it.
	rs.end.in.Keep = strings.Contains(r.Stderr, "was held before run started; left in place")
	rs.end.End(c.outputOf(r, 0))
	if r.Code != 0 && r.Code != ExitLost {
		h.T.Logf("c%d guard run exited %d: %s", c.ID, r.Code, r.Stderr)
	}
	return r.Code
}

// ExitLost is guard run's exit code for a lock lost while COMMAND ran.
const ExitLost = 5

type runState struct {
	mu      sync.Mutex
	client  int
	fence   int64
	acquire *Pending
	end     *Pending
	started chan<- Procs
}
