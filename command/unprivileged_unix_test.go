//go:build unix

package command_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/internal/testing/guardtest"
)

// asNobody runs the test helper named test in a copy of this test binary as user
// nobody, so that file modes bind even when the tests run as root, and returns its
// output. Directories from the temporary directory down to every path in open are
// made searchable for that user.
func asNobody(t *testing.T, test string, env []string, open ...string) string {
	t.Helper()
	guardtest.Reachable(t, 0o011, open...)
	got, err := guardtest.AsNobody(t, test, env)
	require.NoError(t, err, "child: %s", got)
	return got
}

func TestStatusCountsAnUnreadableDirectoryAsLocked(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"closed/inner/": ""})
	closed := filepath.Join(root, "closed")
	// Searchable but not listable: DIR below it exists, its locks cannot be read.
	require.NoError(t, os.Chmod(closed, 0o311))
	t.Cleanup(func() { os.Chmod(closed, 0o755) })
	inner := filepath.Join(closed, "inner")

	if os.Geteuid() == 0 {
		out := asNobody(t, "TestHelperStatusAsNobody", []string{"GUARD_TEST_STATUS_DIR=" + inner}, inner)
		assert.Contains(t, out, "exit 1\n")
		assert.Contains(t, out, `"locked": true`)
		assert.Contains(t, out, closed)
		assert.Contains(t, out, "counted as locked (fail closed)")
		assert.Contains(t, out, "guard status: "+inner+" counts as locked: a directory on the way could not be read (fail closed)\n")
		return
	}
	env, out, errb := readEnv(root, nil)
	err := command.RunStatus(command.StatusOptions{Env: env, Dir: inner, JSON: true})
	assert.Equal(t, 1, exitcode.Of(err))
	assert.Contains(t, out.String(), `"locked": true`)
	assert.Contains(t, errb.String(), closed)
	assert.Contains(t, errb.String(), "counted as locked (fail closed)")
}

// TestHelperStatusAsNobody is the child of TestStatusCountsAnUnreadableDirectoryAsLocked.
func TestHelperStatusAsNobody(t *testing.T) {
	dir := os.Getenv("GUARD_TEST_STATUS_DIR")
	if dir == "" {
		t.Skip("only runs as a child of an unprivileged test")
	}
	env, out, errb := readEnv("/", nil)
	err := command.RunStatus(command.StatusOptions{Env: env, Dir: dir, JSON: true})
	os.Stdout.WriteString(out.String() + errb.String() + "exit " + strconv.Itoa(exitcode.Of(err)) + "\n")
	out.Reset()
	errb.Reset()
	command.RunStatus(command.StatusOptions{Env: env, Dir: dir})
	os.Stdout.WriteString(out.String())
}
