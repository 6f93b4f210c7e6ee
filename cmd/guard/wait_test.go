package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// A waiter is a `guard lock --wait` running in the background, as a person or a
// script would start it.
type waiter struct {
	t      *testing.T
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr bytes.Buffer
	said   chan string // stderr lines as they come
	done   chan struct{}
	code   int
}

// waitEnv is the environment every process of one test shares: one state directory
// (the waiters' queue lives there) and one host.
func waitEnv(t *testing.T) []string {
	home := t.TempDir()
	return []string{"PATH=" + testenv.Path(), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "NO_COLOR=1", "TZ=UTC", "GUARD_HOST=box1"}
}

func startGuard(t *testing.T, dir string, env []string, args ...string) *waiter {
	t.Helper()
	w := &waiter{t: t, said: make(chan string, 64), done: make(chan struct{})}
	w.cmd = exec.Command(guardBin, args...)
	w.cmd.Dir = dir
	w.cmd.Env = env
	pipe, err := w.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, w.cmd.Start())
	go func() {
		s := bufio.NewScanner(pipe)
		for s.Scan() {
			w.mu.Lock()
			w.stderr.WriteString(s.Text() + "\n")
			w.mu.Unlock()
			select {
			case w.said <- s.Text():
			default:
			}
		}
		err := w.cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			w.code = ee.ExitCode()
		}
		close(w.done)
	}()
	t.Cleanup(func() {
		_ = w.cmd.Process.Kill()
		<-w.done
	})
	return w
}

// expectLine waits for a stderr line containing want.
func (w *waiter) expectLine(want string, within time.Duration) {
	w.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case l := <-w.said:
			if strings.Contains(l, want) {
				return
			}
		case <-w.done:
			w.t.Fatalf("guard exited (%d) before saying %q:\n%s", w.code, want, w.errText())
		case <-deadline:
			w.t.Fatalf("guard did not say %q within %s:\n%s", want, within, w.errText())
		}
	}
}

func (w *waiter) errText() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stderr.String()
}

// exit waits for the process to end and returns its exit code.
func (w *waiter) exit(within time.Duration) int {
	w.t.Helper()
	select {
	case <-w.done:
		return w.code
	case <-time.After(within):
		w.t.Fatalf("guard still running after %s:\n%s", within, w.errText())
	}
	return -1
}

func (w *waiter) running() bool {
	select {
	case <-w.done:
		return false
	default:
		return true
	}
}

