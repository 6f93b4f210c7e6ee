package classify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// classifyBuiltin applies guard's own knowledge of publishing tools to words (the
// program first, wrappers already removed), failing closed on global options that
// guard's lists of valued options lack: when the tool reads as publishing nothing,
// the other readings of its options (see optionReadings) are tried, and the command
// publishes if one of them does.
//
// A form that asks for help (npm publish --help, gh release create --help) prints
// it and publishes nothing.
func classifyBuiltin(words []string, dir string) Classification {
	readings := optionReadings(words)
	c := classifyTool(readings[0], dir)
	if c.Known && c.Op == "" {
		for _, r := range readings[1:] {
			if alt := classifyTool(r, dir); alt.Op != "" {
				c = alt
				break
			}
		}
	}
	if c.Op != "" && asksHelp(words, helpFlags(programName(words[0]))...) {
		c.Op, c.DryRun, c.Projects = "", false, nil
		c.Why = strings.Join(c.Words, " ") + " --help prints help and publishes nothing"
	}
	return c
}

// helpFlags are the flags that make a program print its help instead of running,
// for the programs whose option parsers are known to do so wherever the flag stands
// (cobra, clap, argparse, click, yargs, commander, meow, npm's own): --help, and -h
// where no subcommand gives -h another meaning (gh repo edit -h is --homepage, docker
// -h is not help everywhere). Other programs get none: their --help may be passed on
// as an argument (lein deploy --help), so it exempts nothing (fail closed).
func helpFlags(prog string) []string {
	switch prog {
	case "npm", "pnpm", "yarn", "bun", "cargo", "twine", "poetry", "uv", "flit", "hatch", "pdm", "maturin", "rye", "gem", "mvn", "mvnw", "mvnd", "gradle", "gradlew", "goreleaser", "helm", "dotnet", "lerna", "semantic-release", "release-it", "ko", "crane", "oras", "skopeo", "deno", "vsce", "ovsx", "nx", "dart", "flutter":
		return []string{"--help", "-h"}
	case "gh", "glab", "tea", "docker", "podman", "buildah", "nerdctl", "docker-compose", "np", "changeset", "changesets", "jsr", "jib", "rake", "pub":
		return []string{"--help"}
	}
	return nil
}

