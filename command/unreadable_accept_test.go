//go:build unix

package command_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/command"
)

// Issue 2, "Must hold": check treats an area it could not read as locked and says
// so. guard's own policy test of this skips as root; this one drops to user nobody
// when it runs as root, so it binds wherever CI runs.
func TestCheckTreatsAnAreaItCannotReadAsLocked(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"closed/inner/": "", "shut/": "", "open/": ""})
	closed, shut := filepath.Join(root, "closed"), filepath.Join(root, "shut")
	// closed can be searched but not listed; shut can be neither.
	require.NoError(t, os.Chmod(closed, 0o311))
	require.NoError(t, os.Chmod(shut, 0o000))
	t.Cleanup(func() { os.Chmod(closed, 0o755); os.Chmod(shut, 0o755) })
	paths := []string{
		filepath.Join(closed, "inner", "a.go"),
		filepath.Join(shut, "b.go"),
		filepath.Join(root, "open", "c.go"),
	}

	var out string
	if os.Geteuid() == 0 {
		out = asNobody(t, "TestHelperCheckAsNobody", []string{"GUARD_TEST_CHECK_PATHS=" + strings.Join(paths, "\n")}, filepath.Join(closed, "inner"), filepath.Join(root, "open"))
	} else {
		out = checkUnreadable(paths)
	}
	assert.Contains(t, out, "exit 1\n", out)
	assert.Contains(t, out, `"allowed": false`)
	assert.Contains(t, out, paths[0], "the path under the unlistable folder is blocked")
	assert.Contains(t, out, paths[1], "the path under the unreadable folder is blocked")
	assert.Contains(t, out, "fail closed")
	var blockingOpen bool
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, `"path"`) && strings.Contains(line, paths[2]) {
			blockingOpen = true
		}
	}
	assert.False(t, blockingOpen, "a readable area is not blocked: %s", out)
}

// TestHelperCheckAsNobody is the child of TestCheckTreatsAnAreaItCannotReadAsLocked.
func TestHelperCheckAsNobody(t *testing.T) {
	paths := os.Getenv("GUARD_TEST_CHECK_PATHS")
	if paths == "" {
		t.Skip("only runs as a child of an unprivileged test")
	}
	os.Stdout.WriteString(checkUnreadable(strings.Split(paths, "\n")))
}

func checkUnreadable(paths []string) string {
	env, out, errb := readEnv("/", nil)
	err := command.RunCheck(command.CheckOptions{Env: env, Owner: "carol", Host: "hostC", JSON: true, Paths: paths})
	return out.String() + errb.String() + "exit " + strconv.Itoa(exitcode.Of(err)) + "\n"
}
