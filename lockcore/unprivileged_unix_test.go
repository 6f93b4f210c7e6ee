//go:build unix

package lockcore_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

func mkfifo(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(path, 0o644))
}

// nobody is the unprivileged user the unreadable-directory cases run as when the
// tests themselves run as root (for whom chmod 000 stops nothing).
const nobody = 65534

// scanAsNobody scans root (depth 4) in a copy of this test binary running as user
// nobody, so that file modes bind even when the tests run as root. It returns the
// locks found and the directories reported unreadable. Every directory from / down to
// root must be searchable by nobody; root's parent directories made by t.TempDir are
// opened up for that.
func scanAsNobody(t *testing.T, root string) (locks, unreadable []string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("scanAsNobody is only for root")
	}
	for d := root; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()) && d != os.TempDir(); d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o005 != 0o005 {
			require.NoError(t, os.Chmod(d, st.Mode().Perm()|0o055))
		}
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "lockcore.test")
	copyFile(t, exe, bin)
	require.NoError(t, os.Chmod(filepath.Dir(bin), 0o755))

	cmd := exec.Command(bin, "-test.run=^TestHelperScanAsNobody$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GUARD_TEST_SCAN_ROOT="+root)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child: %s", out)
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "LOCK "); ok {
			locks = append(locks, p)
		}
		if p, ok := strings.CutPrefix(sc.Text(), "UNREADABLE "); ok {
			unreadable = append(unreadable, p)
		}
	}
	return locks, unreadable
}

// TestHelperScanAsNobody is the child of scanAsNobody; it does nothing in a normal run.
func TestHelperScanAsNobody(t *testing.T) {
	root := os.Getenv("GUARD_TEST_SCAN_ROOT")
	if root == "" {
		t.Skip("only runs as the child of scanAsNobody")
	}
	res := lockcore.Scan([]lockcore.ScanRoot{{Path: root, MaxDepth: 4}}, lockcore.ScanOptions{})
	for _, l := range res.Locks {
		fmt.Printf("LOCK %s\n", l.Path)
	}
	for _, e := range res.Errors {
		fmt.Printf("UNREADABLE %s: %v\n", e.Path, e.Err)
	}
}

// copyFile puts the executable from at to: a hard link when it can (a copy written by
// this process may still be open in a child that a parallel test is forking, and
// executing it then fails with "text file busy", golang.org/issue/22315).
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Link(from, to); err == nil {
		return
	}
	in, err := os.Open(from)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}
