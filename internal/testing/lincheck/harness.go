//go:build linux

package lincheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Target is the world the clients run in: the guard binary, each client's tree and
// environment, and how a command is started there (inside a network namespace for
// the etcd scenarios).
type Target struct {
	// Guard is the guard binary (built once per test run).
	Guard string
	// Trees are the clients' tree tops (one shared tree for the file backend, a tree
	// per client for etcd: one clone per machine).
	Trees []string
	// Env is a client's environment (PATH, HOME, identity).
	Env func(client int) []string
	// Wrap, when set, prefixes a command line (ip netns exec NS).
	Wrap []string
}

// LockDir is the folder every client locks, relative to its tree.
const LockDir = "data"

// Config is one scenario's client load.
type Config struct {
	Clients  int
	Duration time.Duration
	// TTL is every claim's --expires; Wait the --wait of a waiting claim.
	TTL, Wait time.Duration
	// Timeout bounds one guard process (killed after it: an unknown outcome).
	Timeout time.Duration
	// RunShare is the share of a client's turns that are guard run (the rest are
	// guard lock, writes, renew and unlock).
	RunShare float64
	// Seed makes the clients' choices repeatable.
	Seed uint64
	// Script, when set, replaces the random turns of client 0 (the fault's victim).
	Script func(c *Client)
}

// Harness runs the clients of one scenario against a Target and records the history.
type Harness struct {
	T      testing.TB
	Target Target
	Config Config
	Hist   *History
	Store  *Store

	sock  string
	ln    net.Listener
	mu    sync.Mutex
	runs  map[string]*runState
	procs map[int]*Procs
	// Refused counts claims refused because the lock was held (exit 1), Lost the
	// guard runs that exited 5.
	Refused, Lost, Errors int
}

// Procs are a client's live processes: guard, and COMMAND of a guard run.
type Procs struct {
	Guard   int
	Command int // 0 until COMMAND said hello
	Fence   int64
}

// NewHarness prepares the store and the socket COMMAND talks to.
func NewHarness(t testing.TB, target Target, cfg Config) *Harness {
	if cfg.Timeout == 0 {
		cfg.Timeout = 60 * time.Second
	}
	h := &Harness{T: t, Target: target, Config: cfg, Hist: NewHistory(), runs: map[string]*runState{}, procs: map[int]*Procs{}}
	dir, err := os.MkdirTemp("", "lincheck-sock-") // short: a socket path has ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	h.sock = filepath.Join(dir, "s")
	h.ln, err = net.Listen("unix", h.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.ln.Close() })
	h.Store = &Store{h: h, path: filepath.Join(t.TempDir(), "store.log")}
	go h.serve()
	return h
}

// ProcsOf is a copy of client c's live processes (nil: none).
func (h *Harness) ProcsOf(c int) *Procs {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p := h.procs[c]; p != nil {
		cp := *p
		return &cp
	}
	return nil
}

func (h *Harness) setProcs(c int, p *Procs) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p == nil {
		delete(h.procs, c)
	} else {
		h.procs[c] = p
	}
}

// Run runs the clients until the duration has passed, then checks the history.
func (h *Harness) Run(ctx context.Context) {
	var wg sync.WaitGroup
	deadline := time.Now().Add(h.Config.Duration)
	for i := range h.Config.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &Client{H: h, ID: i, rng: rand.New(rand.NewPCG(h.Config.Seed, uint64(i)))}
			if i == 0 && h.Config.Script != nil {
				h.Config.Script(c)
				return
			}
			for time.Now().Before(deadline) && ctx.Err() == nil {
				c.Turn()
			}
		}()
	}
	wg.Wait()
}

// Check checks the recorded history against the lock model.
func (h *Harness) Check(slack time.Duration) {
	h.T.Helper()
	Check(h.T, Model{TTL: h.Config.TTL, Slack: slack}, h.Hist)
	h.T.Logf("claims refused %d, guard runs lost (exit 5) %d, errors %d", h.Refused, h.Lost, h.Errors)
}

// Client is one client's loop.
type Client struct {
	H   *Harness
	ID  int
	rng *rand.Rand
}

// Result is one guard process's outcome.
type Result struct {
	Code           int
	Stdout, Stderr string
	TimedOut       bool
}

// First is the last line of stderr that says something (an error comes last; for
// the visualisation).
func (r Result) First() string {
	lines := strings.Split(r.Stderr, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "LOCK_FENCE") {
			if len(l) > 160 {
				l = l[:160] + "..."
			}
			return l
		}
	}
	return ""
}

func (c *Client) command(args []string, extra ...string) *exec.Cmd {
	t := c.H.Target
	argv := append(append(append([]string{}, t.Wrap...), t.Guard), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = t.Trees[c.ID]
	cmd.Env = append(t.Env(c.ID), extra...)
	return cmd
}

// Guard runs guard with args in the client's tree and waits for it.
func (c *Client) Guard(args ...string) Result {
	cmd := c.command(args)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		c.H.T.Errorf("starting guard: %v", err)
		return Result{Code: -1}
	}
	c.H.setProcs(c.ID, &Procs{Guard: cmd.Process.Pid})
	res := c.wait(cmd)
	c.H.setProcs(c.ID, nil)
	res.Stdout, res.Stderr = out.String(), errb.String()
	return res
}

