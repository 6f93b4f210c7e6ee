package main

// End-to-end tests of the etcd backend (CONTRACT.md section 10) against real etcd
// servers (internal/etcdtest: go.etcd.io/etcd/server/v3/embed on 127.0.0.1), driving
// the built binary in clone directories that stand for two machines.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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

	"github.com/guardlocks/guard/internal/testing/etcdtest"
	"github.com/guardlocks/guard/internal/testing/guardtest"
)

// etcdProject makes an upstream repository whose .guard.toml names the backend, and
// n clones of it (no project_id: the clones share their origin URL, so they are one
// project).
func etcdProject(t *testing.T, endpoints []string, extra string, n int) []string {
	t.Helper()
	if !strings.Contains(extra, "dial_timeout") {
		// Generous: the machine running the tests may be busy.
		extra = "dial_timeout = \"10s\"\n" + extra
	}
	var eps []string
	for _, e := range endpoints {
		eps = append(eps, fmt.Sprintf("%q", e))
	}
	cfg := fmt.Sprintf("[backend]\nkind = \"etcd\"\nendpoints = [%s]\n%s", strings.Join(eps, ", "), extra)
	work := ctRepo(t, map[string]string{".guard.toml": cfg, "src/a.go": "package a\n", "docs/x.md": "x\n"})
	up := filepath.Join(t.TempDir(), "up.git")
	guardtest.Git(t, filepath.Dir(up), "clone", "-q", "--bare", work, up)
	var clones []string
	for i := range n {
		c := filepath.Join(t.TempDir(), fmt.Sprintf("clone%d", i))
		guardtest.Git(t, filepath.Dir(c), "clone", "-q", up, c)
		clones = append(clones, c)
	}
	return clones
}

func hostEnv(host string) []string {
	return []string{"GUARD_HOST=" + host, "GUARD_OWNER=agent@" + host}
}

func TestEtcdTwoClonesRaceForOneLockExactlyOneWinsEachTime(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "", 2)
	type result struct {
		code   int
		stderr string
	}
	for round := range 100 {
		var wg sync.WaitGroup
		res := make([]result, 2)
		for i, c := range clones {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, stderr, code := ctRun(t, c, hostEnv(fmt.Sprintf("box%d", i)), "", "lock", "src", "--expires", "1h", "--purpose", "race")
				res[i] = result{code, stderr}
			}()
		}
		wg.Wait()
		winners := 0
		for i, r := range res {
			switch r.code {
			case 0:
				winners++
				_, stderr, code := ctRun(t, clones[i], hostEnv(fmt.Sprintf("box%d", i)), "", "unlock", "src")
				require.Equal(t, 0, code, "round %d: unlock: %s", round, stderr)
			case 1:
				require.Contains(t, r.stderr, "in etcd at ", "round %d: the refusal names the backend", round)
			default:
				t.Fatalf("round %d: clone %d exit %d: %s", round, i, r.code, r.stderr)
			}
		}
		require.Equal(t, 1, winners, "round %d: %+v", round, res)
	}
}

func TestEtcdLockInOneCloneRefusesEditsAndCIInAFreshClone(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "", 2)
	a, b := clones[0], clones[1]
	out, stderr, code := ctRun(t, a, hostEnv("boxa"), "", "lock", "src", "--purpose", "parser refactor")
	require.Equal(t, 0, code, stderr)
	lockFile := strings.TrimSpace(out)
	body := ctRead(t, lockFile)
	assert.Contains(t, body, "backend: etcd\n")
	assert.Regexp(t, `(?m)^fence: \d{1,6}$`, body, "the fence is the etcd revision, not the microsecond formula")

	// Clone b has no lock file at all: only etcd knows.
	_, err := os.Stat(filepath.Join(b, "src", "LOCK.txt"))
	require.ErrorIs(t, err, os.ErrNotExist)
	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "check", "src/a.go")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "agent@boxa")
	assert.Contains(t, stderr, "held in etcd at "+cl.Endpoints()[0])

	// A lock of the folder above src is refused too (it would cover src), naming it.
	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "lock", ".")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "src/LOCK.txt")

	// A commit of b's that touches src, checked by guard ci in a fresh clone.
	ctWrite(t, b, "src/a.go", "package a // changed\n")
	guardtest.Git(t, b, "commit", "-qam", "change src")
	_, stderr, code = ctRun(t, b, hostEnv("ci"), "", "ci", "--base", "origin/main", "--head", "HEAD")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "src/a.go")
	assert.Contains(t, stderr, "agent@boxa")

	// docs is free.
	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "check", "docs/x.md")
	assert.Equal(t, 0, code, stderr)

	// Released in a: b may go on.
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "unlock", "src")
	require.Equal(t, 0, code, stderr)
	_, err = os.Stat(lockFile)
	assert.ErrorIs(t, err, os.ErrNotExist, "unlock removes the file too")
	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "check", "src/a.go")
	assert.Equal(t, 0, code, stderr)
}

