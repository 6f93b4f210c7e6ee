//go:build linux

package lincheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The file backend's scenarios: every client works on one tree, as processes on one
// machine do. Expected outcomes are the README's table ("Proved under faults").

const (
	filesTTL = 3 * time.Second
	// filesSlack: created is written to the second, so a lease may end up to 1 s
	// before claim + TTL; 100 ms more for the machine's scheduling.
	filesSlack = 1100 * time.Millisecond
)

func filesHarness(t *testing.T, tree string) *Harness {
	cfg := Config{Clients: 3, Duration: scenarioLength(8*time.Second, 90*time.Second), TTL: filesTTL,
		Wait: 5 * time.Second, RunShare: 0.35, Seed: seed(t), Timeout: 30 * time.Second}
	target := Target{Guard: guardBin, Env: clientEnv(t, func(int) string { return "lincheck" })}
	for range cfg.Clients {
		target.Trees = append(target.Trees, tree)
	}
	return NewHarness(t, target, cfg)
}

// quietLock claims the folder no client uses, for the direct assertions of a fault.
func quietLock(h *Harness) Result {
	c := &Client{H: h, ID: 0}
	return c.Guard("lock", "quiet", "--expires", "3s")
}

// entries is the folder's names, sorted.
func entries(t *testing.T, dir string) []string {
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	sort.Strings(names)
	return names
}

func TestFilesNoFault(t *testing.T) {
	scenario(t)
	tree := gitTree(t, t.TempDir(), map[string]string{})
	h := filesHarness(t, tree)
	h.Run(context.Background())
	h.Check(filesSlack)
	// Without a fault guard run renews in time: no run may lose its lock.
	assert.Equal(t, 0, h.Lost, "guard run lost its lock without a fault")
}

func TestFilesHolderPausedPastItsLease(t *testing.T) {
	scenario(t)
	tree := gitTree(t, t.TempDir(), map[string]string{})
	h := filesHarness(t, tree)
	h.Config.Duration = scenarioLength(12*time.Second, 60*time.Second)
	pausedHolder(t, h, 2*filesTTL)
	h.Check(filesSlack)
}

// pausedHolder makes client 0 a guard run whose COMMAND writes slowly, stops it
// (guard, the supervisor and COMMAND: SIGSTOP) for d once it holds the lock, and
// resumes it. It must not go on believing it holds the lock: guard run exits 5, and
// every write COMMAND attempts after the resumption is rejected, while another
// client took the lock over during the pause.
func pausedHolder(t *testing.T, h *Harness, d time.Duration) {
	started := make(chan Procs, 1)
	code := -1
	var from, to int64
	h.Config.Script = func(c *Client) {
		time.Sleep(200 * time.Millisecond)
		code = c.Run(RunOptions{Wait: 10 * time.Second, Writes: 60, Gap: 200 * time.Millisecond, Started: started})
	}
	wait := during(t, 0, func() {
		select {
		case p := <-started:
			time.Sleep(300 * time.Millisecond)
			resume := pause(t, p)
			from = h.Hist.Now()
			time.Sleep(d)
			to = h.Hist.Now()
			resume(false)
		case <-time.After(h.Config.Duration):
			t.Error("client 0's guard run never held the lock")
		}
	})
	h.Run(context.Background())
	wait()
	assert.Equal(t, ExitLost, code, "the paused guard run must exit 5 (it lost its lock while paused)")
	tookOver, after := false, 0
	for _, op := range h.Hist.Operations() {
		in, out := op.Input.(Input), op.Output.(Output)
		if in.Client != 0 && in.Kind == Acquire && out.OK && op.Return > from && op.Return < to {
			tookOver = true
		}
		if in.Client == 0 && in.Kind == Write && op.Call > to {
			after++
			assert.False(t, out.OK, "a write of the resumed holder was accepted: %s", Describe(in, out))
		}
	}
	assert.True(t, tookOver, "no other client took the lock over during the pause")
	t.Logf("%s: faults: 1 pause of %s; %d writes of the resumed holder, all rejected", t.Name(), d, after)
}

func TestFilesFullDisk(t *testing.T) {
	scenario(t)
	needRoot(t, "the full file system scenario")
	fs := mountTmpfs(t, "4m")
	tree := gitTree(t, filepath.Join(fs, "tree"), map[string]string{"quiet/x.txt": "x\n"})
	h := filesHarness(t, tree)
	underFault(t, h, Fault{What: "full-disk periods of 3 s", For: 3 * time.Second, Gap: 4 * time.Second, Checked: filesSlack,
		On: func() func() { return fill(t, fs) }})

	// Directly: a claim on a full disk fails (2), says why, and leaves nothing behind.
	free := fill(t, fs)
	r := quietLock(h)
	assert.Equal(t, 2, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "no space left on device")
	assert.Contains(t, r.Stderr, filepath.Join(tree, "quiet"))
	assert.Equal(t, []string{"x.txt"}, entries(t, filepath.Join(tree, "quiet")))
	free()
	r = quietLock(h)
	assert.Equal(t, 0, r.Code, r.Stderr)
}

