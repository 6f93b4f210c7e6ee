package npm

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

const metaJSON = `{"project_name":"guard","tag":"v1.2.3","version":"1.2.3"}`

func TestParseDist(t *testing.T) {
	bin := func(goos, goarch, path string) string {
		return `{"name":"guard","path":"` + path + `","goos":"` + goos + `","goarch":"` + goarch + `","internal_type":4,"type":"Binary","extra":{"Binary":"guard","ID":"guard"}}`
	}
	arts := func(entries ...string) string { return "[" + strings.Join(entries, ",") + "]" }
	archive := `{"name":"guard_1.2.3_linux_amd64.tar.gz","path":"dist/guard_1.2.3_linux_amd64.tar.gz","goos":"linux","goarch":"amd64","type":"Archive","extra":{}}`

	t.Run("every release binary becomes one platform package, in name order; archives are not binaries", func(t *testing.T) {
		v, ps, err := ParseDist([]byte(metaJSON), []byte(arts(
			bin("windows", "arm64", "dist/w/guard.exe"), archive, bin("linux", "amd64", "dist/l/guard"), bin("darwin", "arm64", "dist/d/guard"))))
		require.NoError(t, err)
		assert.Equal(t, "1.2.3", v)
		assert.Equal(t, []Platform{
			{OS: "darwin", CPU: "arm64", Binary: "dist/d/guard"},
			{OS: "linux", CPU: "x64", Binary: "dist/l/guard"},
			{OS: "win32", CPU: "arm64", Binary: "dist/w/guard.exe"},
		}, ps)
		assert.Equal(t, "@guardlocks/guard-windows-arm64", ps[2].Package())
	})
	for _, c := range []struct{ name, meta, arts, err string }{
		{"a version that is not semver is refused", `{"version":"1.2"}`, arts(bin("linux", "amd64", "x")), `version "1.2" is not a semantic version, which npm requires`},
		{"a numeric prerelease part with a leading zero is not semver", `{"version":"1.2.3-rc.01"}`, arts(bin("linux", "amd64", "x")), "is not a semantic version"},
		{"a tag's v is not part of npm's version", `{"version":"v1.2.3"}`, arts(bin("linux", "amd64", "x")), "is not a semantic version"},
		{"a platform npm has no name for is an error, not a gap", metaJSON, arts(bin("freebsd", "amd64", "dist/f/guard")), "guard binary dist/f/guard is for freebsd/amd64, which has no npm package"},
		{"two binaries for one platform are an error", metaJSON, arts(bin("linux", "amd64", "a"), bin("linux", "amd64", "b")), "two guard binaries for linux/amd64 (a and b)"},
		{"a dist without binaries says to run goreleaser", metaJSON, arts(archive), "lists no guard binary: run goreleaser build or release first"},
		{"a binary without a path is an error", metaJSON, arts(bin("linux", "amd64", "")), "has no path"},
		{"broken JSON names the file", metaJSON, "[{", "artifacts.json: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ParseDist([]byte(c.meta), []byte(c.arts))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.err)
		})
	}
}

func FuzzParseDist(f *testing.F) {
	f.Add([]byte(metaJSON), []byte(`[{"path":"dist/guard","goos":"linux","goarch":"amd64","type":"Binary","extra":{"Binary":"guard"}}]`))
	f.Add([]byte(`{"version":"1.0.0-rc.1+build.5"}`), []byte(`[]`))
	f.Fuzz(func(t *testing.T, meta, arts []byte) {
		v, ps, err := ParseDist(meta, arts)
		if err != nil {
			return
		}
		if !semver.MatchString(v) || len(ps) == 0 {
			t.Fatalf("accepted version %q with %d platforms", v, len(ps))
		}
		seen := map[string]bool{}
		for _, p := range ps {
			if seen[p.Package()] || p.Binary == "" || npmOSName(p.OS) == "" {
				t.Fatalf("bad platform %+v", p)
			}
			seen[p.Package()] = true
		}
	})
}

func npmOSName(os string) string {
	for _, v := range npmOS {
		if v == os {
			return v
		}
	}
	return ""
}