func TestEtcdKilledHolderLosesTheLockWhenItsLeaseExpiresAndNotBefore(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "", 2)
	a, b := clones[0], clones[1]
	const ttl = 4 * time.Second
	cmd := exec.Command(guardBin, "run", "--expires", "4s", "src", "--", "sleep", "60")
	cmd.Dir = a
	cmd.Env = ctEnv(t, hostEnv("boxa"))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(a, "src", "LOCK.txt")); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "guard run never took the lock")
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	killed := time.Now()
	_ = cmd.Wait()

	_, stderr, code := ctRun(t, b, hostEnv("boxb"), "", "lock", "src")
	require.Equal(t, 1, code, "right after the kill the lease still holds: %s", stderr)
	var won time.Time
	for time.Since(killed) < ttl+10*time.Second {
		_, _, code = ctRun(t, b, hostEnv("boxb"), "", "lock", "src")
		if code == 0 {
			won = time.Now()
			break
		}
		require.Equal(t, 1, code)
		time.Sleep(100 * time.Millisecond)
	}
	require.False(t, won.IsZero(), "the lock never came free after the holder died")
	// The last renewal was at most half the lifetime before the kill, so the lease
	// ran at least half the lifetime past it.
	assert.GreaterOrEqual(t, won.Sub(killed), ttl/2-500*time.Millisecond, "freed before the lease could have expired")
	assert.Contains(t, ctRead(t, filepath.Join(b, "src", "LOCK.txt")), "owner: agent@boxb")
}

func TestEtcdUnreachableHooksAndChecksFailClosedWithinTheTimeout(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "dial_timeout = \"1s\"\n", 1)
	a := clones[0]
	ctWrite(t, a, "src/b.go", "package a\n")
	guardtest.Git(t, a, "add", "src/b.go")
	_, stderr, code := ctRun(t, a, hostEnv("boxa"), "", "hook", "pre-commit")
	require.Equal(t, 0, code, stderr)

	cl.Members[0].Stop()
	start := time.Now()
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "hook", "pre-commit")
	elapsed := time.Since(start)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "the lock backend (etcd at "+cl.Endpoints()[0])
	assert.Contains(t, stderr, "fails closed")
	assert.Less(t, elapsed, 6*time.Second, "dial_timeout is 1s")

	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "check", "docs/x.md")
	assert.Equal(t, 2, code, stderr)
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "lock", "docs")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "cannot be consulted")
}

func TestEtcdOfflineFilesFallsBackForReadsButNotForClaims(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "offline = \"files\"\ndial_timeout = \"1s\"\n", 1)
	a := clones[0]
	ctWrite(t, a, "docs/LOCK.txt", "owner: bob\n"+ctLive+"expires_after: 1h\n")
	cl.Members[0].Stop()
	_, stderr, code := ctRun(t, a, hostEnv("boxa"), "", "check", "src/a.go")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "offline = \"files\": judged from the lock files alone")
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "check", "docs/x.md")
	assert.Equal(t, 1, code, "a lock file still refuses: %s", stderr)
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "lock", "src")
	assert.Equal(t, 2, code, "a claim needs etcd: %s", stderr)
}