// classifyTool classifies one reading of a command's options.
func classifyTool(words []string, dir string) Classification {
	prog := programName(words[0])
	rest := words[1:]
	switch prog {
	case "npm":
		return classifyNpm(rest, dir)
	case "pnpm":
		return classifyPnpm(rest, dir)
	case "yarn":
		return classifyYarn(rest, dir)
	case "bun":
		return classifyBun(rest, dir)
	case "cargo":
		return classifyCargo(rest, dir)
	case "twine":
		return uploadFiles("twine", rest, dir, []string{"upload", "register"}, "-r", "--repository", "--repository-url", "-u", "--username", "-p", "--password", "-c", "--comment", "--config-file", "-i", "--identity", "--sign-with", "--cert", "--client-cert", "--attestations")
	case "poetry":
		return poetryPublish.classify(rest, dir)
	case "uv":
		return uvPublish.classify(rest, dir)
	case "hatch", "maturin", "rye":
		return uploadFiles(prog, rest, dir, []string{"publish", "upload"}, "-r", "--repository", "--repo", "--pypirc", "-u", "--user", "--username", "-a", "--auth", "--password", "--token", "--repository-url", "--ca-certs", "--client-cert", "--format", "-p", "--project", "--directory", "--interpreter", "-i", "-m", "--manifest-path", "-e", "--env", "--cache-dir", "--data-dir", "--config", "-o", "--option", "--skip-existing", "--sign-with", "--identity")
	case "flit", "pdm":
		return subcommandTool(prog, rest, dir, map[string]string{"publish": OpRegistryUpload, "upload": OpRegistryUpload}, "-r", "--repository", "--repo", "--pypirc", "-u", "--user", "--username", "--password", "--repository-url", "--ca-certs", "--client-cert", "--format", "-p", "--project", "-c", "--config", "-i", "--identity", "--comment")
	case "gem":
		return uploadFiles("gem", rest, dir, []string{"push"}, "--host", "-k", "--key", "--otp", "-p", "--http-proxy", "--attestation")
	case "rake":
		return classifyRake(rest, dir)
	case "dotnet":
		pos := newArgs(rest, "-s", "--source", "-k", "--api-key", "-ss", "--symbol-source", "-sk", "--symbol-api-key", "-t", "--timeout", "--configfile").positionals()
		if len(pos) >= 2 && pos[0] == "nuget" && pos[1] == "push" {
			c := known(OpRegistryUpload, "dotnet nuget push uploads a package to a NuGet feed", dir, "dotnet", "nuget", "push")
			return withArtifacts(c, dir, pos[2:min(3, len(pos))], true)
		}
		return nothing(dir, "dotnet publishes to a registry only with `dotnet nuget push`", "dotnet")
	case "nuget", "choco", "paket":
		return uploadFiles(prog, rest, dir, []string{"push"}, "-Source", "-source", "-s", "-ApiKey", "-apikey", "-k", "--source", "--api-key", "--key", "--url", "--endpoint", "-Timeout", "-ConfigFile")
	case "mvn", "mvnw", "mvnd":
		return classifyMaven(prog, rest, dir)
	case "gradle", "gradlew":
		return classifyGradle(prog, rest, dir)
	case "sbt", "sbtn":
		return classifySbt(rest, dir)
	case "lein":
		return subcommandTool("lein", rest, dir, map[string]string{"deploy": OpRegistryUpload, "release": OpPublishRelease}, "-o", "-U", "with-profile")
	case "docker", "podman", "buildah", "nerdctl":
		return classifyDocker(prog, rest, dir)
	case "docker-compose", "podman-compose":
		return classifyDocker(prog, append([]string{"compose"}, rest...), dir)
	case "helm":
		return classifyHelm(rest, dir)
	case "ko":
		return classifyKo(rest, dir)
	case "crane":
		return classifyCrane(rest, dir)
	case "skopeo":
		return classifySkopeo(rest, dir)
	case "oras":
		return classifyOras(rest, dir)
	case "jib":
		return classifyJib(rest, dir)
	case "gh":
		return classifyGh(rest, dir)
	case "glab", "tea", "hub":
		return classifyForgeRelease(prog, rest, dir)
	case "ghr":
		return known(OpPublishRelease, "ghr uploads a GitHub release", dir, "ghr")
	case "github-release":
		return subcommandTool(prog, rest, dir, map[string]string{"release": OpPublishRelease, "upload": OpPublishRelease, "edit": OpPublishRelease}, "-u", "--user", "-r", "--repo", "-t", "--tag", "-n", "--name", "-d", "--description", "-f", "--file", "-s", "--security-token", "-c", "--target")
	case "goreleaser":
		return classifyGoreleaser(rest, dir)
	case "semantic-release", "release-it", "auto", "release-please":
		return classifyReleaseTool(prog, rest, dir)
	case "np":
		c := known(OpPublishRelease, "np releases the package to npm and GitHub", dir, "np")
		if newArgs(rest, "--branch", "--tag", "--contents", "--message", "--package-manager", "--test-script").flag("--preview") {
			c.DryRun, c.Why = true, "np --preview only shows what would be released"
		}
		return c
	case "lerna":
		return classifyJSMonorepo("lerna", rest, dir, "publish")
	case "changeset", "changesets":
		return classifyJSMonorepo(prog, rest, dir, "publish")
	case "nx":
		return classifyNxRelease(rest, dir)
	case "rush":
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
	case "pkg-pr-new":
		return subcommandTool(prog, rest, dir, map[string]string{"publish": OpRegistryUpload}, "--packageManager", "--template", "--comment")
	case "jsr", "deno", "vsce", "ovsx":
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
	case "dart", "flutter", "pub":
		return classifyPub(prog, rest, dir)
	case "mix":
		return hexPublish(prog, rest, dir, "hex.publish")
	case "rebar3":
		return hexPublish(prog, rest, dir, "hex")
	case "pod":
		pos := newArgs(rest, "--sources", "--spec-repo").positionals()
		if len(pos) >= 2 && (pos[0] == "trunk" || pos[0] == "repo") && pos[1] == "push" {
			return known(OpRegistryUpload, "pod "+pos[0]+" push uploads the pod's spec", dir, "pod", pos[0], "push")
		}
		return nothing(dir, "pod publishes only with trunk push or repo push", "pod")
	case "swift":
		a := newArgs(rest, "--package-path", "--scratch-path", "--url", "--metadata-path", "--signing-identity", "--private-key-path", "--cert-chain-paths")
		pos := a.positionals()
		if len(pos) >= 2 && pos[0] == "package-registry" && pos[1] == "publish" {
			c := known(OpRegistryUpload, "swift package-registry publish uploads the package", dir, "swift", "package-registry", "publish")
			if a.flag("--dry-run") {
				c.DryRun, c.Why = true, "swift package-registry publish --dry-run uploads nothing"
			}
			return c
		}
		return nothing(dir, "swift publishes only with package-registry publish", "swift")
	case "conan":
		valued := []string{"-r", "--remote", "-p", "--package-query", "-l", "--list", "-f", "--format"}
		c := subcommandTool(prog, rest, dir, map[string]string{"upload": OpRegistryUpload}, valued...)
		if c.Op != "" && newArgs(rest, valued...).flag("--dry-run") {
			c.DryRun, c.Why = true, "conan upload --dry-run uploads nothing"
		}
		return c
	case "cabal", "stack":
		return uploadFiles(prog, rest, dir, []string{"upload"}, "-u", "--username", "-p", "--password", "-P", "--password-command", "--token", "--candidate")
	case "anaconda", "pixi", "rattler-build":
		return uploadFiles(prog, rest, dir, []string{"upload"}, "-t", "--token", "-u", "--user", "-c", "--channel", "-l", "--label", "--package-type", "-s", "--site", "--host", "--api-key")
	case "python", "python2", "python3", "py":
		return classifySetupPy(prog, rest, dir)
	case "git":
		return classifyGit(rest, dir)
	case "curl", "wget", "http", "https", "xh":
		// HTTP clients are not known publishers, but a call to GitHub's API that
		// makes a repository public or publishes a release is recognised, as gh
		// api's is.
		if c := httpGitHubCall(prog, rest, dir); c.Op != "" {
			return c
		}
	}
	return Classification{Known: false, ProjectDir: dir, Why: fmt.Sprintf("guard does not know whether %q publishes anything", prog), Words: commandWords(words)}
}

