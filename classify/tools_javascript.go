package classify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// jsTools are the JavaScript ecosystem's package managers, monorepo and release
// tools, and the registries beside npm's.
func jsTools() map[string]tool {
	return map[string]tool{
		"npm":        {withoutProg(classifyNpm), helpAnywhere},
		"pnpm":       {withoutProg(classifyPnpm), helpAnywhere},
		"yarn":       {withoutProg(classifyYarn), helpAnywhere},
		"bun":        {withoutProg(classifyBun), helpAnywhere},
		"lerna":      {classifyJSMonorepoPublish, helpAnywhere},
		"changeset":  {classifyJSMonorepoPublish, helpLong},
		"changesets": {classifyJSMonorepoPublish, helpLong},
		"nx":         {withoutProg(classifyNxRelease), helpAnywhere},
		"rush":       {withoutProg(classifyRush), nil},
		"pkg-pr-new": {subcommands(map[string]string{"publish": OpRegistryUpload}, "--packageManager", "--template", "--comment"), nil},
		"np":         {withoutProg(classifyNp), helpLong},
		"jsr":        {classifyRegistryPublish, helpLong},
		"deno":       {classifyRegistryPublish, helpAnywhere},
		"vsce":       {classifyRegistryPublish, helpAnywhere},
		"ovsx":       {classifyRegistryPublish, helpAnywhere},
	}
}

// npmValued are npm's options that take a value.
var npmValued = []string{"--registry", "--tag", "--access", "--otp", "--prefix", "-C", "--workspace", "-w", "--userconfig", "--globalconfig", "--cache", "--loglevel", "--auth-type", "--scope", "--provenance-file", "--include", "--omit"}

func classifyNpm(rest []string, dir string) Classification {
	a := newArgs(rest, npmValued...)
	pos := a.positionals()
	base := a.dirFlag(dir, "--prefix", "-C")
	if len(pos) == 0 {
		return nothing(base, "npm without a subcommand publishes nothing", "npm")
	}
	switch npmCommand(pos[0]) {
	case "publish":
		c := known(OpRegistryUpload, "npm publish uploads the package to the registry", jsProjectDir(base, dir, pos[1:], a), "npm", "publish")
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, "npm publish --dry-run uploads nothing"
		}
		if a.anySet("--workspaces", "-ws", "--ws") {
			c = withProjects(c, jsWorkspacePackages(base)...)
		}
		return c
	case "access":
		// npm access public <pkg> / npm access set status=public makes a scoped
		// package visible to everyone.
		for _, w := range pos[1:] {
			if strings.EqualFold(w, "public") || strings.EqualFold(w, "status=public") {
				return known(OpVisibilityPublic, "npm access makes the package public", base, "npm", "access")
			}
		}
		return nothing(base, "npm access without public publishes nothing", "npm", "access")
	}
	return nothing(base, fmt.Sprintf("npm %s publishes nothing (scripts it runs are not inspected; use prepublishOnly: guard preflight)", pos[0]), "npm", pos[0])
}

// npmCommand is the command an npm subcommand word names, for the commands that
// publish: npm accepts any unambiguous prefix of a command's name (npm pub is npm
// publish, npm acc is npm access).
func npmCommand(w string) string {
	for _, full := range []string{"publish", "access"} {
		if len(w) >= 2 && strings.HasPrefix(full, w) {
			return full
		}
	}
	return w
}

// jsProjectDir is the package a JS publish acts on: a folder given as argument, the
// project of a tarball, a workspace folder, or the prefix / working directory. A
// package spec leaves the base directory.
func jsProjectDir(base, dir string, pos []string, a args) string {
	for _, p := range pos {
		if strings.HasSuffix(p, ".tgz") || strings.HasSuffix(p, ".tar.gz") {
			// A tarball publishes the package it was packed from.
			return artifactProject(dir, p)
		}
		if strings.HasPrefix(p, ".") || strings.HasPrefix(p, "/") || strings.Contains(p, string(filepath.Separator)) {
			return Resolve(dir, p)
		}
		if st, err := os.Stat(Resolve(dir, p)); err == nil && st.IsDir() {
			return Resolve(dir, p)
		}
	}
	if w, ok := a.value("--workspace", "-w"); ok && w != "" {
		if st, err := os.Stat(Resolve(base, w)); err == nil && st.IsDir() {
			return Resolve(base, w)
		}
	}
	return base
}

func classifyPnpm(rest []string, dir string) Classification {
	a := newArgs(rest, append([]string{"--tag", "--access", "--otp", "--registry", "--publish-branch", "--report-summary"}, pnpmValued...)...)
	// pnpm recursive publish and pnpm m publish publish every package, as -r does.
	pos := a.positionals()
	recursive := a.anySet("-r", "--recursive")
	for len(pos) > 1 && isPnpmRecursive(pos[0]) {
		pos, recursive = pos[1:], true
	}
	base := a.dirFlag(dir, "-C", "--dir")
	if len(pos) > 0 && pos[0] == "publish" {
		c := known(OpRegistryUpload, "pnpm publish uploads the package to the registry", jsProjectDir(base, dir, pos[1:], a), "pnpm", "publish")
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, "pnpm publish --dry-run uploads nothing"
		}
		if recursive {
			c = withProjects(c, jsWorkspacePackages(base)...)
		}
		return c
	}
	return otherSubcommand(base, "pnpm", pos)
}