// lockFence reads the fence of the lock file: guard writes max(previous+1, now in
// µs), so a fresh claim's fence is the moment it claimed.
func lockFence(t *testing.T, path string) (owner string, at time.Time) {
	t.Helper()
	body := ctRead(t, path)
	var fence int64
	for _, l := range strings.Split(body, "\n") {
		k, v, _ := strings.Cut(l, ":")
		switch strings.TrimSpace(k) {
		case "owner":
			owner = strings.TrimSpace(v)
		case "fence":
			fence, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return owner, time.UnixMicro(fence)
}

func guardOK(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(guardBin, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "guard %v: %s", args, out)
	return string(out)
}

func TestWaiterClaimsWithinASecondOfARelease(t *testing.T) {
	for _, how := range []string{"guard unlock", "rm"} {
		t.Run(how, func(t *testing.T) {
			env := waitEnv(t)
			dir := t.TempDir()
			guardOK(t, dir, env, "lock", "--owner", "bob", "--purpose", "parser refactor", dir)
			w := startGuard(t, dir, env, "lock", "--owner", "alice", "--wait", "60s", dir)
			w.expectLine("waiting for "+filepath.Join(dir, "LOCK.txt")+" held by bob: parser refactor", 10*time.Second)
			var released time.Time
			if how == "rm" {
				released = time.Now()
				require.NoError(t, os.Remove(filepath.Join(dir, "LOCK.txt")))
			} else {
				// Timed from before the unlock process starts: an upper bound.
				released = time.Now()
				guardOK(t, dir, env, "unlock", "--owner", "bob", dir)
			}
			require.Equal(t, 0, w.exit(10*time.Second), w.errText())
			owner, claimed := lockFence(t, filepath.Join(dir, "LOCK.txt"))
			assert.Equal(t, "alice", owner)
			latency := claimed.Sub(released)
			t.Logf("release to claim: %s", latency)
			assert.Less(t, latency, time.Second, "the waiter claimed %s after the release", latency)
		})
	}
}

func TestWaitersWinInTheOrderTheyStartedWaiting(t *testing.T) {
	env := waitEnv(t)
	dir := t.TempDir()
	lock := filepath.Join(dir, "LOCK.txt")
	guardOK(t, dir, env, "lock", "--owner", "bob", dir)
	var ws []*waiter
	for i := 0; i < 10; i++ {
		w := startGuard(t, dir, env, "lock", "--owner", "w"+strconv.Itoa(i), "--wait", "120s", dir)
		w.expectLine("waiting for", 20*time.Second)
		ws = append(ws, w)
	}
	prev := "bob"
	for i, w := range ws {
		guardOK(t, dir, env, "unlock", "--owner", prev, dir)
		require.Equal(t, 0, w.exit(20*time.Second), w.errText())
		owner, _ := lockFence(t, lock)
		require.Equal(t, "w"+strconv.Itoa(i), owner, "hand-off %d went to the wrong waiter", i)
		for _, later := range ws[i+1:] {
			require.True(t, later.running(), "a later waiter exited early:\n%s", later.errText())
		}
		prev = owner
	}
}

func TestAKilledWaiterDoesNotBlockTheOnesBehindIt(t *testing.T) {
	env := waitEnv(t)
	dir := t.TempDir()
	guardOK(t, dir, env, "lock", "--owner", "bob", dir)
	head := startGuard(t, dir, env, "lock", "--owner", "w0", "--wait", "120s", dir)
	head.expectLine("waiting for", 10*time.Second)
	second := startGuard(t, dir, env, "lock", "--owner", "w1", "--wait", "120s", dir)
	second.expectLine("in front", 10*time.Second)
	third := startGuard(t, dir, env, "lock", "--owner", "w2", "--wait", "120s", dir)
	third.expectLine("2 waiter(s) in front", 10*time.Second)
	// The head and the one behind it die without a word: their tickets stay on disk.
	require.NoError(t, head.cmd.Process.Signal(syscall.SIGKILL))
	require.NoError(t, second.cmd.Process.Signal(syscall.SIGKILL))
	head.exit(5 * time.Second)
	second.exit(5 * time.Second)
	guardOK(t, dir, env, "unlock", "--owner", "bob", dir)
	require.Equal(t, 0, third.exit(10*time.Second), third.errText())
	owner, _ := lockFence(t, filepath.Join(dir, "LOCK.txt"))
	assert.Equal(t, "w2", owner)
}

func TestWaitingUsesAlmostNoCPU(t *testing.T) {
	env := waitEnv(t)
	dir := t.TempDir()
	guardOK(t, dir, env, "lock", "--owner", "bob", dir)
	head := startGuard(t, dir, env, "lock", "--owner", "w0", "--wait", "120s", dir)
	head.expectLine("waiting for", 10*time.Second)
	behind := startGuard(t, dir, env, "lock", "--owner", "w1", "--wait", "120s", dir)
	behind.expectLine("in front", 10*time.Second)
	const span = 4 * time.Second
	before := []int64{cpuTicks(t, head.cmd.Process.Pid), cpuTicks(t, behind.cmd.Process.Pid)}
	time.Sleep(span)
	for i, w := range []*waiter{head, behind} {
		used := time.Duration(cpuTicks(t, w.cmd.Process.Pid)-before[i]) * time.Second / clockTicks
		share := float64(used) / float64(span)
		t.Logf("waiter %d used %s of CPU in %s (%.2f%%)", i, used, span, share*100)
		// The promise is < 1%; the threshold is generous for a loaded machine.
		assert.Less(t, share, 0.03, "waiter %d", i)
	}
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times (100 on Linux).
const clockTicks = 100

// cpuTicks is utime+stime of a process from /proc/<pid>/stat.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Skipf("no /proc here to measure CPU time: %v", err)
	}
	// The command name may hold spaces; the fields after it are fixed.
	rest := string(data[bytes.LastIndexByte(data, ')')+2:])
	f := strings.Fields(rest)
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return utime + stime
}

func TestWaitTimesOutNamingTheHolder(t *testing.T) {
	env := waitEnv(t)
	dir := t.TempDir()
	guardOK(t, dir, env, "lock", "--owner", "bob", "--purpose", "nightly import", dir)
	w := startGuard(t, dir, env, "lock", "--owner", "alice", "--wait", "1s", dir)
	assert.Equal(t, 1, w.exit(10*time.Second))
	msg := w.errText()
	assert.Contains(t, msg, "waited 1s")
	assert.Contains(t, msg, filepath.Join(dir, "LOCK.txt")+" is held by bob")
	assert.Contains(t, msg, "nightly import")
	owner, _ := lockFence(t, filepath.Join(dir, "LOCK.txt"))
	assert.Equal(t, "bob", owner)
}

func TestWaitClaimsWhenTheHolderExpires(t *testing.T) {
	env := waitEnv(t)
	dir := t.TempDir()
	guardOK(t, dir, env, "lock", "--owner", "bob", "--expires", "2s", dir)
	w := startGuard(t, dir, env, "lock", "--owner", "alice", "--wait", "30s", dir)
	require.Equal(t, 0, w.exit(15*time.Second), w.errText())
	assert.Contains(t, w.errText(), "took over expired lock of bob")
}

func TestWaitFlagValues(t *testing.T) {
	env := waitEnv(t)
	dir := t.TempDir()
	guardOK(t, dir, env, "lock", "--owner", "bob", dir)
	for _, v := range []string{"0", "0s"} {
		start := time.Now()
		w := startGuard(t, dir, env, "lock", "--owner", "alice", "--wait", v, dir)
		assert.Equal(t, 1, w.exit(10*time.Second), "--wait %s", v)
		assert.Less(t, time.Since(start), 5*time.Second, "--wait %s must not wait", v)
		assert.NotContains(t, w.errText(), "waiting for")
	}
	for _, v := range []string{"5", "soon", "-1s", "1w"} {
		w := startGuard(t, dir, env, "lock", "--owner", "alice", "--wait", v, dir)
		assert.Equal(t, 2, w.exit(10*time.Second), "--wait %s", v)
		assert.Contains(t, w.errText(), "--wait")
	}
}

// ranGuard is a finished guard process.
type ranGuard struct {
	stdout, stderr string
	code           int
}

func startGuardOut(t *testing.T, dir string, env []string, args ...string) ranGuard {
	t.Helper()
	cmd := exec.Command(guardBin, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return ranGuard{out.String(), errb.String(), code}
}

func sha8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}