func TestEtcdRenewKeepsTheFenceAndUnlockOfAnotherOwnerIsRefused(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "", 2)
	a, b := clones[0], clones[1]
	out, stderr, code := ctRun(t, a, hostEnv("boxa"), "", "lock", "src", "--expires", "1h")
	require.Equal(t, 0, code, stderr)
	path := strings.TrimSpace(out)
	fence := fenceOf(t, ctRead(t, path))
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "renew", "src", "--expires", "2h")
	require.Equal(t, 0, code, stderr)
	body := ctRead(t, path)
	assert.Equal(t, fence, fenceOf(t, body))
	assert.Contains(t, body, "expires_after: 2h")
	// Again with guard lock: a renewal of the owner's own lock.
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "lock", "src")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "renewed own lock")
	assert.Equal(t, fence, fenceOf(t, ctRead(t, path)))

	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "unlock", "src")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "held by agent@boxa in etcd")
	// --force takes it over with a higher fence.
	out, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "lock", "src", "--force")
	require.Equal(t, 0, code, stderr)
	assert.Greater(t, fenceOf(t, ctRead(t, strings.TrimSpace(out))), fence)
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "check", "src/a.go")
	assert.Equal(t, 1, code, "a's stale file follows etcd's decision: %s", stderr)
	assert.Contains(t, stderr, "agent@boxb")
}

func fenceOf(t *testing.T, body string) int64 {
	t.Helper()
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, "fence: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no fence in %q", body)
	return 0
}

func TestEtcdAgentHookAndPublishSeeALockHeldFromAnotherMachine(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	// strict: code guard cannot read is asked about near a lock that refuses.
	clones := etcdProject(t, cl.Endpoints(), "[agent]\nstrict = true\n", 2)
	a, b := clones[0], clones[1]
	_, stderr, code := ctRun(t, a, hostEnv("boxa"), "", "lock", "src", "--purpose", "agent a's area")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "lock", ".", "--scope", "release", "--operations", "registry-upload")
	require.Equal(t, 0, code, "a's own lock in src does not stop a: %s", stderr)
	// Publishing from b is refused by a's release lock, which only etcd tells b of.
	ctWrite(t, b, "package.json", `{"name": "x", "version": "1.0.0"}`)
	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "publish", "--", "npm", "publish")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "LOCK.release.txt")
	assert.Contains(t, stderr, "held in etcd")

	for name, c := range map[string]struct {
		tool  string
		input map[string]any
	}{
		"a Write into the area":       {"Write", map[string]any{"file_path": filepath.Join(b, "src", "new.go"), "content": "x"}},
		"a shell write into it":       {"Bash", map[string]any{"command": "echo hi > src/y.go"}},
		"a command guard cannot read": {"Bash", map[string]any{"command": "python3 -c 'open(\"src/z\", \"w\")'"}},
	} {
		t.Run(name, func(t *testing.T) {
			out, errOut, code := ctRun(t, b, hostEnv("boxb"), ctHookInput(t, c.tool, c.input, b, "s1"), "agent-hook", "claude")
			if code == 2 {
				assert.Contains(t, errOut, "agent@boxa")
				return
			}
			require.Equal(t, 0, code, errOut)
			decision, reason := ctDecision(t, out)
			assert.Contains(t, []string{"deny", "ask"}, decision, out)
			assert.Contains(t, reason, "agent@boxa")
		})
	}
}

