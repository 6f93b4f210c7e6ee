//go:build unix

package publish

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
	"github.com/guardlocks/guard/internal/testing/verdaccio"
)

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
	url := verdaccio.Start(t)
	environ := verdaccio.Npmrc(t, url, t.TempDir(), testenv.Path())

	publishIn := func(dir string) (int, string) {
		env := envtest.New(envtest.At(testNow), envtest.Identity("bob", "hostA"), envtest.Dir(dir), envtest.With(func(e *guard.Env) { e.Environ = environ }))
		err := RunPublish(PublishOptions{Env: env.Env, Identity: guard.Identity{Owner: "bob", Host: "hostA"}, Args: []string{"npm", "publish", "--registry", url}})
		return exitcode.Of(err), env.Out.String() + env.Err.String()
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
