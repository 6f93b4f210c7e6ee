package main

import (
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

// descendantsScript is a COMMAND that leaves three kinds of grandchildren: one in its
// process group, one that called setsid, and one that setsid's shell abandoned
// (an orphan, which ignores SIGTERM). It writes their pids and its own, then waits.
const descendantsScript = `sleep 300 & echo $! > ingroup
setsid sh -c 'echo $$ > session; exec sleep 300' &
setsid sh -c 'trap "" TERM; sleep 300 & echo $! > orphan' &
echo $$ > child
wait`

func needSetsid(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid(1) is not installed (util-linux): the grandchild that leaves the session cannot be made")
	}
}

// parentOf reads a process's parent from /proc.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	require.NoError(t, err)
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	ppid, err := strconv.Atoi(f[1])
	require.NoError(t, err)
	return ppid
}

func readDescendants(t *testing.T, dir string) map[string]int {
	t.Helper()
	pids := map[string]int{}
	for _, name := range []string{"child", "ingroup", "session", "orphan"} {
		pids[name] = readPid(t, filepath.Join(dir, name))
	}
	return pids
}

func assertAllGone(t *testing.T, pids map[string]int, within time.Duration) {
	t.Helper()
	for name, pid := range pids {
		eventually(t, within, func() bool { return processGone(pid) }, name+" ("+strconv.Itoa(pid)+") is gone")
	}
}

func TestRunGrandchildrenDieWithGuardEvenBySIGKILL(t *testing.T) {
	needSetsid(t)
	env := waitEnv(t)
	dir := t.TempDir()
	lock := filepath.Join(dir, "LOCK.txt")
	w := startGuard(t, dir, env, "run", "--owner", "job", "--grace", "1s", dir, "--", "sh", "-c", descendantsScript)
	pids := readDescendants(t, dir)
	// The abandoned one was reparented to guard run's supervisor (a child subreaper),
	// which is also COMMAND's parent, not to init.
	eventually(t, 10*time.Second, func() bool { return parentOf(t, pids["orphan"]) == parentOf(t, pids["child"]) },
		"the orphan is reparented to the supervisor")
	supervisor := parentOf(t, pids["child"])
	assert.NotEqual(t, w.cmd.Process.Pid, supervisor, "COMMAND's parent is the supervisor, not guard")
	assert.Equal(t, w.cmd.Process.Pid, parentOf(t, supervisor))
	before := ctRead(t, lock)

	require.NoError(t, w.cmd.Process.Signal(syscall.SIGKILL))
	// SIGTERM at once, SIGKILL after the 1 s grace for the orphan that ignores it; a
	// loaded machine gets a generous bound.
	assertAllGone(t, pids, 15*time.Second)
	eventually(t, 10*time.Second, func() bool { return processGone(supervisor) }, "the supervisor exits")
	w.exit(10 * time.Second)
	assert.Equal(t, before, ctRead(t, lock), "the lock stays as it was until it expires (CONTRACT.md section 8)")
}

func TestRunGrandchildrenDoNotOutliveCommand(t *testing.T) {
	needSetsid(t)
	env := waitEnv(t)
	dir := t.TempDir()
	r := runGuardIn(t, dir, env, "", "run", "--owner", "job", dir, "--", "sh", "-c",
		strings.Replace(descendantsScript, "wait", `while [ ! -s session ] || [ ! -s orphan ]; do sleep 0.05; done; exit 4`, 1))
	assert.Equal(t, 4, r.code, r.stderr)
	assertAllGone(t, readDescendants(t, dir), 5*time.Second)
	assert.True(t, gone(filepath.Join(dir, "LOCK.txt")), "released")
}

func TestRunGrandchildrenStopWhenTheLockIsLost(t *testing.T) {
	needSetsid(t)
	env := waitEnv(t)
	dir := t.TempDir()
	w := startGuard(t, dir, env, "run", "--owner", "job", "--grace", "1s", dir, "--", "sh", "-c", descendantsScript)
	pids := readDescendants(t, dir)
	require.NoError(t, os.Remove(filepath.Join(dir, "LOCK.txt")))
	assert.Equal(t, 5, w.exit(20*time.Second), w.errText())
	assertAllGone(t, pids, 5*time.Second)
}

func TestRunSupervisorIsNoCommand(t *testing.T) {
	// The supervisor's hidden argument, given by hand, runs nothing and says nothing.
	r := runGuardIn(t, t.TempDir(), waitEnv(t), "", "__guard-run-supervisor")
	assert.Equal(t, 126, r.code)
	assert.Empty(t, r.stdout)
}

// A lost lock sends SIGTERM to everything COMMAND started, a grandchild that left
// its session too, before SIGKILL after the grace: it may clean up.
func TestRunLostLockTermsEveryDescendantFirst(t *testing.T) {
	needSetsid(t)
	env := waitEnv(t)
	dir := t.TempDir()
	w := startGuard(t, dir, env, "run", "--owner", "job", "--grace", "3s", dir, "--", "sh", "-c",
		`setsid sh -c 'trap "echo cleaned > cleaned; exit 0" TERM; echo $$ > session; while :; do sleep 0.05; done' &
trap '' TERM; echo $$ > child; while :; do sleep 0.05; done`)
	child, session := readPid(t, filepath.Join(dir, "child")), readPid(t, filepath.Join(dir, "session"))
	require.NoError(t, os.Remove(filepath.Join(dir, "LOCK.txt")))
	assert.Equal(t, 5, w.exit(30*time.Second), w.errText())
	assert.Contains(t, w.errText(), "killed (SIGKILL) after 3s", "COMMAND ignores SIGTERM")
	assert.Equal(t, "cleaned\n", ctRead(t, filepath.Join(dir, "cleaned")), "the grandchild in its own session got SIGTERM")
	assert.True(t, processGone(child))
	assert.True(t, processGone(session))
}