func TestEtcdDoctorReportsDisagreementsAndRepairMakesTheFilesFollow(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "", 2)
	a, b := clones[0], clones[1]
	out, stderr, code := ctRun(t, a, hostEnv("boxa"), "", "lock", "src", "--purpose", "refactor")
	require.Equal(t, 0, code, stderr)
	want := ctRead(t, strings.TrimSpace(out))
	bFile := filepath.Join(b, "src", "LOCK.txt")
	handMade := ctWrite(t, b, "docs/LOCK.txt", "owner: carol\n"+ctLive+"expires_after: 1h\n")

	backendOf := func(stdout string) map[string]any {
		rep := ctObject(t, stdout)
		repo := rep["repositories"].([]any)[0].(map[string]any)
		require.NotNil(t, repo["backend"], stdout)
		return repo["backend"].(map[string]any)["detail"].(map[string]any)
	}
	out, _, code = ctRun(t, b, hostEnv("boxb"), "", "doctor", "--json")
	assert.Equal(t, 1, code)
	h := backendOf(out)
	assert.Equal(t, true, h["reachable"])
	assert.Equal(t, []any{bFile}, h["keys_without_file"])
	assert.Equal(t, []any{handMade}, h["files_without_key"], "a lock file etcd does not hold is a disagreement")

	out, stderr, _ = ctRun(t, b, hostEnv("boxb"), "", "doctor", "--repair")
	assert.Contains(t, out, "repaired: wrote "+bFile, stderr)
	assert.Equal(t, want, ctRead(t, bFile), "the file follows etcd exactly, fence included")
	assert.FileExists(t, handMade, "a lock etcd never held is never removed")

	// Released in a: b's follower is stale now; --repair removes it.
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "unlock", "src")
	require.Equal(t, 0, code, stderr)
	out, _, _ = ctRun(t, b, hostEnv("boxb"), "", "doctor", "--json")
	assert.Equal(t, []any{handMade, bFile}, backendOf(out)["files_without_key"])
	out, _, _ = ctRun(t, b, hostEnv("boxb"), "", "doctor", "--repair", "--json")
	assert.Equal(t, []any{"removed " + bFile}, backendOf(out)["repaired"])
	assert.NoFileExists(t, bFile)

	cl.Members[0].Stop()
	out, _, code = ctRun(t, b, hostEnv("boxb"), "", "doctor")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "backend: etcd at "+cl.Endpoints()[0])
	assert.Contains(t, out, "unreachable")
}

func TestEtcdAgentClaimOnWriteIsHeldInEtcdAndReleasedThere(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "", 2)
	a, b := clones[0], clones[1]
	in := `{"session_id":"s-7","cwd":"` + b + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + b + `/docs/new.md","content":""}}`
	out, stderr, code := ctRun(t, b, hostEnv("boxb"), in, "agent-hook", "claude", "--claim")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "guard: claimed "+b+"/docs/LOCK.txt (created, expires after 30m)")
	assert.Contains(t, ctRead(t, filepath.Join(b, "docs", "LOCK.txt")), "backend: etcd\n")

	// The agent's lease reaches the other machine.
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "check", "docs/x.md")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "held by agent@boxb (held in etcd at ")

	out, stderr, code = ctRun(t, b, hostEnv("boxb"), `{"session_id":"s-7","cwd":"`+b+`","hook_event_name":"SessionEnd"}`, "agent-release", "--hook", "claude")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "released "+b+"/docs/LOCK.txt\n", out)
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "check", "docs/x.md")
	assert.Equal(t, 0, code, stderr)
}

// guard watch in one clone reports a lock claimed and released from the other, held
// in etcd only (clone b has no file for it).
func TestEtcdWatchReportsLocksHeldFromAnotherMachine(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "", 2)
	a, b := clones[0], clones[1]
	cmd := exec.Command(guardBin, "watch", "--json", b)
	cmd.Env = ctEnv(t, hostEnv("boxb"))
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 10)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	ready := bufio.NewScanner(errPipe)
	require.True(t, ready.Scan(), "guard watch said nothing on stderr")
	go func() {
		for ready.Scan() {
		}
	}()
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case line := <-lines:
			var ev map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &ev), line)
			return ev
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s event within 10 s", what)
		}
		return nil
	}
	_, stderr, code := ctRun(t, a, hostEnv("boxa"), "", "lock", "src", "--purpose", "seen from b")
	require.Equal(t, 0, code, stderr)
	ev := next("acquired")
	assert.Equal(t, "acquired", ev["event"])
	assert.Equal(t, filepath.Join(b, "src", "LOCK.txt"), ev["path"], "shown at its place in the watching clone")
	assert.Equal(t, "agent@boxa", ev["owner"])
	assert.Contains(t, ev["detail"], "held in etcd at ")
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "unlock", "src")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "released", next("released")["event"])
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
}

