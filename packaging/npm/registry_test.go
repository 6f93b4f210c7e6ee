//go:build unix

package npm

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
	"github.com/guardlocks/guard/internal/testing/verdaccio"
)

type runResult struct {
	code           int
	stdout, stderr string
}

func runIn(t *testing.T, dir string, env []string, name string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	r := runResult{}
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "%s %v: %v", name, args, err)
		r.code = ee.ExitCode()
	}
	r.stdout, r.stderr = out.String(), errb.String()
	return r
}

// huskyPackage is the husky .ci/setup-husky installs (GUARD_HUSKY: its folder).
func huskyPackage(t *testing.T) string {
	pkg := os.Getenv("GUARD_HUSKY")
	if pkg == "" {
		pkg = filepath.Join(testenv.CacheDir("husky"), "node_modules", "husky")
	}
	if _, err := os.Stat(filepath.Join(pkg, "bin.js")); err != nil {
		t.Skipf("husky is not installed (%v): run .ci/setup-husky or set GUARD_HUSKY", err)
	}
	return pkg
}

// guard as JavaScript teams install it: the packages Build makes from a real
// goreleaser dist, published to a real npm registry (verdaccio on 127.0.0.1), then
// installed with npm into a clean project on a PATH without guard. `npx guard` runs
// the platform binary with its exit status, and a husky pre-commit hook that calls
// guard refuses a commit into a locked folder through it.
func TestNpmPackagesThroughARealRegistry(t *testing.T) {
	url := verdaccio.Start(t)
	husky := huskyPackage(t)
	dist := releaseDist(t)
	dirs, err := Build(Options{Dist: dist, Out: filepath.Join(t.TempDir(), "npm"), License: filepath.Join("..", "..", "LICENSE")})
	require.NoError(t, err)
	version := readPackage(t, dirs[len(dirs)-1]).Version

	path := testenv.Path()
	env := append(verdaccio.Npmrc(t, url, t.TempDir(), path), "npm_config_registry="+url, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GUARD_OWNER=alice", "GUARD_HOST=laptop", "LANG=C")
	// As the release workflow does: a prerelease (a snapshot is one) under next.
	tag := "latest"
	if strings.Contains(version, "-") {
		tag = "next"
	}
	for _, d := range dirs {
		r := runIn(t, d, env, "npm", "publish", "--access", "public", "--tag", tag, "--registry", url)
		require.Equal(t, 0, r.code, "npm publish %s: %s%s", d, r.stdout, r.stderr)
	}

	project := filepath.Join(t.TempDir(), "app")
	require.NoError(t, os.MkdirAll(project, 0o755))
	git := func(args ...string) {
		t.Helper()
		r := runIn(t, project, env, "git", args...)
		require.Equal(t, 0, r.code, "git %v: %s", args, r.stderr)
	}
	git("init", "-q", "-b", "main")
	git("config", "user.name", "Alice")
	git("config", "user.email", "alice@example.com")
	require.NoError(t, os.WriteFile(filepath.Join(project, "package.json"), []byte(`{"name": "app", "private": true}`+"\n"), 0o644))
	r := runIn(t, project, env, "npm", "install", "--save-dev", Main+"@"+tag)
	require.Equal(t, 0, r.code, "npm install: %s%s", r.stdout, r.stderr)
	host := hostPackage(t)
	st, err := os.Stat(filepath.Join(project, "node_modules", filepath.FromSlash(host), "bin", "guard"))
	require.NoError(t, err, "npm installed this machine's package, %s", host)
	assert.NotZero(t, st.Mode().Perm()&0o111, "its binary is executable after npm's pack and unpack")
	entries, err := os.ReadDir(filepath.Join(project, "node_modules", Scope))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"guard", strings.TrimPrefix(host, Scope+"/")}, names, "only the package for this platform is installed")

	t.Run("npx guard version runs the platform binary", func(t *testing.T) {
		r := runIn(t, project, env, "npx", "--no-install", "guard", "version")
		require.Equal(t, 0, r.code, r.stderr)
		assert.True(t, strings.HasPrefix(r.stdout, "guard "+version+" (commit "), "npx guard version: %q", r.stdout)
	})

	t.Run("guard's exit status comes through the launcher unchanged", func(t *testing.T) {
		r := runIn(t, project, env, filepath.Join(project, "node_modules", ".bin", "guard"), "lock", "--no-such-flag")
		assert.Equal(t, 2, r.code, "a usage error is 2, as guard's own: %s", r.stderr)
		assert.Contains(t, r.stderr, "unknown flag: --no-such-flag")
	})

	t.Run("a husky pre-commit hook refuses a commit into a locked folder through the npm guard", func(t *testing.T) {
		node, err := exec.LookPath("node")
		require.NoError(t, err)
		r := runIn(t, project, env, node, filepath.Join(husky, "bin.js"), "init")
		require.Equal(t, 0, r.code, "husky init: %s%s", r.stdout, r.stderr)
		// No guard on PATH: husky's runner puts node_modules/.bin first.
		require.NoError(t, os.WriteFile(filepath.Join(project, ".husky", "pre-commit"), []byte("guard hook pre-commit\n"), 0o644))
		require.NoError(t, os.MkdirAll(filepath.Join(project, "locked"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(project, "locked", "LOCK.txt"), []byte("owner: bob\nexpires_after: 24h\npurpose: big refactor\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(project, ".gitignore"), []byte("node_modules/\n"), 0o644))
		git("add", "package.json", "package-lock.json", ".husky", ".gitignore")
		r = runIn(t, project, env, "git", "commit", "-q", "-m", "husky")
		require.Equal(t, 0, r.code, "a commit outside the locked folder is made: %s%s", r.stdout, r.stderr)

		require.NoError(t, os.WriteFile(filepath.Join(project, "locked", "work.txt"), []byte("x\n"), 0o644))
		git("add", "locked/work.txt")
		r = runIn(t, project, env, "git", "commit", "-m", "into locked")
		out := r.stdout + r.stderr
		assert.Equal(t, 1, r.code, out)
		assert.Contains(t, out, "exclusive lock "+filepath.Join(project, "locked", "LOCK.txt")+" held by bob")
		assert.Contains(t, out, "blocked: "+filepath.Join(project, "locked", "work.txt"))
		assert.Contains(t, out, "husky - pre-commit script failed (code 1)")
	})
}
