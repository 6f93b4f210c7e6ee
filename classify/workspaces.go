package classify

import (
	"encoding/json"
	"github.com/guardlocks/guard/internal/lazyre"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A workspace-wide publication (pnpm -r publish, lerna publish, changeset publish,
// npm publish --workspaces, yarn workspaces foreach npm publish, cargo publish
// --workspace) uploads the packages below the project, and a PRIVATE.txt in one of
// them marks that package private: each package it uploads is one of its projects.
// A package its tool never uploads ("private": true in package.json, publish = false
// in Cargo.toml) is left out, so a private package kept in a public monorepo does not
// block the others.

// maxWorkspacePackages bounds the packages listed for one workspace.
const maxWorkspacePackages = 1000

// withProjects adds projects to c's (after the one it acts on), without repeats.
func withProjects(c Classification, projects ...string) Classification {
	if len(projects) == 0 {
		return c
	}
	if len(c.Projects) == 0 {
		c.Projects = []string{c.ProjectDir}
	}
	for _, p := range projects {
		if !slices.Contains(c.Projects, p) {
			c.Projects = append(c.Projects, p)
		}
	}
	return c
}

// jsWorkspacePackages are the package folders of the JavaScript workspace rooted at
// root (package.json "workspaces", pnpm-workspace.yaml "packages", lerna.json
// "packages") that a publication uploads.
func jsWorkspacePackages(root string) []string {
	var patterns []string
	var manifest struct {
		Workspaces json.RawMessage `json:"workspaces"`
	}
	if readJSON(filepath.Join(root, "package.json"), &manifest) && len(manifest.Workspaces) > 0 {
		var list []string
		var obj struct {
			Packages []string `json:"packages"`
		}
		if json.Unmarshal(manifest.Workspaces, &list) == nil {
			patterns = append(patterns, list...)
		} else if json.Unmarshal(manifest.Workspaces, &obj) == nil {
			patterns = append(patterns, obj.Packages...)
		}
	}
	var lerna struct {
		Packages []string `json:"packages"`
	}
	if readJSON(filepath.Join(root, "lerna.json"), &lerna) {
		patterns = append(patterns, lerna.Packages...)
	}
	patterns = append(patterns, pnpmWorkspacePatterns(filepath.Join(root, "pnpm-workspace.yaml"))...)
	var out []string
	for _, dir := range expandWorkspacePatterns(root, patterns, "package.json") {
		var pkg struct {
			Private bool `json:"private"`
		}
		if readJSON(filepath.Join(dir, "package.json"), &pkg) && pkg.Private {
			continue
		}
		out = append(out, dir)
	}
	return out
}

// pnpmWorkspacePatterns reads the packages list of pnpm-workspace.yaml (the block
// list under "packages:"; guard reads this one key, not YAML at large).
func pnpmWorkspacePatterns(path string) []string {
	data, ok := readSmall(path)
	if !ok {
		return nil
	}
	var out []string
	in := false
	for _, line := range strings.Split(data, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "packages:"):
			in = true
		case in && strings.HasPrefix(trimmed, "- "):
			out = append(out, strings.Trim(strings.TrimSpace(trimmed[2:]), `"'`))
		case in && trimmed != "" && !strings.HasPrefix(trimmed, "#"):
			in = false
		}
	}
	return out
}

// cargoMembers matches the members list of a Cargo.toml [workspace] table.
var cargoMembers = lazyre.New(`(?s)\[workspace\][^\[]*?members\s*=\s*\[(.*?)\]`)

// cargoWorkspaceMembers are the crates of the Cargo workspace rooted at root that
// cargo publish --workspace uploads (not those with publish = false).
func cargoWorkspaceMembers(root string) []string {
	data, ok := readSmall(filepath.Join(root, "Cargo.toml"))
	if !ok {
		return nil
	}
	m := cargoMembers.FindStringSubmatch(data)
	if m == nil {
		return nil
	}
	var patterns []string
	for _, q := range regexp.MustCompile(`"([^"]*)"|'([^']*)'`).FindAllStringSubmatch(m[1], -1) {
		patterns = append(patterns, q[1]+q[2])
	}
	var out []string
	for _, dir := range expandWorkspacePatterns(root, patterns, "Cargo.toml") {
		if manifest, ok := readSmall(filepath.Join(dir, "Cargo.toml")); ok && lazyre.New(`(?m)^\s*publish\s*=\s*false`).MatchString(manifest) {
			continue
		}
		out = append(out, dir)
	}
	return out
}

// expandWorkspacePatterns resolves workspace patterns (packages/*, apps/**, a
// plain folder; "!" exclusions are ignored: listing more only checks more) against
// root, keeping the folders that hold manifest.
func expandWorkspacePatterns(root string, patterns []string, manifest string) []string {
	var out []string
	add := func(dir string) {
		if len(out) < maxWorkspacePackages && !slices.Contains(out, dir) {
			if st, err := os.Stat(filepath.Join(dir, manifest)); err == nil && st.Mode().IsRegular() {
				out = append(out, dir)
			}
		}
	}
	for _, p := range patterns {
		if p == "" || strings.HasPrefix(p, "!") {
			continue
		}
		p = strings.TrimSuffix(filepath.FromSlash(p), string(filepath.Separator))
		if i := strings.Index(p, "**"); i >= 0 {
			base := filepath.Join(root, p[:i])
			_ = filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
				if err != nil || !d.IsDir() {
					return nil
				}
				if d.Name() == "node_modules" || d.Name() == "target" || strings.HasPrefix(d.Name(), ".") && path != base {
					return filepath.SkipDir
				}
				if rel, _ := filepath.Rel(base, path); strings.Count(rel, string(filepath.Separator)) > 4 || len(out) >= maxWorkspacePackages {
					return filepath.SkipDir
				}
				add(path)
				return nil
			})
			continue
		}
		matches, _ := filepath.Glob(filepath.Join(root, p))
		for _, m := range matches {
			add(m)
		}
	}
	return out
}

// readSmall reads a regular file of at most maxManifest bytes.
func readSmall(path string) (string, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxManifest {
		return "", false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifest))
	return string(data), err == nil
}

// readJSON reads a small JSON file into v.
func readJSON(path string, v any) bool {
	data, ok := readSmall(path)
	return ok && json.Unmarshal([]byte(data), v) == nil
}
