//go:build unix

package command_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/command"
)

// notALock is something named LOCK.txt that is not a lock file guard can read.
type notALock struct {
	name string
	make func(t *testing.T, p string)
	// tag and reason are what scan/status and a refusal say about it.
	tag, reason string
}

func notALockCases() []notALock {
	body := func(b string) func(*testing.T, string) {
		return func(t *testing.T, p string) { require.NoError(t, os.WriteFile(p, []byte(b), 0o644)) }
	}
	link := func(target string) func(*testing.T, string) {
		return func(t *testing.T, p string) {
			if _, err := os.Stat(target); err != nil {
				t.Skipf("%s is not there: %v", target, err)
			}
			require.NoError(t, os.Symlink(target, p))
		}
	}
	return []notALock{
		{"a FIFO", func(t *testing.T, p string) { require.NoError(t, syscall.Mkfifo(p, 0o644)) },
			"[UNREADABLE: not a regular file: a named pipe (FIFO)]", "is not a regular file: a named pipe (FIFO); guard never reads it"},
		{"a symlink to /dev/zero", link("/dev/zero"),
			"[UNREADABLE: not a regular file: a symbolic link to a character device (/dev/zero)]", "is not a regular file: a symbolic link to a character device (/dev/zero)"},
		{"a symlink to the character device /dev/null", link("/dev/null"),
			"[UNREADABLE: not a regular file: a symbolic link to a character device (/dev/null)]", "is not a regular file: a symbolic link to a character device (/dev/null)"},
		{"a binary body", body("\x00\x01\x02\xff\xfe\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
			"[INVALID: not a valid lock file: no readable `key: value` field in 21 bytes of binary data]", "is not a valid lock file: no readable `key: value` field in 21 bytes of binary data; it is treated as held"},
		{"a UTF-16 body", body("\xff\xfeo\x00w\x00n\x00e\x00r\x00:\x00 \x00a\x00\n\x00"),
			"[INVALID: not a valid lock file: no readable `key: value` field in 20 bytes of binary data]", "is not a valid lock file"},
	}
}

// withTimeout fails the test when fn does not return within a few seconds: reading a
// FIFO would block, reading /dev/zero would never end.
func withTimeout(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return: guard read a file that is not a lock", what)
	}
}

func TestWhatIsNamedLikeALockButIsNoneHoldsInCheckScanAndStatus(t *testing.T) {
	for _, c := range notALockCases() {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			files(t, root, map[string]string{"area/": "", "free/": ""})
			lock := filepath.Join(root, "area", "LOCK.txt")
			c.make(t, lock)

			env, _, errb := readEnv(root, map[string]string{"GUARD_OWNER": "anyone"})
			var err error
			withTimeout(t, "check", func() {
				err = command.RunCheck(command.CheckOptions{Env: env, Paths: []string{"area/x.go", "free/y.go"}})
			})
			assert.Equal(t, exitcode.Refused, exitcode.Of(err), errb.String())
			assert.Contains(t, errb.String(), "exclusive lock "+lock+" "+c.reason)
			assert.Contains(t, errb.String(), "blocked: "+filepath.Join(root, "area", "x.go"))
			assert.NotContains(t, errb.String(), filepath.Join(root, "free", "y.go"), "only the area of the lock is held")

			env, out, errb := readEnv(root, nil)
			withTimeout(t, "scan", func() { err = command.RunScan(command.ScanOptions{Env: env}) })
			require.NoError(t, err, errb.String())
			assert.Contains(t, out.String(), lock+" "+c.tag, "scan lists it as held, with why it could not be read")

			env, out, _ = readEnv(root, nil)
			withTimeout(t, "status", func() { err = command.RunStatus(command.StatusOptions{Env: env, Dir: "area"}) })
			assert.Equal(t, exitcode.Refused, exitcode.Of(err))
			assert.Contains(t, out.String(), lock+" "+c.tag)
		})
	}
}

func TestFreeTextAndLegacyEncodedBodiesStayValidLocks(t *testing.T) {
	for name, b := range map[string]string{
		"an empty file":                       "",
		"words without a field":               "do not touch, alice is migrating\n",
		"a Latin-1 body":                      "owner: J\xfcrgen\npurpose: M\xfcller\n",
		"a field after binary noise":          "\x00\x01\x02\nowner: alice\n",
		"Latin-1 words without a field":       "gesperrt f\xfcr M\xfcller\n",
		"a BOM and CRLF":                      "\xef\xbb\xbfowner: bom\r\n",
		"form feeds and vertical tabs (text)": "owner: a\f\vpurpose: b\n",
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			files(t, root, map[string]string{"LOCK.txt": b})
			env, out, errb := readEnv(root, nil)
			require.NoError(t, command.RunScan(command.ScanOptions{Env: env}), errb.String())
			assert.NotContains(t, out.String(), "INVALID")
			assert.NotContains(t, out.String(), "UNREADABLE")
			assert.Contains(t, out.String(), filepath.Join(root, "LOCK.txt"))
		})
	}
}
