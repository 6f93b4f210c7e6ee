//go:build unix

// Package verdaccio runs a throw-away npm registry for tests: the real verdaccio that
// .ci/setup-verdaccio installs, on a free 127.0.0.1 port, letting anyone read and
// publish, storing in a temporary folder. Tests that need it skip, saying why, when
// it or npm is missing.
package verdaccio

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// Binary is where the registry is: GUARD_VERDACCIO, else the CI cache directory
// .ci/setup-verdaccio installs into.
func Binary() string {
	if p := os.Getenv("GUARD_VERDACCIO"); p != "" {
		return p
	}
	return filepath.Join(testenv.CacheDir("verdaccio"), "node_modules", ".bin", "verdaccio")
}

// Start runs a registry for the test, stopped when it ends, and returns its URL
// (http://127.0.0.1:PORT). It skips the test when verdaccio or npm is missing.
func Start(t testing.TB) string {
	t.Helper()
	bin := Binary()
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("verdaccio is not installed at %s (run .ci/setup-verdaccio, or set GUARD_VERDACCIO): the real-registry test is skipped", bin)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on PATH: the real-registry test is skipped")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	err = os.WriteFile(config, []byte(fmt.Sprintf(`storage: %s
auth:
  htpasswd:
    file: %s
    max_users: -1
uplinks: {}
# npm's registry takes packages far larger than verdaccio's default 10 MB; guard's
# platform packages hold a 30 MB binary (about 10 MB compressed, more with the MCP SDK).
max_body_size: 200mb
packages:
  '**':
    access: $all
    publish: $all
    unpublish: $all
logs: { type: stdout, format: pretty, level: warn }
`, filepath.Join(dir, "storage"), filepath.Join(dir, "htpasswd"))), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cmd := exec.Command(bin, "--config", config, "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting verdaccio: %v", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(url + "/-/ping")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("verdaccio did not answer on %s within 60 s:\n%s", url, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Npmrc writes, into home, the .npmrc npm needs to publish to the registry at url (a
// token, which verdaccio's open configuration accepts whatever it is), and returns
// the environment for npm: PATH, HOME, that file, a cache in home, no notifier,
// funding or audit requests.
func Npmrc(t testing.TB, url, home, path string) []string {
	t.Helper()
	npmrc := filepath.Join(home, ".npmrc")
	if err := os.WriteFile(npmrc, []byte("//"+strings.TrimPrefix(url, "http://")+"/:_authToken=fake\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + path, "HOME=" + home, "npm_config_userconfig=" + npmrc,
		"npm_config_cache=" + filepath.Join(home, "npm-cache"), "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false"}
}