func classifyYarn(rest []string, dir string) Classification {
	a := newArgs(rest, "--cwd", "--tag", "--access", "--otp", "--registry", "--new-version", "--message", "--folder")
	pos := a.positionals()
	base := a.dirFlag(dir, "--cwd")
	if len(pos) > 0 && (pos[0] == "publish" || pos[0] == "npm" && len(pos) > 1 && pos[1] == "publish") {
		c := known(OpRegistryUpload, "yarn publish uploads the package to the registry", jsProjectDir(base, dir, pos[1:], a), "yarn", "publish")
		if pos[0] == "npm" {
			c = known(OpRegistryUpload, "yarn npm publish uploads the package to the registry", base, "yarn", "npm", "publish")
		}
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, "yarn publish --dry-run uploads nothing"
		}
		return c
	}
	return otherSubcommand(base, "yarn", pos)
}

func classifyBun(rest []string, dir string) Classification {
	a := newArgs(rest, "--cwd", "--tag", "--access", "--otp", "--registry", "--auth-type", "--gzip-level", "--config", "-c")
	pos := a.positionals()
	base := a.dirFlag(dir, "--cwd")
	if len(pos) > 0 && pos[0] == "publish" {
		c := known(OpRegistryUpload, "bun publish uploads the package to the registry", jsProjectDir(base, dir, pos[1:], a), "bun", "publish")
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, "bun publish --dry-run uploads nothing"
		}
		return c
	}
	return otherSubcommand(base, "bun", pos)
}

func classifyJSMonorepo(prog string, rest []string, dir string, sub string) Classification {
	a := newArgs(rest, "--registry", "--dist-tag", "--tag", "--otp", "--loglevel", "--preid", "-m", "--message")
	pos := a.positionals()
	if len(pos) > 0 && pos[0] == sub {
		c := known(OpRegistryUpload, prog+" publish uploads the packages to the registry", dir, prog, sub)
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, prog+" publish --dry-run uploads nothing"
		}
		return withProjects(c, jsWorkspacePackages(dir)...)
	}
	if len(pos) == 0 {
		return nothing(dir, prog+" without publish uploads nothing", prog)
	}
	return nothing(dir, fmt.Sprintf("%s %s publishes nothing", prog, pos[0]), prog, pos[0])
}

// classifyJSMonorepoPublish: lerna publish and changeset publish upload every
// package of the workspace.
func classifyJSMonorepoPublish(prog string, rest []string, dir string) Classification {
	return classifyJSMonorepo(prog, rest, dir, "publish")
}

// classifyNp: np releases the package to npm and GitHub, --preview only shows what.
func classifyNp(rest []string, dir string) Classification {
	c := known(OpPublishRelease, "np releases the package to npm and GitHub", dir, "np")
	if newArgs(rest, "--branch", "--tag", "--contents", "--message", "--package-manager", "--test-script").flag("--preview") {
		c.DryRun, c.Why = true, "np --preview only shows what would be released"
	}
	return c
}

// classifyRush: rush publish uploads only with --publish.
func classifyRush(rest []string, dir string) Classification {
	a := newArgs(rest, "--tag", "--registry", "-n", "--npm-auth-token", "--set-access-level", "--target-branch", "--prerelease-name", "--suffix", "--version-policy", "--release-folder")
	pos := a.positionals()
	if len(pos) > 0 && pos[0] == "publish" {
		c := known(OpRegistryUpload, "rush publish --publish uploads the changed packages", dir, "rush", "publish")
		if !a.anySet("--publish", "-p") {
			c.DryRun, c.Why = true, "rush publish without --publish is a dry run"
		}
		return c
	}
	return nothing(dir, "rush publishes only with rush publish --publish", "rush")
}

// classifyRegistryPublish: jsr publish, deno publish, vsce publish and ovsx publish
// upload to their registries (JSR, the VS Code Marketplace, Open VSX).
func classifyRegistryPublish(prog string, rest []string, dir string) Classification {
	// The options that take a value: `--token --dry-run` is a token, not a rehearsal.
	valued := []string{"--config", "-c", "--token", "-p", "--pat", "--registry-url", "-i", "--packagePath", "--baseContentUrl", "--baseImagesUrl", "--target"}
	c := subcommandTool(prog, rest, dir, map[string]string{"publish": OpRegistryUpload}, valued...)
	if c.Op != "" {
		a := newArgs(rest, valued...)
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, prog+" publish --dry-run uploads nothing"
		}
		files := a.values("-i", "--packagePath")
		if prog == "ovsx" {
			files = append(files, a.positionals()[1:]...)
		}
		c = withArtifacts(c, dir, files, true)
	}
	return c
}