// wait waits for cmd within the timeout; a process past it is killed (SIGKILL) and
// its outcome is unknown.
func (c *Client) wait(cmd *exec.Cmd) Result {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return Result{Code: exitCode(err)}
	case <-time.After(c.H.Config.Timeout):
		_ = cmd.Process.Kill()
		<-done
		return Result{Code: -1, TimedOut: true}
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return -1
}

func (c *Client) sleep(lo, hi time.Duration) {
	time.Sleep(lo + time.Duration(c.rng.Int64N(int64(hi-lo)+1)))
}

func dur(d time.Duration) string { return strconv.Itoa(int(d.Round(time.Second)/time.Second)) + "s" }

// outputOf turns a guard process's result into the model's Output.
func (c *Client) outputOf(r Result, fence int64) Output {
	out := Output{OK: r.Code == 0, Fence: fence, Code: r.Code, Detail: r.First()}
	// 2 is an error and a timeout is no answer: either may have taken effect.
	out.Unknown = r.Code == 2 || r.TimedOut
	h := c.H
	h.mu.Lock()
	switch {
	case r.Code == 1 || r.Code == 3:
		h.Refused++
	case r.Code != 0:
		h.Errors++
	}
	h.mu.Unlock()
	return out
}

var fenceRE = regexp.MustCompile(`(?m)^LOCK_FENCE=([0-9]+)$`)

