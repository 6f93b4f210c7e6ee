package guardtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardlocks/guard/internal/filelock"
)

// The version stamp of the binary Binary builds (cmd/guard's TestVersionPrintsWhatTheLinkerInjected
// reads it back).
const (
	BinaryVersion = "1.2.3"
	BinaryCommit  = "abc1234"
	BinaryDate    = "2026-11-29"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Binary returns guard's binary, built from this module's cmd/guard with the version
// stamp above. It is built once per go test run: the test binaries of one `go test`
// (children of the same go command) share one build in the temporary directory, under
// a file lock; a test binary run by hand builds its own. A failed build fails the test.
func Binary(t testing.TB) string {
	t.Helper()
	p, err := BuildBinary()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// BuildBinary is Binary for TestMain, which has no testing.TB.
func BuildBinary() (string, error) {
	binOnce.Do(func() { binPath, binErr = buildShared() })
	return binPath, binErr
}

// buildShared builds into guardtest-bin-PID-START in the temporary directory, where
// PID is the go command that runs this test binary (or the test binary itself) and
// START that process's start time, so that a reused PID never finds an old build.
// Builds whose process is gone are removed first.
func buildShared() (string, error) {
	owner := os.Getppid()
	if !isGoCommand(owner) {
		owner = os.Getpid()
	}
	sweepBuilds()
	dir := filepath.Join(os.TempDir(), "guardtest-bin-"+strconv.Itoa(owner)+"-"+startTime(owner))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("guard binary: %w", err)
	}
	release, err := filelock.Mutex{Path: dir + ".lock"}.Lock(context.Background())
	if err != nil {
		return "", fmt.Errorf("guard binary: %w", err)
	}
	defer release()
	name := "guard"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	bin := filepath.Join(dir, name)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	tmp := bin + ".building"
	ldflags := "-X main.version=" + BinaryVersion + " -X main.commit=" + BinaryCommit + " -X main.date=" + BinaryDate
	build := exec.Command("go", "build", "-o", tmp, "-ldflags", ldflags, "github.com/guardlocks/guard/cmd/guard")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building guard: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", fmt.Errorf("guard binary: %w", err)
	}
	return bin, nil
}

// isGoCommand reports whether pid runs the go command (on Linux, from /proc; elsewhere
// it says no, and every test binary builds its own).
func isGoCommand(pid int) bool {
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return err == nil && strings.TrimSpace(string(comm)) == "go"
}

// startTime is pid's start time in clock ticks since boot (/proc/PID/stat field 22),
// or "0" where there is no /proc.
func startTime(pid int) string {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "0"
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		if f := strings.Fields(s[i+1:]); len(f) > 19 {
			return f[19]
		}
	}
	return "0"
}

// sweepBuilds removes the builds of runs that have ended (their process is gone or
// is another process by now), and of runs a day old where there is no /proc.
func sweepBuilds() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "guardtest-bin-*-*"))
	for _, d := range dirs {
		if strings.HasSuffix(d, ".lock") {
			continue
		}
		f := strings.Split(strings.TrimPrefix(filepath.Base(d), "guardtest-bin-"), "-")
		if len(f) != 2 {
			continue
		}
		pid, err := strconv.Atoi(f[0])
		if err != nil {
			continue
		}
		gone := startTime(pid) != f[1]
		if f[1] == "0" {
			st, err := os.Stat(d)
			gone = err == nil && time.Since(st.ModTime()) > 24*time.Hour
		}
		if gone {
			release, err := filelock.Mutex{Path: d + ".lock"}.TryLock()
			if err != nil {
				continue // a build under way
			}
			_ = os.RemoveAll(d)
			release()
			_ = os.Remove(d + ".lock")
		}
	}
}
