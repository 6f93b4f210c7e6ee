//go:build unix

package lockcore_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/lockcore"
)

// An unreadable lock may be a user lock by its body (removable_by: user), so --force
// without a terminal must not remove it; a person at a terminal may.
func TestReleaseOfAnUnreadableLockNeedsAPersonToForceIt(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "LOCK.txt")
	require.NoError(t, os.WriteFile(lock, []byte("owner: alice\nremovable_by: user\n"), 0o000))
	require.NoError(t, os.Chmod(dir, 0o777))

	for _, tc := range []struct {
		interactive bool
		want        string
	}{{false, "user-lock"}, {true, "removed"}} {
		var got string
		if os.Geteuid() == 0 {
			got = releaseAsNobody(t, lock, tc.interactive)
		} else {
			got = releaseOutcome(lock, tc.interactive)
		}
		assert.Equal(t, tc.want, got, "interactive=%v", tc.interactive)
	}
	assert.NoFileExists(t, lock)
}

func releaseOutcome(lock string, interactive bool) string {
	_, err := lockcore.Release(lock, lockcore.ReleaseOptions{Owner: "bob", Force: true, Interactive: interactive, Now: time.Now()})
	switch {
	case err == nil:
		return "removed"
	case errors.Is(err, lockcore.ErrUserLock):
		return "user-lock"
	}
	return "error: " + err.Error()
}

// releaseAsNobody runs releaseOutcome in a copy of this test binary as user nobody, so
// that the file's mode binds although the tests run as root.
func releaseAsNobody(t *testing.T, lock string, interactive bool) string {
	t.Helper()
	guardtest.Reachable(t, 0o055, filepath.Dir(lock))
	out, _ := guardtest.AsNobody(t, "TestHelperReleaseAsNobody", []string{"GUARD_TEST_RELEASE=" + lock, fmt.Sprintf("GUARD_TEST_RELEASE_TTY=%v", interactive)})
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "OUTCOME "); ok {
			return v
		}
	}
	t.Fatalf("child said nothing useful: %s", out)
	return ""
}

// TestHelperReleaseAsNobody is the child of releaseAsNobody; it does nothing in a
// normal run.
func TestHelperReleaseAsNobody(t *testing.T) {
	lock := os.Getenv("GUARD_TEST_RELEASE")
	if lock == "" {
		t.Skip("only runs as the child of releaseAsNobody")
	}
	fmt.Printf("OUTCOME %s\n", releaseOutcome(lock, os.Getenv("GUARD_TEST_RELEASE_TTY") == "true"))
}