// known builds a classification of a recognised command.
func known(op, why, dir string, words ...string) Classification {
	return Classification{Op: op, Known: true, ProjectDir: dir, Why: why, Words: words}
}

// nothing builds the classification of a recognised command that publishes nothing.
func nothing(dir, why string, words ...string) Classification {
	return Classification{Known: true, ProjectDir: dir, Why: why, Words: words}
}

// subcommandTool classifies a program whose first positional word is the subcommand
// and ops maps publishing subcommands to their operation.
func subcommandTool(prog string, rest []string, dir string, ops map[string]string, valued ...string) Classification {
	a := newArgs(rest, valued...)
	pos := a.positionals()
	if len(pos) > 0 {
		if op, ok := ops[pos[0]]; ok {
			c := known(op, fmt.Sprintf("%s %s uploads to a registry", prog, pos[0]), dir, prog, pos[0])
			if a.flag("--dry-run") {
				c.DryRun, c.Why = true, fmt.Sprintf("%s %s --dry-run uploads nothing", prog, pos[0])
			}
			c.ProjectDir = a.dirFlag(dir, "--directory", "--project", "-C")
			return c
		}
	}
	return otherSubcommand(dir, prog, pos)
}

// otherSubcommand classifies prog run with a subcommand (pos[0]; none when pos is
// empty) that publishes nothing.
func otherSubcommand(dir, prog string, pos []string) Classification {
	if len(pos) == 0 {
		return nothing(dir, prog+" without a subcommand publishes nothing", prog)
	}
	return nothing(dir, fmt.Sprintf("%s %s publishes nothing", prog, pos[0]), prog, pos[0])
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

// publishSubcommand describes a tool whose only publishing form is `<tool> publish`,
// rehearsed by --dry-run, with options that name the project directory.
type publishSubcommand struct {
	tool       string
	why        string   // what `<tool> publish` does, for people
	dirFlags   []string // options whose value is the project directory
	valueFlags []string // every option that takes a value (dirFlags included)
}

var (
	poetryPublish = publishSubcommand{tool: "poetry", why: "poetry publish uploads the package to the registry",
		dirFlags:   []string{"-C", "--directory", "-P", "--project"},
		valueFlags: []string{"-C", "--directory", "-P", "--project", "-r", "--repository", "-u", "--username", "-p", "--password", "--cert", "--client-cert", "--dist-dir"}}
	uvPublish = publishSubcommand{tool: "uv", why: "uv publish uploads the distributions to the index",
		dirFlags:   []string{"--directory", "--project"},
		valueFlags: []string{"--directory", "--project", "--index", "--publish-url", "--check-url", "-u", "--username", "-p", "--password", "-t", "--token", "--trusted-publishing", "--keyring-provider", "--config-file", "--cache-dir", "--python"}}
)

func (p publishSubcommand) classify(rest []string, dir string) Classification {
	a := newArgs(rest, p.valueFlags...)
	pos := a.positionals()
	base := a.dirFlag(dir, p.dirFlags...)
	if len(pos) > 0 && pos[0] == "publish" {
		c := known(OpRegistryUpload, p.why, base, p.tool, "publish")
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, p.tool+" publish --dry-run uploads nothing"
		}
		// The files it uploads (uv publish ../priv/dist/*), or the folder they
		// are taken from (poetry publish --dist-dir ../priv/dist).
		files := pos[1:]
		for _, d := range a.values("--dist-dir") {
			files = append(files, filepath.Join(d, "x"))
		}
		return withArtifacts(c, base, files, true)
	}
	return otherSubcommand(base, p.tool, pos)
}

