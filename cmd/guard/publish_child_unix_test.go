//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// publishChild is a real `guard publish -- npm publish` in a project approved by
// PUBLIC.txt, whose npm is script: guard and the command, as a shell starts them.
// guard runs in a session of its own, without a controlling terminal, so that what
// the test sends reaches guard alone, whatever terminal runs the test (a ^C typed at
// a terminal reaches guard and the command together, and guard does not pass it on
// again).
type publishChild struct {
	cmd    *exec.Cmd
	dir    string
	stderr bytes.Buffer
}

func startPublish(t *testing.T, script string) *publishChild {
	t.Helper()
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\n"+script+"\n"), 0o755))
	p := &publishChild{dir: t.TempDir()}
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "PUBLIC.txt"), nil, 0o644))
	p.cmd = exec.Command(guardBin, "publish", "--", "npm", "publish")
	p.cmd.Dir = p.dir
	p.cmd.Env = []string{"PATH=" + bin + ":" + testenv.Path(), "HOME=" + t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null"}
	p.cmd.Stderr = &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	require.NoError(t, p.cmd.Start())
	t.Cleanup(func() { _ = p.cmd.Process.Kill() })
	return p
}

// started waits for the command to have written its pid to the file "child".
func (p *publishChild) started(t *testing.T) int {
	t.Helper()
	return readPid(t, filepath.Join(p.dir, "child"))
}

// exit is guard's exit code: -1 when a signal ended guard itself.
func (p *publishChild) exit(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			return 0
		}
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, p.stderr.String())
		return ee.ExitCode()
	case <-time.After(30 * time.Second):
		t.Fatalf("guard publish, or a command holding its stderr, still running after 30s:\n%s", p.stderr.String())
		return -1
	}
}

// guard publish passes the command's exit status on as a shell reports it, and a
// signal sent to guard reaches the command while guard lives on to say how it ended.
func TestPublishCommandPassesSignalsAndExitStatusesThrough(t *testing.T) {
	const waits = `echo $$ > child; exec sleep 300`
	const traps = `trap 'exit 42' INT; trap 'exit 43' TERM; echo $$ > child; while :; do sleep 0.05; done`
	for _, tc := range []struct {
		name   string
		script string
		signal syscall.Signal // 0: none
		code   int
		said   string
	}{
		{"a command that succeeds is 0", `echo $$ > child; exit 0`, 0, 0, ""},
		{"a command that fails is its code", `echo $$ > child; exit 1`, 0, 1, "guard: npm publish exited 1; no chores run."},
		{"SIGINT to guard ends the command by SIGINT: 130", waits, syscall.SIGINT, 130, "guard: npm publish exited 130; no chores run."},
		{"SIGTERM to guard ends the command by SIGTERM: 143", waits, syscall.SIGTERM, 143, "guard: npm publish exited 143; no chores run."},
		{"a command that traps SIGINT decides its code", traps, syscall.SIGINT, 42, "guard: npm publish exited 42; no chores run."},
		{"a command that traps SIGTERM decides its code", traps, syscall.SIGTERM, 43, "guard: npm publish exited 43; no chores run."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startPublish(t, tc.script)
			p.started(t)
			if tc.signal != 0 {
				require.NoError(t, p.cmd.Process.Signal(tc.signal))
			}
			assert.Equal(t, tc.code, p.exit(t), "guard survives the signal and exits with the command's status:\n%s", p.stderr.String())
			if tc.said != "" {
				assert.Contains(t, p.stderr.String(), tc.said)
			}
		})
	}
}

// The command does not outlive a guard killed by SIGKILL, which can pass nothing on:
// the kernel kills it (its parent-death signal).
func TestPublishCommandDiesWithGuardEvenBySIGKILL(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has the parent-death signal")
	}
	p := startPublish(t, `echo $$ > child; exec sleep 300`)
	pid := p.started(t)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	assert.Equal(t, -1, p.exit(t), "SIGKILL ends guard itself")
	eventually(t, 10*time.Second, func() bool { return processGone(pid) }, "the command died with guard")
}
