package guardtest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// The identity and the instant every commit a test makes carries, so that hashes,
// logs and the outputs that show them do not depend on who runs the tests or when.
const (
	AuthorName  = "guard tests"
	AuthorEmail = "tests@example.com"
	GitDate     = "2026-03-01T10:00:00Z"
)

// GitEnv is the whole environment of a hermetic git: the test PATH (testenv.Path),
// HOME at home, no system or global configuration, the fixed identity and dates, TZ
// UTC; extra ("K=V") comes last and so wins.
func GitEnv(home string, extra ...string) []string {
	env := []string{
		"PATH=" + testenv.Path(), "HOME=" + home, "TZ=UTC",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=" + AuthorName, "GIT_AUTHOR_EMAIL=" + AuthorEmail, "GIT_AUTHOR_DATE=" + GitDate,
		"GIT_COMMITTER_NAME=" + AuthorName, "GIT_COMMITTER_EMAIL=" + AuthorEmail, "GIT_COMMITTER_DATE=" + GitDate,
	}
	return append(env, extra...)
}

// homes holds one HOME per test (Home).
var homes sync.Map // testing.TB -> string

// Home is the test's HOME: a directory of its own in the test's temporary directory,
// the same for every call in one test.
func Home(t testing.TB) string {
	t.Helper()
	if h, ok := homes.Load(t); ok {
		return h.(string)
	}
	h := t.TempDir()
	homes.Store(t, h)
	t.Cleanup(func() { homes.Delete(t) })
	return h
}

// Git runs a hermetic git in dir (GitEnv with the test's Home) and returns its
// output, trimmed; a failure fails the test with git's output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, code := GitCode(t, dir, nil, args...)
	if code != 0 {
		t.Fatalf("git %s in %s: exit %d\n%s", strings.Join(args, " "), dir, code, out)
	}
	return strings.TrimSpace(out)
}

// GitCode runs a hermetic git in dir with extra environment (hooks read GUARD_OWNER
// from it) and returns its combined output, untrimmed, and exit code: for a git whose
// refusal the test asserts.
func GitCode(t testing.TB, dir string, extra []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = GitEnv(Home(t), extra...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("git %s in %s: %v", strings.Join(args, " "), dir, err)
	}
	return out.String(), 0
}

// InitRepo makes dir (and its parents) a new repository on branch main and returns
// dir.
func InitRepo(t testing.TB, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q", "-b", "main")
	return dir
}

// Commit writes files (slash-separated paths relative to dir) into the repository at
// dir, stages them and commits them with msg; it returns the new commit.
func Commit(t testing.TB, dir, msg string, files map[string]string) string {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		Git(t, dir, "add", "--", rel)
	}
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return Git(t, dir, "rev-parse", "HEAD")
}
