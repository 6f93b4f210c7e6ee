package classify

import (
	"path/filepath"
	"strings"
)

// cargoTools is Rust's cargo (with cargo-workspaces and cargo-release).
func cargoTools() map[string]tool {
	return map[string]tool{
		"cargo": {withoutProg(classifyCargo), helpAnywhere},
	}
}

func classifyCargo(rest []string, dir string) Classification {
	if len(rest) > 0 && strings.HasPrefix(rest[0], "+") { // toolchain: cargo +nightly publish
		rest = rest[1:]
	}
	a := newArgs(rest, "--manifest-path", "-p", "--package", "--index", "--registry", "--token", "--target", "--target-dir", "-j", "--jobs", "-F", "--features", "-Z", "-C", "--config", "--color", "--exclude")
	pos := a.positionals()
	base := a.dirFlag(dir, "-C")
	projectDir := base
	if m, ok := a.value("--manifest-path"); ok && m != "" {
		projectDir = filepath.Dir(Resolve(base, m))
	}
	if len(pos) == 0 {
		return otherSubcommand(projectDir, "cargo", pos)
	}
	switch pos[0] {
	case "publish":
		c := known(OpRegistryUpload, "cargo publish uploads the crate to the registry", projectDir, "cargo", "publish")
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, "cargo publish --dry-run uploads nothing"
		}
		if a.anySet("--workspace", "--all") {
			c = withProjects(c, cargoWorkspaceMembers(projectDir)...)
		}
		return c
	case "workspaces", "ws":
		// cargo-workspaces: cargo workspaces publish versions and uploads every crate.
		if len(pos) > 1 && pos[1] == "publish" {
			c := known(OpRegistryUpload, "cargo workspaces publish uploads the workspace's crates", projectDir, "cargo", pos[0], "publish")
			if a.flag("--dry-run") {
				c.DryRun, c.Why = true, "cargo workspaces publish --dry-run uploads nothing"
			}
			return withProjects(c, cargoWorkspaceMembers(projectDir)...)
		}
	case "release":
		// cargo-release only acts with --execute; without it, it rehearses.
		c := known(OpPublishRelease, "cargo release --execute tags, pushes and publishes", projectDir, "cargo", "release")
		// -p (--package), -c (--config) and -Z take values.
		if !a.anySet("--execute", "-x") && !a.groupSet('x', "pcZ") {
			c.DryRun, c.Why = true, "cargo release without --execute is a dry run"
		}
		return c
	}
	return otherSubcommand(projectDir, "cargo", pos)
}
