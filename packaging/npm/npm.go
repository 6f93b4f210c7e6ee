// Package npm makes guard's npm packages from a goreleaser dist folder, the way
// lefthook ships its own: a main package, @guardlocks/guard, whose bin is a small
// launcher (guard.js), with one optional dependency per platform,
// @guardlocks/guard-<os>-<cpu>, that carries that platform's binary and whose os and
// cpu fields let npm install only the one that fits the machine.
//
// Run it after goreleaser, from the repository root:
//
//	go run ./packaging/npm/build.go dist npm-packages
//
// It prints the package folders in publishing order (the platform packages first, so
// that the main package's optional dependencies exist when it appears).
package npm

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Scope is the npm scope of every package; Main the package users install.
const (
	Scope = "@guardlocks"
	Main  = Scope + "/guard"
)

// launcher is the main package's bin/guard.js.
//
//go:embed guard.js
var launcher []byte

// Platform is one binary of the release as npm names its platform.
type Platform struct {
	OS, CPU string // npm's process.platform and process.arch: linux, darwin, win32; x64, arm64
	Binary  string // the binary's path in the dist folder
}

// Package names the platform package: @guardlocks/guard-linux-x64, ... (windows, not
// win32, in the name, as lefthook and esbuild spell it).
func (p Platform) Package() string {
	os := p.OS
	if os == "win32" {
		os = "windows"
	}
	return Scope + "/guard-" + os + "-" + p.CPU
}

func (p Platform) exe() string {
	if p.OS == "win32" {
		return "guard.exe"
	}
	return "guard"
}

// npmOS and npmCPU map Go's GOOS and GOARCH to npm's names. A release target outside
// them is an error, not a silent gap: add it here when .goreleaser.yaml gains one.
var (
	npmOS  = map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}
	npmCPU = map[string]string{"amd64": "x64", "arm64": "arm64"}
)

// artifact is the part of an entry of goreleaser's dist/artifacts.json read here.
type artifact struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Goos   string `json:"goos"`
	Goarch string `json:"goarch"`
	Type   string `json:"type"`
	Extra  struct {
		ID     string `json:"ID"`
		Binary string `json:"Binary"`
	} `json:"extra"`
}

// metadata is the part of goreleaser's dist/metadata.json read here.
type metadata struct {
	ProjectName string `json:"project_name"`
	Version     string `json:"version"`
}

// semver is npm's version grammar (semver 2.0.0, without a leading v).
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// ParseDist reads goreleaser's metadata.json and artifacts.json: the release's version
// and guard's binary for each platform, sorted by package name. Binary paths are as
// goreleaser wrote them (relative to the folder it ran in).
func ParseDist(metadataJSON, artifactsJSON []byte) (version string, platforms []Platform, err error) {
	var meta metadata
	if err := json.Unmarshal(metadataJSON, &meta); err != nil {
		return "", nil, fmt.Errorf("metadata.json: %w", err)
	}
	if !semver.MatchString(meta.Version) {
		return "", nil, fmt.Errorf("metadata.json: version %q is not a semantic version, which npm requires (tag releases vX.Y.Z)", meta.Version)
	}
	var arts []artifact
	if err := json.Unmarshal(artifactsJSON, &arts); err != nil {
		return "", nil, fmt.Errorf("artifacts.json: %w", err)
	}
	seen := map[string]string{}
	for _, a := range arts {
		if a.Type != "Binary" || a.Extra.Binary != "guard" {
			continue
		}
		os, cpu := npmOS[a.Goos], npmCPU[a.Goarch]
		if os == "" || cpu == "" {
			return "", nil, fmt.Errorf("artifacts.json: guard binary %s is for %s/%s, which has no npm package (add it to packaging/npm)", a.Path, a.Goos, a.Goarch)
		}
		if a.Path == "" {
			return "", nil, fmt.Errorf("artifacts.json: guard binary for %s/%s has no path", a.Goos, a.Goarch)
		}
		p := Platform{OS: os, CPU: cpu, Binary: a.Path}
		if prev, dup := seen[p.Package()]; dup {
			return "", nil, fmt.Errorf("artifacts.json: two guard binaries for %s/%s (%s and %s): one npm package can carry only one", a.Goos, a.Goarch, prev, a.Path)
		}
		seen[p.Package()] = a.Path
		platforms = append(platforms, p)
	}
	if len(platforms) == 0 {
		return "", nil, errors.New("artifacts.json lists no guard binary: run goreleaser build or release first")
	}
	slices.SortFunc(platforms, func(a, b Platform) int { return strings.Compare(a.Package(), b.Package()) })
	return meta.Version, platforms, nil
}

