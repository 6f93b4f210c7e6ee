//go:build linux

package lincheck

import (
	"context"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sync"
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
