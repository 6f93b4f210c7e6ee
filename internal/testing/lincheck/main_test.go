//go:build linux

package lincheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

// guardBin is the real guard, built once for the scenarios.
var guardBin string

func TestMain(m *testing.M) {
	if os.Getenv("LINCHECK_CHILD") != "" {
		Child()
	}
	if url := os.Getenv("LINCHECK_STATUS"); url != "" {
		Status(url)
	}
	bin, err := guardtest.BuildBinary()
	if err != nil {
		panic(err)
	}
	guardBin = bin
	os.Exit(m.Run())
}

// scenarios bounds how many scenarios run at once (the machine has two cores).
var scenarios = make(chan struct{}, 3)

// scenario runs the test alongside at most two other scenarios.
func scenario(t *testing.T) {
	t.Parallel()
	scenarios <- struct{}{}
	t.Cleanup(func() { <-scenarios })
}

// long is GUARD_LINCHECK_LONG=1 (bench/lincheck.sh): minutes instead of seconds.
func long() bool { return os.Getenv("GUARD_LINCHECK_LONG") == "1" }

// scenarioLength is a scenario's client load: short in go test ./..., long by hand.
func scenarioLength(short, longer time.Duration) time.Duration {
	if long() {
		return longer
	}
	return short
}

// seed is GUARD_LINCHECK_SEED or the time (logged, so that a failure can be rerun).
func seed(t *testing.T) uint64 {
	if s := os.Getenv("GUARD_LINCHECK_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("GUARD_LINCHECK_SEED=%q: %v", s, err)
		}
		return n
	}
	n := uint64(time.Now().UnixNano())
	t.Logf("seed %d (GUARD_LINCHECK_SEED=%d repeats the clients' choices)", n, n)
	return n
}

// clientEnv is a client's environment: its own identity on its host, a HOME of the
// test's own, nothing of the user's.
func clientEnv(t *testing.T, host func(int) string) func(int) []string {
	home := t.TempDir()
	return func(c int) []string {
		return []string{"PATH=" + testenv.Path(), "HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"),
			"GIT_CONFIG_GLOBAL=/dev/null", "NO_COLOR=1",
			fmt.Sprintf("GUARD_OWNER=c%d", c), "GUARD_HOST=" + host(c)}
	}
}

// gitTree makes a repository at dir with the locked folder in it.
func gitTree(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	guardtest.InitRepo(t, dir)
	files[LockDir+"/x.txt"] = "x\n"
	for rel, body := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
