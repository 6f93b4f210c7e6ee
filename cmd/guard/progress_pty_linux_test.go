package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

// openTestPTY opens a pseudo-terminal: the side the test reads, and the terminal
// guard's stderr is.
func openTestPTY(t *testing.T) (control, term *os.File) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	control = os.NewFile(uintptr(fd), "/dev/ptmx")
	var unlock int32
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		control.Close()
		t.Skipf("unlocking the pseudo-terminal: %v", e)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	require.NoError(t, err)
	term, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { control.Close(); term.Close() })
	return control, term
}

// main reads the terminal state of stderr itself: with stderr a pseudo-terminal and
// stdout a pipe, guard audit github shows its pages out of the total there, and the
// JSON on stdout carries none of it; with stderr a pipe nothing is shown.
func TestAuditProgressReachesAPseudoTerminalOnStderrOnly(t *testing.T) {
	const prefix = "/api/v3"
	fake := newCtFakeGitHub(t, prefix)
	root := t.TempDir()
	guardtest.Git(t, ctMkdir(t, root, "leaked"), "init", "-q")
	args := []string{"audit", "github", "--owner", "acme", "--api-url", fake.srv.URL + prefix + "/", "--json", root}

	control, term := openTestPTY(t)
	cmd := exec.Command(guardBin, args...)
	cmd.Dir, cmd.Env = root, ctEnv(t, nil)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, term
	require.NoError(t, cmd.Start())
	term.Close() // the child holds it; the reader sees the end when the child exits
	shown, _ := io.ReadAll(control)
	_ = cmd.Wait()
	assert.Contains(t, string(shown), "\rlisting repositories of acme: page 1/2 (2 repositories)\x1b[K")
	assert.Contains(t, string(shown), "\rlisting repositories of acme: page 2/2 (4 repositories)\x1b[K\r\x1b[K")
	assert.True(t, strings.HasPrefix(out.String(), "{"), out.String())
	assert.NotContains(t, out.String(), "listing")

	stdout, stderr, _ := ctRun(t, root, nil, "", args...)
	assert.NotContains(t, stderr, "listing")
	assert.NotContains(t, stderr, "\r")
	assert.True(t, strings.HasPrefix(stdout, "{"), stdout)
}