func classifyRake(rest []string, dir string) Classification {
	a := newArgs(rest, "-f", "--rakefile", "-C", "--directory", "-I", "--libdir", "-r", "--require")
	base := a.dirFlag(dir, "-C", "--directory")
	for _, t := range a.positionals() {
		name := t
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		if name == "release" || strings.HasPrefix(name, "release:") {
			return known(OpRegistryUpload, "rake release (Bundler's gem tasks) pushes the gem to the registry", base, "rake", "release")
		}
	}
	return nothing(base, "rake publishes only with a release task", "rake")
}

func classifyGoreleaser(rest []string, dir string) Classification {
	a := newArgs(rest, "-f", "--config", "-p", "--parallelism", "--timeout", "--skip", "--release-notes", "--release-header", "--release-footer", "--id", "--single-target")
	pos := a.positionals()
	if len(pos) > 0 && (pos[0] == "publish" || pos[0] == "continue" || pos[0] == "announce") {
		// GoReleaser Pro's split release: publish (and continue) upload what an
		// earlier --prepare built; announce tells the world.
		return known(OpPublishRelease, "goreleaser "+pos[0]+" publishes a prepared release", dir, "goreleaser", pos[0])
	}
	if len(pos) > 0 && pos[0] != "release" {
		return nothing(dir, fmt.Sprintf("goreleaser %s publishes nothing", pos[0]), "goreleaser", pos[0])
	}
	if a.flag("--version", "-v", "--help", "-h") && len(pos) == 0 {
		return nothing(dir, "goreleaser --version publishes nothing", "goreleaser")
	}
	c := known(OpPublishRelease, "goreleaser release builds and publishes a release", dir, "goreleaser", "release")
	skips := false
	for _, v := range a.values("--skip") {
		for _, s := range strings.Split(v, ",") {
			if strings.TrimSpace(s) == "publish" {
				skips = true
			}
		}
	}
	switch {
	case a.flag("--snapshot"):
		c.DryRun, c.Why = true, "goreleaser --snapshot publishes nothing"
	case a.flag("--prepare"):
		c.DryRun, c.Why = true, "goreleaser release --prepare builds and publishes nothing (goreleaser publish does)"
	case skips || a.flag("--skip-publish"):
		c.DryRun, c.Why = true, "goreleaser --skip=publish publishes nothing"
	}
	return c
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

// classifyGit follows git -C for the project directory; git itself publishes
// through pushes, which the pre-push hook guards, so it is known to publish nothing
// here (a [publish.commands] entry such as "git push" can say otherwise).
func classifyGit(rest []string, dir string) Classification {
	for len(rest) > 0 {
		switch w := rest[0]; {
		case w == "-C" && len(rest) > 1:
			dir = Resolve(dir, rest[1])
			rest = rest[2:]
		case (w == "-c" || w == "--git-dir" || w == "--work-tree" || w == "--namespace") && len(rest) > 1:
			if w == "--work-tree" {
				dir = Resolve(dir, rest[1])
			}
			rest = rest[2:]
		case strings.HasPrefix(w, "--work-tree="):
			dir = Resolve(dir, strings.TrimPrefix(w, "--work-tree="))
			rest = rest[1:]
		case strings.HasPrefix(w, "-"):
			rest = rest[1:]
		default:
			return nothing(dir, fmt.Sprintf("git %s is guarded by the git hooks, not the publish wrapper", w), "git", w)
		}
	}
	return nothing(dir, "git without a subcommand publishes nothing", "git")
}

// uploadFiles classifies a tool whose publishing subcommands (one of subs) upload
// the files named after them (twine upload dist/*, gem push x.gem, nuget push
// x.nupkg): the files' projects decide.
func uploadFiles(prog string, rest []string, dir string, subs []string, valued ...string) Classification {
	ops := make(map[string]string, len(subs))
	for _, s := range subs {
		ops[s] = OpRegistryUpload
	}
	c := subcommandTool(prog, rest, dir, ops, valued...)
	if c.Op == "" {
		return c
	}
	pos := newArgs(rest, valued...).positionals()
	return withArtifacts(c, dir, pos[1:], true)
}

// classifyPub: dart pub publish, flutter pub publish and pub publish (lish and lush
// are pub's own aliases), rehearsed with --dry-run or -n.
func classifyPub(prog string, rest []string, dir string) Classification {
	a := newArgs(rest, "-C", "--directory", "--server", "--ignore-warnings")
	pos := a.positionals()
	if prog != "pub" {
		if len(pos) == 0 || pos[0] != "pub" {
			return nothing(dir, prog+" publishes only with pub publish", prog)
		}
		pos = pos[1:]
	}
	if len(pos) == 0 || pos[0] != "publish" && pos[0] != "lish" && pos[0] != "lush" {
		return nothing(dir, prog+" publishes only with pub publish", prog)
	}
	base := a.dirFlag(dir, "-C", "--directory")
	c := known(OpRegistryUpload, prog+" pub publish uploads the package to pub.dev", base, prog, "pub", "publish")
	if a.flag("--dry-run", "-n") {
		c.DryRun, c.Why = true, prog+" pub publish --dry-run uploads nothing"
	}
	return c
}

// hexPublish: mix hex.publish and rebar3 hex publish (or cut) upload to hex.pm.
func hexPublish(prog string, rest []string, dir, task string) Classification {
	a := newArgs(rest, "-r", "--repo", "--organization", "--revert", "--app", "-a")
	pos := a.positionals()
	publishes := len(pos) > 0 && pos[0] == task && (prog == "mix" || len(pos) > 1 && (pos[1] == "publish" || pos[1] == "cut"))
	if !publishes {
		return nothing(dir, prog+" publishes only with "+task+" publish", prog)
	}
	c := known(OpRegistryUpload, prog+" "+strings.Join(pos[:min(2, len(pos))], " ")+" uploads the package to hex.pm", dir, prog, task)
	if a.flag("--dry-run") {
		c.DryRun, c.Why = true, prog+" "+task+" --dry-run uploads nothing"
	}
	return c
}

// classifySetupPy: python setup.py ... upload (register, upload_docs) is the old way
// to upload to PyPI. Any other python command is a program guard does not know.
func classifySetupPy(prog string, rest []string, dir string) Classification {
	for i, w := range rest {
		if strings.HasPrefix(w, "-") {
			continue
		}
		if programName(w) != "setup.py" {
			break
		}
		for _, cmd := range rest[i+1:] {
			if cmd == "upload" || cmd == "register" || cmd == "upload_docs" {
				return known(OpRegistryUpload, "setup.py "+cmd+" uploads to the package index", dir, prog, "setup.py", cmd)
			}
		}
		return nothing(dir, "setup.py uploads only with upload, register or upload_docs", prog, "setup.py")
	}
	return Classification{ProjectDir: dir, Why: fmt.Sprintf("guard does not know whether %q publishes anything", prog), Words: commandWords(append([]string{prog}, rest...))}
}