func TestFilesReadOnlyRemount(t *testing.T) {
	scenario(t)
	needRoot(t, "the read-only remount scenario")
	fs := mountTmpfs(t, "8m")
	tree := gitTree(t, filepath.Join(fs, "tree"), map[string]string{"quiet/x.txt": "x\n"})
	h := filesHarness(t, tree)
	underFault(t, h, Fault{What: "read-only periods of 3 s", For: 3 * time.Second, Gap: 4 * time.Second, Checked: filesSlack,
		On: func() func() {
			sh(t, "mount", "-o", "remount,ro", fs)
			return func() { sh(t, "mount", "-o", "remount,rw", fs) }
		}})

	sh(t, "mount", "-o", "remount,ro", fs)
	r := quietLock(h)
	sh(t, "mount", "-o", "remount,rw", fs)
	assert.Equal(t, 2, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "read-only file system")
	assert.Equal(t, []string{"x.txt"}, entries(t, filepath.Join(tree, "quiet")))
}

func TestFilesFsyncFails(t *testing.T) {
	scenario(t)
	needRoot(t, "the failing fsync scenario")
	mnt, back := loopExt4(t)
	tree := gitTree(t, filepath.Join(mnt, "tree"), map[string]string{"quiet/x.txt": "x\n"})
	h := filesHarness(t, tree)
	underFault(t, h, Fault{What: "periods of 3 s with fsync failing", For: 3 * time.Second, Gap: 4 * time.Second, Checked: filesSlack,
		On: func() func() { return fill(t, back) }})

	// Directly: a claim whose fsync fails exits 2, names the file, and leaves nothing
	// behind. Whether a write-back fails depends on whether the blocks it lands on
	// were backed before the fill; folders made during the fault land on new ones.
	free := fill(t, back)
	failed := 0
	for i := range 5 {
		dir := filepath.Join(tree, fmt.Sprintf("fresh%d", i))
		require.NoError(t, os.Mkdir(dir, 0o755))
		r := (&Client{H: h, ID: 0}).Guard("lock", filepath.Base(dir), "--expires", "3s")
		if r.Code == 0 {
			continue // its blocks were backed: fsync succeeded
		}
		failed++
		assert.Equal(t, 2, r.Code, r.Stderr)
		assert.Contains(t, r.Stderr, "sync "+dir)
		assert.Empty(t, entries(t, dir))
	}
	free()
	assert.Positive(t, failed, "no claim saw its fsync fail")
}

// logErrors logs the distinct first lines of the failed operations (exit 2), with
// when they first happened, so that a scenario's log says how the fault showed.
func logErrors(t *testing.T, h *Harness) {
	seen := map[string]bool{}
	scratch := regexp.MustCompile(`\.[0-9a-f]{16}\.tmp`)
	for _, op := range h.Hist.Operations() {
		out := op.Output.(Output)
		if key := scratch.ReplaceAllString(out.Detail, ".*.tmp"); out.Code == 2 && !seen[key] {
			seen[key] = true
			t.Logf("at %.1fs: %s", time.Duration(op.Call).Seconds(), Describe(op.Input.(Input), out))
		}
	}
}

// TestFilesHolderPausedJustBeforeCommandEnds pauses a guard run whose COMMAND is
// about to finish: after the resumption COMMAND ends before guard has seen the loss.
// The lock was still lost while COMMAND ran (another client took it over during the
// pause), so guard run must exit 5, not COMMAND's 0.
func TestFilesHolderPausedJustBeforeCommandEnds(t *testing.T) {
	scenario(t)
	tree := gitTree(t, t.TempDir(), map[string]string{})
	h := filesHarness(t, tree)
	h.Config.Clients = 2
	h.Config.Duration = scenarioLength(10*time.Second, 30*time.Second)
	started := make(chan Procs, 1)
	code := -1
	h.Config.Script = func(c *Client) {
		time.Sleep(200 * time.Millisecond)
		code = c.Run(RunOptions{Wait: 10 * time.Second, Writes: 1, Gap: 100 * time.Millisecond, Started: started})
	}
	wait := during(t, 0, func() {
		p := <-started
		resume := pause(t, p)
		time.Sleep(2 * filesTTL)
		// COMMAND first: it ends before guard runs again.
		resume(true)
	})
	h.Run(context.Background())
	wait()
	h.Check(filesSlack)
	assert.Equal(t, ExitLost, code, "guard run exited with COMMAND's code though its lock was taken over while COMMAND ran")
}

// TestCheckerRejectsTheHistoryOfAStoreThatIgnoresFences is the checker's own test on
// a real history: with a store that accepts every write, a guard run paused past its
// lease writes on after another client took the lock over, and the checker must say
// the history is not linearizable.
func TestCheckerRejectsTheHistoryOfAStoreThatIgnoresFences(t *testing.T) {
	scenario(t)
	tree := gitTree(t, t.TempDir(), map[string]string{})
	h := filesHarness(t, tree)
	h.Store.Unchecked = true
	h.Config.Duration = 10 * time.Second
	started := make(chan Procs, 1)
	h.Config.Script = func(c *Client) {
		c.Run(RunOptions{Wait: 10 * time.Second, Writes: 40, Gap: 200 * time.Millisecond, Started: started})
	}
	wait := during(t, 0, func() {
		p := <-started
		time.Sleep(300 * time.Millisecond)
		resume := pause(t, p)
		time.Sleep(2 * filesTTL)
		resume(true) // COMMAND writes before guard can stop it
	})
	h.Run(context.Background())
	wait()
	ft := &fakeT{TB: t}
	Check(ft, Model{TTL: filesTTL, Slack: filesSlack}, h.Hist)
	assert.True(t, ft.failed, "the checker accepted writes of a superseded holder")
	assert.Contains(t, ft.msg, "Illegal")
	if m := regexp.MustCompile(`visualisation: (\S+\.html)`).FindStringSubmatch(ft.msg); m != nil {
		os.RemoveAll(filepath.Dir(m[1]))
	}
}
