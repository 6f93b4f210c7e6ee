//go:build unix

package guardtest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Nobody is the unprivileged user (and group) tests become when they run as root,
// for whom file modes stop nothing.
const Nobody = 65534

// AsNobody runs the test function named test (a TestHelper... that skips unless its
// environment asks for it) in a copy of this test binary as user Nobody, with the
// test's environment plus env, and returns its combined output and the error of the
// run (an *exec.ExitError when the child failed). Only root can do this; make the
// paths the child needs reachable first (Reachable).
func AsNobody(t testing.TB, test string, env []string) (string, error) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("guardtest.AsNobody is only for root")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	binDir := t.TempDir()
	for _, d := range []string{binDir, filepath.Dir(binDir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(binDir, filepath.Base(exe))
	// A hard link when it can: a copy written here may still be open in a child that a
	// parallel test is forking, and executing it then fails with "text file busy".
	if err := os.Link(exe, bin); err != nil {
		copyExecutable(t, exe, bin)
	}
	cmd := exec.Command(bin, "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Reachable gives every directory from each path up to (not including) the
// temporary directory the permission bits in mode (0o011: searchable by Nobody;
// 0o055: also listable) where it lacks them, so that Nobody can reach the path.
func Reachable(t testing.TB, mode os.FileMode, paths ...string) {
	t.Helper()
	tmp := os.TempDir()
	for _, p := range paths {
		for d := p; d != filepath.Dir(d) && strings.HasPrefix(d, tmp) && d != tmp; d = filepath.Dir(d) {
			if st, err := os.Stat(d); err == nil && st.Mode().Perm()&mode != mode {
				if err := os.Chmod(d, st.Mode().Perm()|mode); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

func copyExecutable(t testing.TB, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
