//go:build unix

package main

// Issue 10, item 5: something named like a lock that is not a lock file guard can
// read (a FIFO, a device or a symlink to one, binary data) holds the area, through the
// built binary: check, the pre-commit hook, scan and status.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

// ctRunWithin is ctRun with a deadline: a guard that opened a FIFO for reading would
// block, one that read /dev/zero would never end.
func ctRunWithin(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, guardBin, args...)
	cmd.Dir = dir
	cmd.Env = ctEnv(t, env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "guard %v did not finish: it read what is not a lock file", args)
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errb.String(), 0
}

func TestContractWhatIsNamedLikeALockButIsNoneHoldsTheArea(t *testing.T) {
	link := func(target string) func(*testing.T, string) {
		return func(t *testing.T, p string) {
			if _, err := os.Stat(target); err != nil {
				t.Skipf("%s is not there: %v", target, err)
			}
			require.NoError(t, os.Symlink(target, p))
		}
	}
	cases := []struct {
		name string
		make func(t *testing.T, p string)
		// why is what refusals, scan and status say about it; tag the scan marker.
		why, tag string
	}{
		{"a FIFO", func(t *testing.T, p string) { require.NoError(t, syscall.Mkfifo(p, 0o644)) },
			"not a regular file: a named pipe (FIFO)", "UNREADABLE"},
		{"a symlink to /dev/zero", link("/dev/zero"),
			"not a regular file: a symbolic link to a character device (/dev/zero)", "UNREADABLE"},
		{"a symlink to a character device", link("/dev/null"),
			"not a regular file: a symbolic link to a character device (/dev/null)", "UNREADABLE"},
		{"binary data", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, []byte("\x00\x01\x02\x03\xff\xfe\x00\x00garbage\x00"), 0o644))
		}, "not a valid lock file: no readable `key: value` field in 16 bytes of binary data", "INVALID"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo := ctRepo(t, map[string]string{"area/a.go": "package a\n", "free/b.go": "package b\n"})
			lock := filepath.Join(repo, "area", "LOCK.txt")
			c.make(t, lock)
			bob := []string{"GUARD_OWNER=bob"}

			_, errOut, code := ctRunWithin(t, repo, bob, "check", "area/a.go")
			assert.Equal(t, 1, code, errOut)
			assert.Contains(t, errOut, "exclusive lock "+lock+" is "+c.why)
			assert.Contains(t, errOut, "fail closed")
			assert.Contains(t, errOut, "what now: ")
			_, errOut, code = ctRunWithin(t, repo, bob, "check", "free/b.go")
			assert.Equal(t, 0, code, "only its own area is held: %s", errOut)

			ctWrite(t, repo, "area/a.go", "package a // changed\n")
			ctWrite(t, repo, "free/b.go", "package b // changed\n")
			guardtest.Git(t, repo, "add", "area/a.go", "free/b.go")
			out, errOut, code := ctRunWithin(t, repo, bob, "hook", "pre-commit")
			assert.Equal(t, 1, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, "exclusive lock "+lock+" is "+c.why)
			assert.Contains(t, errOut, "blocked: "+filepath.Join(repo, "area", "a.go"))
			assert.NotContains(t, errOut, "blocked: "+filepath.Join(repo, "free", "b.go"))

			out, errOut, code = ctRunWithin(t, repo, nil, "scan", repo)
			assert.Equal(t, 0, code, errOut)
			assert.Contains(t, out, lock+" ["+c.tag+": "+c.why+"]")
			out, _, code = ctRunWithin(t, repo, nil, "scan", "--json", repo)
			assert.Equal(t, 0, code)
			locks := ctLocks(t, out)
			require.Len(t, locks, 1, out)
			assert.Equal(t, lock, locks[0]["path"])
			assert.Equal(t, c.why, locks[0]["read_error"])
			assert.Nil(t, locks[0]["expires_at"], "it never expires: its lifetime is unknown")

			out, _, code = ctRunWithin(t, repo, nil, "status", "area")
			assert.Equal(t, 1, code)
			assert.Contains(t, out, lock+" ["+c.tag+": "+c.why+"]")
			assert.True(t, strings.HasPrefix(out, "guard status: 1 active lock(s) cover "), out)
		})
	}
}
