//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runGuardIn runs guard with stdin and returns what it printed.
func runGuardIn(t *testing.T, dir string, env []string, stdin string, args ...string) ranGuard {
	t.Helper()
	cmd := exec.Command(guardBin, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(stdin)
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

func gone(path string) bool {
	_, err := os.Lstat(path)
	return os.IsNotExist(err)
}

// processGone reports whether pid has ended (exited and been reaped, or a zombie).
func processGone(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) != nil
	}
	rest := string(data[bytes.LastIndexByte(data, ')')+2:])
	return strings.HasPrefix(rest, "Z")
}

func eventually(t *testing.T, within time.Duration, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("not within %s: %s", within, what)
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	eventually(t, 10*time.Second, func() bool {
		b, err := os.ReadFile(path)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	}, "the command wrote "+path)
	return pid
}

func TestRunPassesStreamsEnvironmentAndExitCode(t *testing.T) {
	env := waitEnv(t)
	dir := t.TempDir()
	lock := filepath.Join(dir, "LOCK.txt")
	r := runGuardIn(t, dir, env, "from stdin\n", "run", "--owner", "job", dir, "--",
		"sh", "-c", `cat; echo "held=$GUARD_LOCK_HELD file=$LOCK_FENCE_FILE"; grep -q "^fence: $LOCK_FENCE$" "$LOCK_FENCE_FILE" && echo fence-ok; exit 7`)
	assert.Equal(t, 7, r.code, r.stderr)
	assert.Equal(t, "from stdin\nheld=1 file="+lock+"\nfence-ok\n", r.stdout, "stdout is COMMAND's alone")
	assert.Contains(t, r.stderr, "guard run: holding "+lock)
	assert.True(t, gone(lock), "the lock is released when COMMAND exits")

	r = runGuardIn(t, dir, env, "", "run", "--owner", "job", dir, "--", "sh", "-c", "kill -9 $$")
	assert.Equal(t, 128+9, r.code, "a signal N that ends COMMAND is 128+N")
	assert.True(t, gone(lock))
}

func TestRunRefusedClaimRunsNothing(t *testing.T) {
	env := waitEnv(t)
	dir := t.TempDir()
	guardOK(t, dir, env, "lock", "--owner", "bob", "--purpose", "deploy", dir)
	marker := filepath.Join(dir, "ran")
	r := runGuardIn(t, dir, env, "", "run", "--owner", "alice", dir, "--", "touch", marker)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "held by bob")
	assert.True(t, gone(marker), "COMMAND must not run")

	r = runGuardIn(t, dir, env, "", "run", "--owner", "alice", "--wait", "1s", dir, "--", "touch", marker)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "waited 1s")
	assert.True(t, gone(marker))
}

func TestRunUsage(t *testing.T) {
	env := waitEnv(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"run", dir, "true"},
		{"run", "--", "true"},
		{"run", dir, dir, "--", "true"},
		{"run", "--grace", "soon", dir, "--", "true"},
	} {
		r := runGuardIn(t, dir, env, "", args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}
	r := runGuardIn(t, dir, env, "", "run", dir, "--", "no-such-program-guard-test")
	assert.Equal(t, 127, r.code, r.stderr)
	assert.True(t, gone(filepath.Join(dir, "LOCK.txt")), "nothing is claimed for a COMMAND that cannot run")
}

func TestRunForwardsSignalsAndReleasesAfterCommandExited(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			env := waitEnv(t)
			dir := t.TempDir()
			lock := filepath.Join(dir, "LOCK.txt")
			ready := filepath.Join(dir, "ready")
			// COMMAND takes its time to finish after the signal: the lock must still be
			// there until it has.
			w := startGuard(t, dir, env, "run", "--owner", "job", dir, "--", "sh", "-c",
				`trap 'sleep 0.5; test -e "$LOCK_FENCE_FILE" && echo held-while-stopping > stopped; exit 3' `+sigName(sig)+`; touch ready; while :; do sleep 0.1; done`)
			eventually(t, 10*time.Second, func() bool { return !gone(ready) }, "COMMAND started")
			require.NoError(t, w.cmd.Process.Signal(sig))
			assert.Equal(t, 3, w.exit(10*time.Second), w.errText())
			assert.Equal(t, "held-while-stopping\n", ctRead(t, filepath.Join(dir, "stopped")))
			assert.True(t, gone(lock), "released once COMMAND exited")
		})
	}
}

