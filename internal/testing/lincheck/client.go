//go:build linux

package lincheck

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

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