// Options says where Build reads and writes.
type Options struct {
	Dist    string // goreleaser's dist folder (holding metadata.json and artifacts.json)
	Root    string // the folder goreleaser ran in, which artifact paths are relative to; default Dist's parent
	Out     string // where the package folders go; it must not exist, or be empty
	License string // the LICENSE file every package carries
}

// Build writes one folder per platform package and the main package into
// opts.Out, and returns their paths in publishing order (the main package last).
func Build(opts Options) ([]string, error) {
	metaJSON, err := os.ReadFile(filepath.Join(opts.Dist, "metadata.json"))
	if err != nil {
		return nil, fmt.Errorf("reading goreleaser's metadata: %w", err)
	}
	artsJSON, err := os.ReadFile(filepath.Join(opts.Dist, "artifacts.json"))
	if err != nil {
		return nil, fmt.Errorf("reading goreleaser's artifact list: %w", err)
	}
	version, platforms, err := ParseDist(metaJSON, artsJSON)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opts.Dist, err)
	}
	license, err := os.ReadFile(opts.License)
	if err != nil {
		return nil, fmt.Errorf("reading the license: %w", err)
	}
	root := opts.Root
	if root == "" {
		root = filepath.Dir(opts.Dist)
	}
	if entries, err := os.ReadDir(opts.Out); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty: Build writes fresh package folders only", opts.Out)
	}

	var dirs []string
	optional := map[string]string{}
	for _, p := range platforms {
		dir := filepath.Join(opts.Out, strings.TrimPrefix(p.Package(), Scope+"/"))
		bin := p.Binary
		if !filepath.IsAbs(bin) {
			bin = filepath.Join(root, bin)
		}
		if err := copyFile(bin, filepath.Join(dir, "bin", p.exe()), 0o755); err != nil {
			return nil, err
		}
		err := writePackage(dir, license, map[string]any{
			"name":        p.Package(),
			"version":     version,
			"description": fmt.Sprintf("guard's binary for %s %s (installed by %s)", p.OS, p.CPU, Main),
			"os":          []string{p.OS},
			"cpu":         []string{p.CPU},
			// Yarn's Plug'n'Play must put the binary on disk to run it.
			"preferUnplugged": true,
			"files":           []string{"bin/" + p.exe()},
		})
		if err != nil {
			return nil, err
		}
		optional[p.Package()] = version
		dirs = append(dirs, dir)
	}

	dir := filepath.Join(opts.Out, "guard")
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return nil, fmt.Errorf("making %s: %w", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "guard.js"), launcher, 0o755); err != nil {
		return nil, fmt.Errorf("writing the launcher: %w", err)
	}
	err = writePackage(dir, license, map[string]any{
		"name":                 Main,
		"version":              version,
		"description":          "guard: refuse commits, pushes and publications into areas under someone else's LOCK file (the LOCK-SYSTEM protocol)",
		"bin":                  map[string]string{"guard": "bin/guard.js"},
		"files":                []string{"bin/guard.js"},
		"optionalDependencies": optional,
		"engines":              map[string]string{"node": ">=16"},
	})
	if err != nil {
		return nil, err
	}
	return append(dirs, dir), nil
}

// common are the fields every package.json has.
var common = map[string]any{
	"license":    "MIT",
	"homepage":   "https://github.com/guardlocks/guard#readme",
	"repository": map[string]string{"type": "git", "url": "git+https://github.com/guardlocks/guard.git"},
	"bugs":       map[string]string{"url": "https://github.com/guardlocks/guard/issues"},
	// A scoped package is private unless published public.
	"publishConfig": map[string]string{"access": "public"},
}

func writePackage(dir string, license []byte, fields map[string]any) error {
	pkg := map[string]any{}
	for k, v := range common {
		pkg[k] = v
	}
	for k, v := range fields {
		pkg[k] = v
	}
	data, err := json.MarshalIndent(pkg, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s's package.json: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("making %s: %w", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(dir, "package.json"), err)
	}
	readme := fmt.Sprintf("# %s\n\nPart of guard's npm distribution: install %s (`npm install --save-dev %s`),\nwhich runs the guard binary for your platform. See https://github.com/guardlocks/guard#install.\n", fields["name"], Main, Main)
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		return fmt.Errorf("writing %s's README: %w", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "LICENSE"), license, 0o644); err != nil {
		return fmt.Errorf("writing %s's LICENSE: %w", dir, err)
	}
	return nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("reading the binary: %w", err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("making %s: %w", filepath.Dir(dst), err)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("writing the binary: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s to %s: %w", src, dst, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	return nil
}