func TestEtcdResourceLocksAndWaitingWatchTheKeys(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "", 2)
	a, b := clones[0], clones[1]
	// Each run has a HOME of its own, so no two share a resources directory: only
	// etcd connects them.
	_, stderr, code := ctRun(t, a, hostEnv("boxa"), "", "lock", "--resource", "db://staging", "--expires", "1h")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "lock", "--resource", "db://staging")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "agent@boxa")
	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "lock", "--resource", "db://other")
	assert.Equal(t, 0, code, "another resource is free: %s", stderr)
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "unlock", "--resource", "db://staging")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "lock", "--resource", "db://staging")
	assert.Equal(t, 0, code, stderr)

	// A waiter in b is woken by a's release through etcd's watch.
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "lock", "src", "--expires", "1h")
	require.Equal(t, 0, code, stderr)
	waiter := exec.Command(guardBin, "lock", "src", "--wait", "60s")
	waiter.Dir = b
	waiter.Env = ctEnv(t, hostEnv("boxb"))
	var werr strings.Builder
	waiter.Stderr = &werr
	require.NoError(t, waiter.Start())
	done := make(chan error, 1)
	go func() { done <- waiter.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("the waiter did not wait: %v: %s", err, werr.String())
	case <-time.After(2 * time.Second):
	}
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "unlock", "src")
	require.Equal(t, 0, code, stderr)
	select {
	case err := <-done:
		require.NoError(t, err, werr.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("the waiter was not woken by the release: %s", werr.String())
	}
	assert.Contains(t, ctRead(t, filepath.Join(b, "src", "LOCK.txt")), "owner: agent@boxb")
}

// A holder that exported its fence is superseded when the lock is taken over on
// another machine, though its own clone's lock file still carries its fence: etcd,
// not the file, confirms a grant.
func TestEtcdFenceOfAHolderSupersededOnAnotherMachineIsRefused(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "", 2)
	a, b := clones[0], clones[1]
	out, stderr, code := ctRun(t, a, hostEnv("boxa"), "", "lock", "src")
	require.Equal(t, 0, code, stderr)
	file := strings.TrimSpace(out)
	fenceEnv := append(hostEnv("boxa"), fmt.Sprintf("LOCK_FENCE=%d", fenceOf(t, ctRead(t, file))), "LOCK_FENCE_FILE="+file)
	_, stderr, code = ctRun(t, a, fenceEnv, "", "check", "docs/x.md")
	require.Equal(t, 0, code, stderr)

	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "lock", "src", "--force")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = ctRun(t, a, fenceEnv, "", "check", "docs/x.md")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "holds this lock under fence")
	assert.Contains(t, stderr, "you were superseded")
}

// guard run loses its lock when etcd gives it to another machine (--force there), stops
// its command and exits 5.
func TestEtcdRunStopsItsCommandWhenEtcdGivesTheLockAway(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "", 2)
	a, b := clones[0], clones[1]
	run := exec.Command(guardBin, "run", "--expires", "1h", "--grace", "2s", "src", "--", "sleep", "60")
	run.Dir = a
	run.Env = ctEnv(t, hostEnv("boxa"))
	var rerr lockedBuffer
	run.Stderr = &rerr
	require.NoError(t, run.Start())
	done := make(chan error, 1)
	go func() { done <- run.Wait() }()
	for deadline := time.Now().Add(20 * time.Second); ; {
		if strings.Contains(rerr.String(), "guard run: holding") {
			break
		}
		require.True(t, time.Now().Before(deadline), "guard run never took the lock: %s", rerr.String())
		time.Sleep(20 * time.Millisecond)
	}
	_, stderr, code := ctRun(t, b, hostEnv("boxb"), "", "lock", "src", "--force")
	require.Equal(t, 0, code, stderr)
	select {
	case err := <-done:
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, rerr.String())
		assert.Equal(t, 5, ee.ExitCode(), rerr.String())
		assert.Contains(t, rerr.String(), "lock lost")
	case <-time.After(20 * time.Second):
		_ = run.Process.Kill()
		t.Fatalf("guard run did not notice the loss: %s", rerr.String())
	}
}

