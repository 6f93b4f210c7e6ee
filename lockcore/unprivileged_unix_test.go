//go:build unix

package lockcore_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/lockcore"
)

func mkfifo(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(path, 0o644))
}

// scanAsNobody scans root (depth 4) in a copy of this test binary running as user
// nobody, so that file modes bind even when the tests run as root. It returns the
// locks found and the directories reported unreadable. Every directory from root up
// to the temporary directory is opened up for nobody to list.
func scanAsNobody(t *testing.T, root string) (locks, unreadable []string) {
	t.Helper()
	guardtest.Reachable(t, 0o055, root)
	out, err := guardtest.AsNobody(t, "TestHelperScanAsNobody", []string{"GUARD_TEST_SCAN_ROOT=" + root})
	require.NoError(t, err, "child: %s", out)
	sc := bufio.NewScanner(strings.NewReader(out))
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
