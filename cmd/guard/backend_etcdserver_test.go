package main

// The etcd backend against a separately packaged etcd server (Debian's etcd-server,
// which .ci/setup-etcd installs at /usr/bin/etcd): the embedded server of the other
// tests is etcd's own code linked into the test, this one is the program a team runs.

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

// etcdServerBin is the packaged etcd: GUARD_TEST_ETCD names another one.
func etcdServerBin(t *testing.T) string {
	bin := os.Getenv("GUARD_TEST_ETCD")
	if bin == "" {
		bin = "/usr/bin/etcd"
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no etcd server at %s (install Debian's etcd-server, as .ci/setup-etcd does, or set GUARD_TEST_ETCD): %v", bin, err)
	}
	return bin
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEtcdServer runs the packaged etcd on free loopback ports until the test ends.
func startEtcdServer(t *testing.T) (endpoint string, stop func()) {
	bin := etcdServerBin(t)
	cport, pport := freePort(t), freePort(t)
	endpoint = fmt.Sprintf("http://127.0.0.1:%d", cport)
	peer := fmt.Sprintf("http://127.0.0.1:%d", pport)
	cmd := exec.Command(bin, "--name", "guard-test", "--data-dir", filepath.Join(t.TempDir(), "etcd"),
		"--listen-client-urls", endpoint, "--advertise-client-urls", endpoint,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "guard-test="+peer, "--log-level", "error")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "ETCD_UNSUPPORTED_ARCH=" + os.Getenv("ETCD_UNSUPPORTED_ARCH")}
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	stop = func() {
		_ = cmd.Process.Kill()
		<-done
	}
	t.Cleanup(stop)
	for deadline := time.Now().Add(30 * time.Second); ; {
		if resp, err := http.Get(endpoint + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return endpoint, stop
			}
		}
		select {
		case <-done:
			t.Fatalf("etcd exited: %s", logs.String())
		default:
		}
		require.True(t, time.Now().Before(deadline), "etcd not healthy within 30s: %s", logs.String())
		time.Sleep(100 * time.Millisecond)
	}
}

func TestEtcdBackendAgainstDebiansEtcdServer(t *testing.T) {
	endpoint, stop := startEtcdServer(t)
	clones := etcdProject(t, []string{endpoint}, "dial_timeout = \"2s\"\n", 2)
	a, b := clones[0], clones[1]
	out, stderr, code := ctRun(t, a, hostEnv("boxa"), "", "lock", "src", "--expires", "1h", "--purpose", "packaged etcd")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, ctRead(t, strings.TrimSpace(out)), "backend: etcd\n")
	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "lock", "src")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "in etcd at "+endpoint)
	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "check", "src/a.go")
	assert.Equal(t, 1, code, stderr)
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "renew", "src")
	assert.Equal(t, 0, code, stderr)
	_, stderr, code = ctRun(t, a, hostEnv("boxa"), "", "unlock", "src")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "lock", "src", "--expires", "1h")
	assert.Equal(t, 0, code, stderr)

	stop()
	ctWrite(t, b, "docs/y.md", "y\n")
	guardtest.Git(t, b, "add", "docs/y.md")
	_, stderr, code = ctRun(t, b, hostEnv("boxb"), "", "hook", "pre-commit")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "cannot be consulted")
}
