// Package packaging_test checks the release as users receive it: the goreleaser
// configuration and the workflow that runs it, the Linux packages of a real
// goreleaser snapshot (GUARD_RELEASE_DIST, which .ci/release-snapshot sets), and
// `go install github.com/guardlocks/guard/cmd/guard@VERSION` from a module proxy.
package packaging_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

func readYAML(t *testing.T, rel string, v any) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(rel)))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, v), rel)
	return data
}

// goreleaserVersion is the version .ci/setup-goreleaser installs.
func goreleaserVersion(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", ".ci", "setup-goreleaser"))
	require.NoError(t, err)
	m := regexp.MustCompile(`goreleaser/v2@(v[0-9.]+)`).FindSubmatch(data)
	require.NotNil(t, m, ".ci/setup-goreleaser installs no goreleaser/v2@VERSION")
	return string(m[1])
}

type goreleaserConfig struct {
	Archives []struct {
		NameTemplate string `yaml:"name_template"`
	} `yaml:"archives"`
	Nfpms []struct {
		IDs      []string `yaml:"ids"`
		Formats  []string `yaml:"formats"`
		License  string   `yaml:"license"`
		Bindir   string   `yaml:"bindir"`
		Contents []struct {
			Src, Dst, Packager string
		} `yaml:"contents"`
	} `yaml:"nfpms"`
	Casks []struct {
		Binaries   []string          `yaml:"binaries"`
		Manpages   []string          `yaml:"manpages"`
		Repository map[string]string `yaml:"repository"`
		SkipUpload string            `yaml:"skip_upload"`
	} `yaml:"homebrew_casks"`
	Scoops []struct {
		Repository map[string]string `yaml:"repository"`
		SkipUpload string            `yaml:"skip_upload"`
	} `yaml:"scoops"`
	Brews []any `yaml:"brews"`
}

