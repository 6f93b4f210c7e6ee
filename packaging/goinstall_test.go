package packaging_test

import (
	"archive/zip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// `go install github.com/guardlocks/guard/cmd/guard@latest`, the README's line for Go
// users, works once the module is published: this tree (its files as the module zip
// would hold them: tracked and new files git does not ignore) is served by a module
// proxy in a folder as its only version, and go install, outside any module, resolves
// latest to it, builds guard (no replace directive, build tag or missing
// embedded file stops it) and the binary says its version.
func TestGoInstallFromAModuleProxy(t *testing.T) {
	// A version of this run's own (a prerelease, which latest picks when there is
	// nothing else): the module cache is the machine's, shared with other runs.
	goInstallVersion := fmt.Sprintf("v1.0.0-test.%d", time.Now().UnixNano())
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	src := filepath.Join(t.TempDir(), "src")
	testenv.CommitTree(t, root, src)
	require.NoError(t, os.RemoveAll(filepath.Join(src, ".git")))

	proxy := t.TempDir()
	at := filepath.Join(proxy, "github.com", "guardlocks", "guard", "@v")
	require.NoError(t, os.MkdirAll(at, 0o755))
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(at, name), []byte(content), 0o644))
	}
	write("list", goInstallVersion+"\n")
	write(goInstallVersion+".info", `{"Version":"`+goInstallVersion+`","Time":"2026-12-01T00:00:00Z"}`)
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	require.NoError(t, err)
	write(goInstallVersion+".mod", string(gomod))
	f, err := os.Create(filepath.Join(at, goInstallVersion+".zip"))
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	prefix := "github.com/guardlocks/guard@" + goInstallVersion + "/"
	require.NoError(t, filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := zw.Create(prefix + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}))
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())

	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	require.NoError(t, err)
	caches := strings.Fields(string(out))
	require.Len(t, caches, 2)
	modcache := caches[1]
	// The module lands in the machine's module cache (so that its dependencies, and
	// their builds, are the cached ones); this version's files are removed again.
	t.Cleanup(func() {
		_ = os.RemoveAll(filepath.Join(modcache, "github.com", "guardlocks", "guard@"+goInstallVersion))
		for _, ext := range []string{".info", ".mod", ".zip", ".ziphash", ".lock"} {
			_ = os.Remove(filepath.Join(modcache, "cache", "download", "github.com", "guardlocks", "guard", "@v", goInstallVersion+ext))
		}
	})

	bin, home := t.TempDir(), t.TempDir()
	cmd := exec.Command("go", "install", "github.com/guardlocks/guard/cmd/guard@latest")
	cmd.Dir = home // outside any module, as a user runs it
	cmd.Env = []string{"PATH=" + testenv.Path(), "HOME=" + home, "GOBIN=" + bin, "GOPATH=" + filepath.Join(home, "go"),
		"GOCACHE=" + caches[0], "GOMODCACHE=" + modcache, "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local",
		"GOPROXY=file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(modcache, "cache", "download")),
		// The test's version is in no checksum database; the dependencies are checked
		// against the module's go.sum.
		"GOSUMDB=off"}
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "go install: %s", b)

	v := exec.Command(filepath.Join(bin, "guard"), "version")
	v.Env = []string{"PATH=" + testenv.Path(), "HOME=" + home}
	b, err = v.Output()
	require.NoError(t, err)
	// The module's version, from the build information Go embeds (no -X flags here).
	assert.True(t, strings.HasPrefix(string(b), "guard "+strings.TrimPrefix(goInstallVersion, "v")+" ("), "guard version: %q", b)
}