// lockedBuffer is a stderr that a test reads while the process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TLS with a client certificate, and a password from GUARD_ETCD_PASSWORD; the TLS
// files are named relative to the .guard.toml.
func TestEtcdOverTLSWithAuthentication(t *testing.T) {
	m, files := etcdtest.StartSecure(t, "s3cret")
	clones := etcdProject(t, []string{m.ClientURL}, "ca = \"tls/ca.pem\"\ncert = \"tls/client.pem\"\nkey = \"tls/client-key.pem\"\nusername = \"root\"\ndial_timeout = \"3s\"\n", 1)
	a := clones[0]
	for name, src := range map[string]string{"ca.pem": files.CA, "client.pem": files.Cert, "client-key.pem": files.Key} {
		ctWrite(t, a, "tls/"+name, ctRead(t, src))
	}
	_, stderr, code := ctRun(t, a, append(hostEnv("boxa"), "GUARD_ETCD_PASSWORD=s3cret"), "", "lock", "src")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = ctRun(t, a, append(hostEnv("boxa"), "GUARD_ETCD_PASSWORD=s3cret"), "", "unlock", "src")
	require.Equal(t, 0, code, stderr)

	_, stderr, code = ctRun(t, a, append(hostEnv("boxa"), "GUARD_ETCD_PASSWORD=wrong"), "", "check", "src/a.go")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "cannot be consulted")
	assert.Contains(t, stderr, "authentication failed")
}

// guard serve in one clone lists a lock held in etcd from the other, with no file here.
func TestEtcdServeListsLocksHeldFromAnotherMachine(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "", 2)
	a, b := clones[0], clones[1]
	_, stderr, code := ctRun(t, a, hostEnv("boxa"), "", "lock", "src", "--purpose", "listed in b")
	require.Equal(t, 0, code, stderr)
	base, token := serveWith(t, b, ctEnv(t, hostEnv("boxb")))
	req, err := http.NewRequest("GET", base+"/api/locks", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(body), `"path":"`+filepath.Join(b, "src", "LOCK.txt")+`"`)
	assert.Contains(t, string(body), `"held_in":"etcd at `+cl.Endpoints()[0])
	assert.Contains(t, string(body), "listed in b")
}

// unlock --all releases what the owner holds in etcd, also a lock whose folder is not
// in this clone, and leaves other owners' locks.
func TestEtcdUnlockAllReleasesTheOwnersKeysWithOrWithoutAFileHere(t *testing.T) {
	cl := etcdtest.Start(t, 1)
	clones := etcdProject(t, cl.Endpoints(), "", 2)
	a, b := clones[0], clones[1]
	ctMkdir(t, a, "only-in-a")
	for _, dir := range []string{"src", "only-in-a"} {
		_, stderr, code := ctRun(t, a, hostEnv("boxa"), "", "lock", dir)
		require.Equal(t, 0, code, stderr)
	}
	_, stderr, code := ctRun(t, b, hostEnv("boxb"), "", "lock", "docs")
	require.Equal(t, 0, code, stderr)
	// From clone b, as the owner of a's locks: b has neither file.
	out, stderr, code := ctRun(t, b, hostEnv("boxa"), "", "unlock", "--all", b)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "released "+filepath.Join(b, "only-in-a", "LOCK.txt")+" (held in etcd at ")
	assert.Contains(t, out, "released "+filepath.Join(b, "src", "LOCK.txt")+" (held in etcd at ")
	_, stderr, code = ctRun(t, a, hostEnv("boxc"), "", "check", "src/a.go")
	assert.Equal(t, 0, code, stderr)
	_, stderr, code = ctRun(t, a, hostEnv("boxc"), "", "check", "docs/x.md")
	assert.Equal(t, 1, code, "b's own lock stays: %s", stderr)
}