// Lock is guard lock (with --wait when wait > 0); it returns the fence (0: not held).
func (c *Client) Lock(wait time.Duration) int64 {
	args := []string{"lock", LockDir, "--expires", dur(c.H.Config.TTL)}
	via := "guard lock"
	if wait > 0 {
		args = append(args, "--wait", dur(wait))
		via += " --wait " + dur(wait)
	}
	p := c.H.Hist.Begin(c.ID, Acquire, via, 0)
	r := c.Guard(args...)
	var fence int64
	if r.Code == 0 {
		m := fenceRE.FindStringSubmatch(r.Stderr)
		if m == nil {
			c.H.T.Errorf("guard lock exited 0 without LOCK_FENCE: %s", r.Stderr)
		} else {
			fence, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	p.End(c.outputOf(r, fence))
	if r.Code != 0 {
		return 0
	}
	return fence
}

// Renew is guard renew; Unlock is guard unlock.
func (c *Client) Renew(fence int64) bool {
	return c.held(Renew, "guard renew", fence, "renew", LockDir)
}

// Unlock is guard unlock.
func (c *Client) Unlock(fence int64) bool {
	return c.held(Release, "guard unlock", fence, "unlock", LockDir)
}

func (c *Client) held(kind Kind, via string, fence int64, args ...string) bool {
	p := c.H.Hist.Begin(c.ID, kind, via, fence)
	r := c.Guard(args...)
	p.End(c.outputOf(r, 0))
	return r.Code == 0
}

// Write writes to the fenced store under fence.
func (c *Client) Write(fence int64) bool {
	p := c.H.Hist.Begin(c.ID, Write, "write", fence)
	ok, detail := c.H.Store.Write(c.ID, fence)
	p.End(Output{OK: ok, Code: -1, Detail: detail})
	return ok
}

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

// Turn is one random turn of a client: a guard run, or guard lock with writes, a
// renewal now and then, and (mostly) an unlock.
func (c *Client) Turn() {
	cfg := c.H.Config
	wait := time.Duration(0)
	if c.rng.Float64() < 0.6 {
		wait = cfg.Wait
	}
	if c.rng.Float64() < cfg.RunShare {
		c.Run(RunOptions{Wait: wait, Writes: 1 + c.rng.IntN(3), Gap: time.Duration(100+c.rng.IntN(300)) * time.Millisecond})
		c.sleep(50*time.Millisecond, 300*time.Millisecond)
		return
	}
	fence := c.Lock(wait)
	if fence == 0 {
		c.sleep(100*time.Millisecond, 500*time.Millisecond)
		return
	}
	for range 1 + c.rng.IntN(2) {
		c.Write(fence)
		c.sleep(50*time.Millisecond, 250*time.Millisecond)
	}
	if c.rng.Float64() < 0.3 {
		c.Renew(fence)
		c.Write(fence)
	}
	if c.rng.Float64() < 0.9 {
		c.Unlock(fence)
	} // else: left to expire; the others take it over after TTL
	c.sleep(50*time.Millisecond, 300*time.Millisecond)
}

// serve answers COMMAND's words (one JSON object a line).
func (h *Harness) serve() {
	for {
		conn, err := h.ln.Accept()
		if err != nil {
			return
		}
		go h.talk(conn)
	}
}

type childMsg struct {
	Op    string `json:"op"` // hello, write, bye
	Nonce string `json:"nonce"`
	Pid   int    `json:"pid"`
	Fence string `json:"fence"`
}

func (h *Harness) talk(conn net.Conn) {
	defer conn.Close()
	sc := bufio.NewScanner(conn)
	var rs *runState
	for sc.Scan() {
		var m childMsg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			h.T.Errorf("COMMAND sent %q: %v", sc.Text(), err)
			return
		}
		reply := "ok"
		switch m.Op {
		case "hello":
			h.mu.Lock()
			rs = h.runs[m.Nonce]
			h.mu.Unlock()
			if rs == nil {
				h.T.Errorf("COMMAND of an unknown run %q", m.Nonce)
				return
			}
			fence, err := strconv.ParseInt(m.Fence, 10, 64)
			if err != nil {
				h.T.Errorf("guard run gave COMMAND LOCK_FENCE=%q", m.Fence)
			}
			rs.mu.Lock()
			rs.fence = fence
			if rs.acquire != nil {
				rs.acquire.End(Output{OK: true, Fence: fence, Code: -1, Detail: "COMMAND started"})
				rs.acquire = nil
			}
			rs.mu.Unlock()
			h.mu.Lock()
			if p := h.procs[rs.client]; p != nil {
				p.Command, p.Fence = m.Pid, fence
				if rs.started != nil {
					rs.started <- *p
				}
			}
			h.mu.Unlock()
		case "write":
			p := h.Hist.Begin(rs.client, Write, "write (COMMAND)", rs.fence)
			ok, detail := h.Store.Write(rs.client, rs.fence)
			p.End(Output{OK: ok, Code: -1, Detail: detail})
			if !ok {
				reply = "rejected"
			}
		case "bye":
			rs.mu.Lock()
			rs.end = h.Hist.Begin(rs.client, RunEnd, "guard run exit", rs.fence)
			rs.mu.Unlock()
		}
		if _, err := fmt.Fprintln(conn, reply); err != nil {
			return
		}
	}
}

// Store is the fenced resource the clients write to: a file every write goes
// through, under an OS lock, after a check of the writer's fence (guard check with
// LOCK_FENCE and LOCK_FENCE_FILE, as a resource guarded by guard's fences asks, and
// the store's own rule that a fence below the largest one it accepted is
// superseded). It records each accepted write.
type Store struct {
	h    *Harness
	path string
	mu   sync.Mutex
	max  int64
	// Unchecked makes a broken store that accepts every write (the checker's own
	// test: it must reject the history such a store makes under a pause).
	Unchecked bool
}

// Write is one write of client under fence: accepted or rejected, and why.
func (s *Store) Write(client int, fence int64) (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Unchecked {
		return true, "unchecked"
	}
	if fence < s.max {
		return false, fmt.Sprintf("store: fence %d < %d", fence, s.max)
	}
	h := s.h
	c := &Client{H: h, ID: client}
	lockFile := filepath.Join(h.Target.Trees[client], LockDir, "LOCK.txt")
	cmd := c.command([]string{"check", filepath.Join(LockDir, "x.txt")},
		"LOCK_FENCE="+strconv.FormatInt(fence, 10), "LOCK_FENCE_FILE="+lockFile)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		return false, err.Error()
	}
	r := c.wait(cmd)
	if r.Code != 0 {
		r.Stderr = errb.String()
		return false, fmt.Sprintf("guard check %d: %s", r.Code, r.First())
	}
	f, err := os.OpenFile(s.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return false, err.Error()
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%d c%d\n", fence, client); err != nil {
		return false, err.Error()
	}
	if err := f.Sync(); err != nil {
		return false, err.Error()
	}
	s.max = fence
	return true, ""
}

// Child is COMMAND of a guard run (the test binary with LINCHECK_CHILD set): hello
// with its fence, LINCHECK_WRITES writes LINCHECK_GAP apart, bye, exit 0. TestMain
// calls it.
func Child() {
	conn, err := net.Dial("unix", os.Getenv("LINCHECK_SOCK"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "lincheck child:", err)
		os.Exit(70)
	}
	rd := bufio.NewScanner(conn)
	say := func(op string) string {
		m := childMsg{Op: op, Nonce: os.Getenv("LINCHECK_NONCE"), Pid: os.Getpid(), Fence: os.Getenv("LOCK_FENCE")}
		data, _ := json.Marshal(m)
		if _, err := conn.Write(append(data, '\n')); err != nil {
			os.Exit(71)
		}
		if !rd.Scan() {
			os.Exit(72)
		}
		return rd.Text()
	}
	say("hello")
	n, _ := strconv.Atoi(os.Getenv("LINCHECK_WRITES"))
	gap, _ := time.ParseDuration(os.Getenv("LINCHECK_GAP"))
	for range n {
		time.Sleep(gap)
		say("write")
	}
	say("bye")
	os.Exit(0)
}