func sigName(s syscall.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "TERM"
	case syscall.SIGINT:
		return "INT"
	}
	return "HUP"
}

func TestRunRenewsAtHalfTheLifetime(t *testing.T) {
	env := waitEnv(t)
	dir := t.TempDir()
	w := startGuard(t, dir, env, "run", "--owner", "job", "--expires", "2s", dir, "--", "sleep", "4")
	eventually(t, 10*time.Second, func() bool { return !gone(filepath.Join(dir, "LOCK.txt")) }, "claimed")
	time.Sleep(3 * time.Second)
	// Without renewal the 2s lock would have expired and be taken over.
	r := runGuardIn(t, dir, env, "", "lock", "--owner", "other", dir)
	assert.Equal(t, 1, r.code, "the renewed lock must still refuse: %s", r.stderr)
	assert.Equal(t, 0, w.exit(10*time.Second), w.errText())
}

func TestRunStopsCommandAndGrandchildWhenTheLockIsLost(t *testing.T) {
	for _, how := range []string{"removed", "replaced"} {
		t.Run(how, func(t *testing.T) {
			env := waitEnv(t)
			dir := t.TempDir()
			lock := filepath.Join(dir, "LOCK.txt")
			w := startGuard(t, dir, env, "run", "--owner", "job", "--grace", "1s", dir, "--", "sh", "-c",
				`trap '' TERM; sleep 300 & echo $! > grandchild; echo $$ > child; wait`)
			child, grandchild := readPid(t, filepath.Join(dir, "child")), readPid(t, filepath.Join(dir, "grandchild"))
			lostAt := time.Now()
			if how == "removed" {
				require.NoError(t, os.Remove(lock))
			} else {
				guardOK(t, dir, env, "lock", "--owner", "bob", "--force", dir)
			}
			assert.Equal(t, 5, w.exit(15*time.Second), w.errText())
			took := time.Since(lostAt)
			assert.Less(t, took, 2*time.Second+1*time.Second+2*time.Second, "noticed within 2 s, then the 1 s grace")
			assert.Contains(t, w.errText(), "lock lost: the lock file "+lock+" was "+how)
			assert.Contains(t, w.errText(), "SIGKILL", "COMMAND ignores SIGTERM, so it is killed after the grace")
			eventually(t, 3*time.Second, func() bool { return processGone(child) }, "COMMAND stopped")
			eventually(t, 3*time.Second, func() bool { return processGone(grandchild) }, "COMMAND's child stopped")
			if how == "replaced" {
				owner, _ := lockFence(t, lock)
				assert.Equal(t, "bob", owner, "the new holder's lock is left alone")
			}
		})
	}
}

func TestRunCommandDiesWithGuard(t *testing.T) {
	env := waitEnv(t)
	dir := t.TempDir()
	w := startGuard(t, dir, env, "run", "--owner", "job", dir, "--", "sh", "-c", `echo $$ > child; exec sleep 300`)
	child := readPid(t, filepath.Join(dir, "child"))
	require.NoError(t, w.cmd.Process.Signal(syscall.SIGKILL))
	w.exit(5 * time.Second)
	eventually(t, 3*time.Second, func() bool { return processGone(child) }, "COMMAND died with guard (Pdeathsig)")
	assert.False(t, gone(filepath.Join(dir, "LOCK.txt")), "the lock stays until it expires")
}

func TestRunHoldsAResource(t *testing.T) {
	env := waitEnv(t)
	work := t.TempDir()
	r := runGuardIn(t, work, env, "", "run", "--owner", "job", "--resource", "deploy:prod", "--", "sh", "-c",
		`grep -q "^resource: deploy:prod$" "$LOCK_FENCE_FILE" && echo "$LOCK_FENCE_FILE"`)
	require.Equal(t, 0, r.code, r.stderr)
	path := strings.TrimSpace(r.stdout)
	assert.Equal(t, "LOCK.deploy-prod-"+sha8("deploy:prod")+".txt", filepath.Base(path))
	assert.True(t, gone(path), "released after COMMAND")
}
