//go:build unix

package publish

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testenv"
	"github.com/guardlocks/guard/lockcore"
)

// verdaccioBinary finds the registry .ci/setup-verdaccio installs: GUARD_VERDACCIO,
// else the CI cache directory.
func verdaccioBinary() string {
	if p := os.Getenv("GUARD_VERDACCIO"); p != "" {
		return p
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "guard-ci", "verdaccio", "node_modules", ".bin", "verdaccio")
}

// startVerdaccio runs a throw-away registry on a free 127.0.0.1 port that lets anyone
// read and publish, storing in a temporary folder; it returns the registry URL.
func startVerdaccio(t *testing.T) string {
	t.Helper()
	bin := verdaccioBinary()
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("verdaccio is not installed at %s (run .ci/setup-verdaccio, or set GUARD_VERDACCIO): the real-registry test is skipped", bin)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on PATH: the real-registry test is skipped")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())

	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf(`storage: %s
auth:
  htpasswd:
    file: %s
    max_users: -1
uplinks: {}
packages:
  '**':
    access: $all
    publish: $all
    unpublish: $all
logs: { type: stdout, format: pretty, level: warn }
`, filepath.Join(dir, "storage"), filepath.Join(dir, "htpasswd"))), 0o644))
	var log bytes.Buffer
	cmd := exec.Command(bin, "--config", config, "--listen", fmt.Sprintf("127.0.0.1:%d", port))
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
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

// registryHas reports whether the registry knows the package.
func registryHas(t *testing.T, url, name string) bool {
	t.Helper()
	resp, err := http.Get(url + "/" + name)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	switch resp.StatusCode {
	case http.StatusOK:
		return true
	case http.StatusNotFound:
		return false
	}
	t.Fatalf("GET %s/%s: %d %s", url, name, resp.StatusCode, body)
	return false
}

func TestPublishToARealRegistry(t *testing.T) {
	url := startVerdaccio(t)
	home := t.TempDir()
	npmrc := filepath.Join(home, ".npmrc")
	// npm wants a token even where the registry lets anyone publish.
	require.NoError(t, os.WriteFile(npmrc, []byte("//"+strings.TrimPrefix(url, "http://")+"/:_authToken=fake\n"), 0o600))
	environ := []string{"PATH=" + testenv.Path(), "HOME=" + home, "npm_config_userconfig=" + npmrc,
		"npm_config_cache=" + filepath.Join(home, "npm-cache"), "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false"}

	publishIn := func(dir string) (int, string) {
		var stdout, stderr bytes.Buffer
		env := &guard.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Clock: lockcore.FixedClock(testNow),
			User: "bob", Hostname: "hostA", Dir: dir, Getenv: func(string) string { return "" }}
		err := RunPublish(PublishOptions{Env: env, Identity: guard.Identity{Owner: "bob", Host: "hostA"}, Args: []string{"npm", "publish", "--registry", url}, Environ: environ})
		return guard.ExitCode(err), stdout.String() + stderr.String()
	}
	root := t.TempDir()
	mk := func(name string, files map[string]string) string {
		dir := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		files["package.json"] = fmt.Sprintf(`{"name": %q, "version": "1.0.0", "description": "guard e2e"}`, name)
		for f, c := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(c), 0o644))
		}
		return dir
	}

	t.Run("a PRIVATE.txt package publishes nothing", func(t *testing.T) {
		dir := mk("guard-e2e-private", map[string]string{"PRIVATE.txt": "internal until the audit\n"})
		code, out := publishIn(dir)
		assert.Equal(t, 1, code, out)
		assert.Contains(t, out, "| internal until the audit")
		assert.False(t, registryHas(t, url, "guard-e2e-private"), "the registry must not list it")
	})
	t.Run("a PUBLIC.txt package is published and its chore runs", func(t *testing.T) {
		dir := mk("guard-e2e-public", map[string]string{"PUBLIC.txt": "check: test -f package.json\nchore: echo announced > chore.out\n"})
		code, out := publishIn(dir)
		require.Equal(t, 0, code, out)
		require.True(t, registryHas(t, url, "guard-e2e-public"), out)
		resp, err := http.Get(url + "/guard-e2e-public")
		require.NoError(t, err)
		defer resp.Body.Close()
		var doc struct {
			DistTags map[string]string `json:"dist-tags"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc))
		assert.Equal(t, "1.0.0", doc.DistTags["latest"])
		chore, err := os.ReadFile(filepath.Join(dir, "chore.out"))
		require.NoError(t, err)
		assert.Equal(t, "announced\n", string(chore))
	})
}