// releaseDist is a goreleaser dist folder of this tree: GUARD_RELEASE_DIST (the full
// snapshot .ci/release-snapshot makes), else one goreleaser builds here for this
// machine only (`goreleaser build --single-target --snapshot`), from a commit of the
// working tree. It skips when goreleaser is not installed.
func releaseDist(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("GUARD_RELEASE_DIST"); d != "" {
		return d
	}
	gr := os.Getenv("GUARD_GORELEASER")
	if gr == "" {
		gr = filepath.Join(testenv.CacheDir("bin"), "goreleaser")
	}
	if _, err := os.Stat(gr); err != nil {
		t.Skipf("goreleaser is not installed (%v): run .ci/setup-goreleaser, set GUARD_GORELEASER, or GUARD_RELEASE_DIST to a dist folder", err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	src := filepath.Join(t.TempDir(), "guard")
	testenv.CommitTree(t, root, src)
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	require.NoError(t, err)
	caches := strings.Fields(string(out))
	require.Len(t, caches, 2)
	cmd := exec.Command(gr, "build", "--single-target", "--snapshot", "--clean")
	cmd.Dir = src
	cmd.Env = []string{"PATH=" + testenv.Path(), "HOME=" + t.TempDir(), "GOCACHE=" + caches[0], "GOMODCACHE=" + caches[1],
		"GOPROXY=off", "GOTOOLCHAIN=local", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "goreleaser build: %s", b)
	return filepath.Join(src, "dist")
}

// hostPackage is the platform package npm installs on this machine.
func hostPackage(t *testing.T) string {
	os, cpu := npmOS[runtime.GOOS], npmCPU[runtime.GOARCH]
	if os == "" || cpu == "" {
		t.Skipf("guard has no npm package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return Platform{OS: os, CPU: cpu}.Package()
}

type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Bin                  map[string]string `json:"bin"`
	OS                   []string          `json:"os"`
	CPU                  []string          `json:"cpu"`
	Files                []string          `json:"files"`
	License              string            `json:"license"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
}

func readPackage(t *testing.T, dir string) packageJSON {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	require.NoError(t, err)
	var p packageJSON
	require.NoError(t, json.Unmarshal(data, &p))
	return p
}

// The packages Build makes from a real goreleaser dist: one per binary, with the
// binary, os and cpu, and the main package depending on each at the same version.
func TestBuildFromGoreleasersDist(t *testing.T) {
	dist := releaseDist(t)
	var meta metadata
	data, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &meta))

	out := filepath.Join(t.TempDir(), "npm")
	dirs, err := Build(Options{Dist: dist, Out: out, License: filepath.Join("..", "..", "LICENSE")})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(dirs), 2)
	main := readPackage(t, dirs[len(dirs)-1])
	assert.Equal(t, Main, main.Name)
	assert.Equal(t, meta.Version, main.Version)
	assert.Equal(t, map[string]string{"guard": "bin/guard.js"}, main.Bin)
	assert.Equal(t, "MIT", main.License)
	assert.Len(t, main.OptionalDependencies, len(dirs)-1)
	assert.Equal(t, meta.Version, main.OptionalDependencies[hostPackage(t)], "the main package depends on this machine's")
	js, err := os.ReadFile(filepath.Join(dirs[len(dirs)-1], "bin", "guard.js"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(js), "#!/usr/bin/env node\n"))
	for _, d := range dirs[:len(dirs)-1] {
		p := readPackage(t, d)
		assert.Equal(t, meta.Version, main.OptionalDependencies[p.Name], p.Name)
		require.Len(t, p.OS, 1)
		require.Len(t, p.CPU, 1)
		exe := "guard"
		if p.OS[0] == "win32" {
			exe = "guard.exe"
		}
		assert.Equal(t, []string{"bin/" + exe}, p.Files)
		st, err := os.Stat(filepath.Join(d, "bin", exe))
		require.NoError(t, err, p.Name)
		assert.NotZero(t, st.Mode().Perm()&0o111, "%s's binary is executable", p.Name)
		assert.FileExists(t, filepath.Join(d, "LICENSE"))
	}
	if os.Getenv("GUARD_RELEASE_DIST") != "" {
		assert.Len(t, dirs, 7, "the full release: six platforms and the main package")
	}

	_, err = Build(Options{Dist: dist, Out: out, License: filepath.Join("..", "..", "LICENSE")})
	assert.ErrorContains(t, err, "is not empty: Build writes fresh package folders only")
}