// The configuration makes what the README's install section promises, in the shape
// the Action's download (action/run.sh) and the npm packages rely on.
func TestGoreleaserConfig(t *testing.T) {
	var c goreleaserConfig
	readYAML(t, ".goreleaser.yaml", &c)
	require.Len(t, c.Archives, 1)
	assert.Equal(t, "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}", c.Archives[0].NameTemplate,
		"action/run.sh downloads guard_VERSION_OS_ARCH")
	script, err := os.ReadFile(filepath.Join("..", "action", "run.sh"))
	require.NoError(t, err)
	assert.Contains(t, string(script), `archive="guard_${tag#v}_${os}_${arch}.${ext}"`)

	require.Len(t, c.Nfpms, 1)
	n := c.Nfpms[0]
	assert.Equal(t, []string{"deb", "rpm", "apk"}, n.Formats)
	assert.Equal(t, "MIT", n.License)
	assert.Equal(t, "/usr/bin", n.Bindir)
	dst := map[string]string{}
	for _, f := range n.Contents {
		dst[f.Src+" "+f.Packager] = f.Dst
	}
	assert.Equal(t, "/usr/share/man/man1/", dst["manpages/*.1 "], "the man pages the before hooks make")
	assert.Equal(t, "/usr/share/doc/guard/copyright", dst["LICENSE deb"])
	assert.Equal(t, "/usr/share/licenses/guard/LICENSE", dst["LICENSE rpm"])
	assert.Equal(t, "/usr/share/licenses/guard/LICENSE", dst["LICENSE apk"])

	assert.Empty(t, c.Brews, "brews is deprecated in goreleaser v2.10+: homebrew_casks")
	require.Len(t, c.Casks, 1)
	assert.Equal(t, []string{"guard"}, c.Casks[0].Binaries)
	assert.Equal(t, "homebrew-tap", c.Casks[0].Repository["name"])
	assert.Equal(t, "auto", c.Casks[0].SkipUpload, "prereleases do not reach the tap")
	require.Len(t, c.Scoops, 1)
	assert.Equal(t, "scoop-bucket", c.Scoops[0].Repository["name"])
	assert.Equal(t, "auto", c.Scoops[0].SkipUpload)

	gr := goreleaser(t, false)
	if gr == "" {
		return
	}
	cmd := exec.Command(gr, "check")
	cmd.Dir = ".."
	cmd.Env = []string{"PATH=" + testenv.Path(), "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "goreleaser check: %s", out)
	assert.NotContains(t, strings.ToLower(string(out)), "deprecated")
}

// goreleaser is the goreleaser .ci/setup-goreleaser installs (or GUARD_GORELEASER);
// "" (or a skip, with need) when there is none.
func goreleaser(t *testing.T, need bool) string {
	gr := os.Getenv("GUARD_GORELEASER")
	if gr == "" {
		gr = filepath.Join(testenv.CacheDir("bin"), "goreleaser")
	}
	if _, err := os.Stat(gr); err != nil {
		if need {
			t.Skipf("goreleaser is not installed (%v): run .ci/setup-goreleaser or set GUARD_GORELEASER", err)
		}
		t.Logf("goreleaser is not installed (%v): `goreleaser check` was not run", err)
		return ""
	}
	return gr
}

type workflow struct {
	On struct {
		Push struct {
			Tags     []string `yaml:"tags"`
			Branches []string `yaml:"branches"`
		} `yaml:"push"`
	} `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		RunsOn string `yaml:"runs-on"`
		Steps  []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			With map[string]string `yaml:"with"`
			Env  map[string]string `yaml:"env"`
			Run  string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// The release workflow cannot run here: its shape is checked instead. It runs on
// version tags only, runs the goreleaser .ci/setup-goreleaser checks with, and
// publishes the npm packages packaging/npm makes from goreleaser's dist.
func TestReleaseWorkflow(t *testing.T) {
	var w workflow
	readYAML(t, ".github/workflows/release.yml", &w)
	assert.Equal(t, []string{"v*"}, w.On.Push.Tags)
	assert.Empty(t, w.On.Push.Branches)
	assert.Equal(t, "write", w.Permissions["contents"], "goreleaser creates the release")
	assert.Equal(t, "write", w.Permissions["packages"], "the image goes to ghcr.io")
	require.Len(t, w.Jobs, 1)
	job := w.Jobs["release"]
	assert.Equal(t, "ubuntu-latest", job.RunsOn)

	pinned := regexp.MustCompile(`^[\w-]+/[\w-]+@v\d+$`)
	var sawCheckout, sawGoreleaser, sawNpm bool
	for i, s := range job.Steps {
		if s.Uses != "" {
			assert.Regexp(t, pinned, s.Uses, "step %d pins its action to a major version", i)
		}
		switch {
		case strings.HasPrefix(s.Uses, "actions/checkout@"):
			sawCheckout = true
			assert.Equal(t, "0", s.With["fetch-depth"], "the changelog needs the history")
		case strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@"):
			sawGoreleaser = true
			assert.True(t, sawCheckout, "goreleaser runs in the checkout")
			assert.Equal(t, goreleaserVersion(t), s.With["version"], "the goreleaser .ci/release-snapshot checks with")
			assert.Equal(t, "release --clean", s.With["args"])
			assert.Equal(t, "${{ secrets.GITHUB_TOKEN }}", s.Env["GITHUB_TOKEN"])
			assert.Equal(t, "${{ secrets.TAP_GITHUB_TOKEN }}", s.Env["TAP_GITHUB_TOKEN"], ".goreleaser.yaml's tap and bucket token")
		case s.Run != "":
			// Every script is valid bash.
			cmd := exec.Command("bash", "-n")
			cmd.Stdin = strings.NewReader(s.Run)
			cmd.Env = []string{"PATH=" + testenv.Path()}
			out, err := cmd.CombinedOutput()
			assert.NoError(t, err, "step %q: %s", s.Name, out)
			if strings.Contains(s.Run, "npm publish") {
				sawNpm = true
				assert.True(t, sawGoreleaser, "the npm packages are made from goreleaser's dist")
				assert.Contains(t, s.Run, "go run ./packaging/npm/build.go dist npm-packages")
				assert.Equal(t, "${{ secrets.NPM_TOKEN }}", s.Env["NODE_AUTH_TOKEN"])
			}
		}
	}
	assert.True(t, sawGoreleaser, "a goreleaser step")
	assert.True(t, sawNpm, "an npm publish step")
	_, err := os.Stat(filepath.Join("..", "packaging", "npm", "build.go"))
	assert.NoError(t, err, "the workflow's npm step runs it")
}

// releaseDist is the full snapshot's dist folder, or a skip.
func releaseDist(t *testing.T) string {
	d := os.Getenv("GUARD_RELEASE_DIST")
	if d == "" {
		t.Skip("no release snapshot to check: .ci/release-snapshot builds one and runs this test on it (GUARD_RELEASE_DIST=its dist folder)")
	}
	return d
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + testenv.Path(), "HOME=" + t.TempDir(), "LANG=C"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "%s %v: %s", name, args, errb.String())
	return out.String()
}

// installed checks a package's files unpacked into root: guard runs and says its
// version, with its man page, completions and license where the format puts them.
func installed(t *testing.T, root, version, license string) {
	t.Helper()
	out := run(t, root, filepath.Join(root, "usr", "bin", "guard"), "version")
	assert.True(t, strings.HasPrefix(out, "guard "+version+" (commit "), "guard version: %q", out)
	for _, f := range []string{"usr/share/man/man1/guard.1", "usr/share/man/man1/guard-check.1",
		"usr/share/bash-completion/completions/guard", "usr/share/zsh/site-functions/_guard",
		"usr/share/fish/vendor_completions.d/guard.fish", license} {
		assert.FileExists(t, filepath.Join(root, filepath.FromSlash(f)))
	}
	// guard(1) carries the sections the help topics give it (cmd/guard's man build).
	page, err := os.ReadFile(filepath.Join(root, "usr", "share", "man", "man1", "guard.1"))
	if assert.NoError(t, err) {
		assert.Contains(t, string(page), ".SH ENVIRONMENT\n")
		assert.Contains(t, string(page), ".SH EXIT STATUS\n")
	}
	lic, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(license)))
	require.NoError(t, err)
	assert.Contains(t, string(lic), "MIT License")
}

func version(t *testing.T, dist string) string {
	var meta struct {
		Version string `yaml:"version"`
	}
	data, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &meta)) // JSON is YAML
	return meta.Version
}

// The deb, rpm and apk of a real snapshot, for both architectures; the one for this
// machine is unpacked into a scratch root and its guard run.
func TestLinuxPackages(t *testing.T) {
	dist := releaseDist(t)
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the packages' binaries are run on linux/amd64 only, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	v := version(t, dist)
	one := func(t *testing.T, pattern string) string {
		t.Helper()
		m, err := filepath.Glob(filepath.Join(dist, pattern))
		require.NoError(t, err)
		require.Len(t, m, 1, "dist has one %s", pattern)
		return m[0]
	}
	// The other architecture's package is there too (it does not run here).
	also := func(t *testing.T, pattern string) {
		t.Helper()
		m, err := filepath.Glob(filepath.Join(dist, pattern))
		require.NoError(t, err)
		assert.Len(t, m, 1, "dist has one %s", pattern)
	}

	t.Run("deb", func(t *testing.T) {
		also(t, "guard_*_arm64.deb")
		deb := one(t, "guard_*_amd64.deb")
		info := run(t, dist, "dpkg-deb", "-I", deb)
		assert.Contains(t, info, " Package: guard\n")
		assert.Contains(t, info, " Architecture: amd64\n")
		assert.Contains(t, info, " Homepage: https://github.com/guardlocks/guard\n")
		list := run(t, dist, "dpkg-deb", "-c", deb)
		assert.Regexp(t, `(?m)^-rwxr-xr-x root/root .* \./usr/bin/guard$`, list)
		root := t.TempDir()
		run(t, dist, "dpkg-deb", "-x", deb, root)
		installed(t, root, v, "usr/share/doc/guard/copyright")
	})

	t.Run("rpm", func(t *testing.T) {
		if _, err := exec.LookPath("rpm"); err != nil {
			t.Skip("rpm is not installed (apt-get install rpm): the rpm is not opened")
		}
		also(t, "guard-*.aarch64.rpm")
		rpm := one(t, "guard-*.x86_64.rpm")
		assert.Equal(t, "guard MIT x86_64", run(t, dist, "rpm", "-qp", "--queryformat", "%{NAME} %{LICENSE} %{ARCH}", rpm))
		list := run(t, dist, "rpm", "-qpl", rpm)
		assert.Contains(t, list, "/usr/bin/guard\n")
		root := t.TempDir()
		tgz := filepath.Join(t.TempDir(), "rpm.tgz")
		cmd := fmt.Sprintf("rpm2archive - < %q > %q && tar -xzf %q -C %q", rpm, tgz, tgz, root)
		run(t, dist, "sh", "-c", cmd)
		installed(t, root, v, "usr/share/licenses/guard/LICENSE")
	})

	t.Run("apk", func(t *testing.T) {
		also(t, "guard_*_aarch64.apk")
		apk := one(t, "guard_*_x86_64.apk")
		// An apk is gzip'd tar segments one after the other: the control segment
		// (.PKGINFO) and the data. GNU tar reads them all with -i.
		root := t.TempDir()
		run(t, dist, "tar", "-xzif", apk, "-C", root, "--warning=no-unknown-keyword")
		info, err := os.ReadFile(filepath.Join(root, ".PKGINFO"))
		require.NoError(t, err)
		assert.Contains(t, string(info), "pkgname = guard\n")
		assert.Contains(t, string(info), "license = MIT\n")
		assert.Contains(t, string(info), "arch = x86_64\n")
		installed(t, root, v, "usr/share/licenses/guard/LICENSE")
	})

	t.Run("the Homebrew cask and the Scoop manifest point at the release's archives", func(t *testing.T) {
		cask, err := os.ReadFile(filepath.Join(dist, "homebrew", "Casks", "guard.rb"))
		require.NoError(t, err)
		for _, p := range []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64"} {
			assert.Contains(t, string(cask), `releases/download/v`, p)
			assert.Contains(t, string(cask), "_"+p+`.tar.gz"`, p)
		}
		assert.Contains(t, string(cask), `binary "guard"`)
		assert.Contains(t, string(cask), `manpage "manpages/guard.1"`)
		scoop, err := os.ReadFile(filepath.Join(dist, "scoop", "guard.json"))
		require.NoError(t, err)
		assert.Contains(t, string(scoop), `_windows_amd64.zip"`)
		assert.Contains(t, string(scoop), `_windows_arm64.zip"`)
		assert.Contains(t, string(scoop), `"guard.exe"`)
		assert.Contains(t, string(scoop), `"license": "MIT"`)
	})
}
