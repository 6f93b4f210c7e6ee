package publish

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
func classifyBuiltin(words []string, dir string) Classification {
	readings := optionReadings(words)
	c := classifyTool(readings[0], dir)
	if c.Known && c.Op == "" {
		for _, r := range readings[1:] {
			if alt := classifyTool(r, dir); alt.Op != "" {
				return alt
			}
		}
	}
	return c
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
		valued := []string{"-r", "--repository", "--repository-url", "-u", "--username", "-p", "--password", "-c", "--comment", "--config-file", "-i", "--identity", "--sign-with", "--cert", "--client-cert"}
		c := subcommandTool("twine", rest, dir, map[string]string{"upload": OpRegistryUpload}, valued...)
		if c.Op != "" {
			c.ProjectDir = distProject(dir, newArgs(rest, valued...).positionals()[1:])
		}
		return c
	case "poetry":
		return poetryPublish.classify(rest, dir)
	case "uv":
		return uvPublish.classify(rest, dir)
	case "flit", "hatch", "pdm", "maturin":
		return subcommandTool(prog, rest, dir, map[string]string{"publish": OpRegistryUpload, "upload": OpRegistryUpload}, "-r", "--repository", "--repo", "--pypirc", "-u", "--user", "--username", "-a", "--auth", "--password", "--repository-url", "--ca-certs", "--client-cert", "--format", "-p", "--project", "--directory", "--interpreter", "-i", "-m", "--manifest-path")
	case "gem":
		return subcommandTool("gem", rest, dir, map[string]string{"push": OpRegistryUpload}, "--host", "-k", "--key", "--otp", "-p", "--http-proxy")
	case "rake":
		return classifyRake(rest, dir)
	case "dotnet":
		if pos := newArgs(rest).positionals(); len(pos) >= 2 && pos[0] == "nuget" && pos[1] == "push" {
			return known(OpRegistryUpload, "dotnet nuget push uploads a package to a NuGet feed", dir, "dotnet", "nuget", "push")
		}
		return nothing(dir, "dotnet publishes to a registry only with `dotnet nuget push`", "dotnet")
	case "nuget":
		return subcommandTool("nuget", rest, dir, map[string]string{"push": OpRegistryUpload}, "-Source", "-ApiKey", "-s", "-k")
	case "mvn", "mvnw", "mvnd":
		return classifyMaven(prog, rest, dir)
	case "gradle", "gradlew":
		return classifyGradle(prog, rest, dir)
	case "docker", "podman", "buildah", "nerdctl":
		return classifyDocker(prog, rest, dir)
	case "docker-compose":
		return classifyDocker("docker-compose", append([]string{"compose"}, rest...), dir)
	case "helm":
		return classifyHelm(rest, dir)
	case "gh":
		return classifyGh(rest, dir)
	case "goreleaser":
		return classifyGoreleaser(rest, dir)
	case "semantic-release", "release-it":
		c := known(OpPublishRelease, prog+" tags, releases and publishes the project", dir, prog)
		if newArgs(rest).flag("--dry-run", "-d") {
			c.DryRun, c.Why = true, prog+" --dry-run rehearses the release"
		}
		return c
	case "np":
		c := known(OpPublishRelease, "np releases the package to npm and GitHub", dir, "np")
		if newArgs(rest).flag("--preview") {
			c.DryRun, c.Why = true, "np --preview only shows what would be released"
		}
		return c
	case "lerna":
		return classifyJSMonorepo("lerna", rest, dir, "publish")
	case "changeset", "changesets":
		return classifyJSMonorepo(prog, rest, dir, "publish")
	case "jsr", "deno", "vsce", "ovsx":
		c := subcommandTool(prog, rest, dir, map[string]string{"publish": OpRegistryUpload}, "--config", "-c", "--token", "-p", "--pat", "--registry-url")
		if c.Op != "" && newArgs(rest).flag("--dry-run") {
			c.DryRun, c.Why = true, prog+" publish --dry-run uploads nothing"
		}
		return c
	case "git":
		return classifyGit(rest, dir)
	case "curl", "wget", "http", "https", "xh":
		// HTTP clients are not known publishers, but a call to GitHub's API that
		// makes a repository public is recognised, as gh api's is.
		if c := ghAPI(newArgs(rest), nil, dir); c.Op == OpVisibilityPublic && mentionsGitHubAPI(rest) {
			c.Words, c.Why = []string{prog}, prog+": "+c.Why
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
			if d, ok := a.value("--directory", "--project", "-C"); ok && d != "" {
				c.ProjectDir = resolve(dir, d)
			}
			return c
		}
		return nothing(dir, fmt.Sprintf("%s %s publishes nothing", prog, pos[0]), prog, pos[0])
	}
	return nothing(dir, prog+" without a subcommand publishes nothing", prog)
}

// npmValued are npm's options that take a value.
var npmValued = []string{"--registry", "--tag", "--access", "--otp", "--prefix", "-C", "--workspace", "-w", "--userconfig", "--globalconfig", "--cache", "--loglevel", "--auth-type", "--scope", "--provenance-file", "--include", "--omit"}

func classifyNpm(rest []string, dir string) Classification {
	a := newArgs(rest, npmValued...)
	pos := a.positionals()
	base := dir
	if p, ok := a.value("--prefix", "-C"); ok && p != "" {
		base = resolve(dir, p)
	}
	if len(pos) == 0 {
		return nothing(base, "npm without a subcommand publishes nothing", "npm")
	}
	switch npmCommand(pos[0]) {
	case "publish":
		c := known(OpRegistryUpload, "npm publish uploads the package to the registry", jsProjectDir(base, dir, pos[1:], a), "npm", "publish")
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, "npm publish --dry-run uploads nothing"
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

// jsProjectDir is the package a JS publish acts on: a folder given as argument, a
// workspace folder, or the prefix / working directory. A tarball or package spec
// leaves the base directory.
func jsProjectDir(base, dir string, pos []string, a args) string {
	for _, p := range pos {
		if strings.HasSuffix(p, ".tgz") || strings.HasSuffix(p, ".tar.gz") {
			continue
		}
		if strings.HasPrefix(p, ".") || strings.HasPrefix(p, "/") || strings.Contains(p, string(filepath.Separator)) {
			return resolve(dir, p)
		}
		if st, err := os.Stat(resolve(dir, p)); err == nil && st.IsDir() {
			return resolve(dir, p)
		}
	}
	if w, ok := a.value("--workspace", "-w"); ok && w != "" {
		if st, err := os.Stat(resolve(base, w)); err == nil && st.IsDir() {
			return resolve(base, w)
		}
	}
	return base
}

func classifyPnpm(rest []string, dir string) Classification {
	a := newArgs(rest, "-C", "--dir", "--filter", "-F", "--tag", "--access", "--otp", "--registry", "--publish-branch", "--workspace-dir", "--reporter", "--loglevel")
	pos := a.positionals()
	base := dir
	if p, ok := a.value("-C", "--dir"); ok && p != "" {
		base = resolve(dir, p)
	}
	if len(pos) == 0 {
		return nothing(base, "pnpm without a subcommand publishes nothing", "pnpm")
	}
	if pos[0] == "publish" {
		c := known(OpRegistryUpload, "pnpm publish uploads the package to the registry", jsProjectDir(base, dir, pos[1:], a), "pnpm", "publish")
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, "pnpm publish --dry-run uploads nothing"
		}
		return c
	}
	return nothing(base, fmt.Sprintf("pnpm %s publishes nothing", pos[0]), "pnpm", pos[0])
}

func classifyYarn(rest []string, dir string) Classification {
	a := newArgs(rest, "--cwd", "--tag", "--access", "--otp", "--registry", "--new-version", "--message", "--folder")
	pos := a.positionals()
	base := dir
	if p, ok := a.value("--cwd"); ok && p != "" {
		base = resolve(dir, p)
	}
	// yarn workspace <name> <cmd...> and yarn workspaces foreach [opts] <cmd...>
	// run a command in other packages.
	for len(pos) >= 2 && (pos[0] == "workspace" || pos[0] == "workspaces" && pos[1] == "foreach") {
		if pos[0] == "workspace" {
			if st, err := os.Stat(resolve(base, pos[1])); err == nil && st.IsDir() {
				base = resolve(base, pos[1])
			}
		}
		pos = pos[2:]
	}
	switch {
	case len(pos) == 0:
		return nothing(base, "yarn without a subcommand publishes nothing", "yarn")
	case pos[0] == "publish" || pos[0] == "npm" && len(pos) > 1 && pos[1] == "publish":
		c := known(OpRegistryUpload, "yarn publish uploads the package to the registry", jsProjectDir(base, dir, pos[1:], a), "yarn", "publish")
		if pos[0] == "npm" {
			c = known(OpRegistryUpload, "yarn npm publish uploads the package to the registry", base, "yarn", "npm", "publish")
		}
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, "yarn publish --dry-run uploads nothing"
		}
		return c
	}
	return nothing(base, fmt.Sprintf("yarn %s publishes nothing", pos[0]), "yarn", pos[0])
}

func classifyBun(rest []string, dir string) Classification {
	a := newArgs(rest, "--cwd", "--tag", "--access", "--otp", "--registry", "--auth-type", "--gzip-level", "--config", "-c")
	pos := a.positionals()
	base := dir
	if p, ok := a.value("--cwd"); ok && p != "" {
		base = resolve(dir, p)
	}
	if len(pos) > 0 && pos[0] == "publish" {
		c := known(OpRegistryUpload, "bun publish uploads the package to the registry", jsProjectDir(base, dir, pos[1:], a), "bun", "publish")
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, "bun publish --dry-run uploads nothing"
		}
		return c
	}
	if len(pos) == 0 {
		return nothing(base, "bun without a subcommand publishes nothing", "bun")
	}
	return nothing(base, fmt.Sprintf("bun %s publishes nothing", pos[0]), "bun", pos[0])
}

func classifyCargo(rest []string, dir string) Classification {
	if len(rest) > 0 && strings.HasPrefix(rest[0], "+") { // toolchain: cargo +nightly publish
		rest = rest[1:]
	}
	a := newArgs(rest, "--manifest-path", "-p", "--package", "--index", "--registry", "--token", "--target", "--target-dir", "-j", "--jobs", "-F", "--features", "-Z", "-C", "--config", "--color", "--exclude")
	pos := a.positionals()
	base := dir
	if c, ok := a.value("-C"); ok && c != "" {
		base = resolve(dir, c)
	}
	projectDir := base
	if m, ok := a.value("--manifest-path"); ok && m != "" {
		projectDir = filepath.Dir(resolve(base, m))
	}
	if len(pos) == 0 {
		return nothing(projectDir, "cargo without a subcommand publishes nothing", "cargo")
	}
	switch pos[0] {
	case "publish":
		c := known(OpRegistryUpload, "cargo publish uploads the crate to the registry", projectDir, "cargo", "publish")
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, "cargo publish --dry-run uploads nothing"
		}
		return c
	case "workspaces", "ws":
		// cargo-workspaces: cargo workspaces publish versions and uploads every crate.
		if len(pos) > 1 && pos[1] == "publish" {
			c := known(OpRegistryUpload, "cargo workspaces publish uploads the workspace's crates", projectDir, "cargo", pos[0], "publish")
			if a.flag("--dry-run") {
				c.DryRun, c.Why = true, "cargo workspaces publish --dry-run uploads nothing"
			}
			return c
		}
	case "release":
		// cargo-release only acts with --execute; without it, it rehearses.
		c := known(OpPublishRelease, "cargo release --execute tags, pushes and publishes", projectDir, "cargo", "release")
		if !a.flag("--execute", "-x") {
			c.DryRun, c.Why = true, "cargo release without --execute is a dry run"
		}
		return c
	}
	return nothing(projectDir, fmt.Sprintf("cargo %s publishes nothing", pos[0]), "cargo", pos[0])
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
	base := dir
	if d, ok := a.value(p.dirFlags...); ok && d != "" {
		base = resolve(dir, d)
	}
	if len(pos) > 0 && pos[0] == "publish" {
		c := known(OpRegistryUpload, p.why, base, p.tool, "publish")
		if a.flag("--dry-run") {
			c.DryRun, c.Why = true, p.tool+" publish --dry-run uploads nothing"
		}
		return c
	}
	if len(pos) == 0 {
		return nothing(base, p.tool+" without a subcommand publishes nothing", p.tool)
	}
	return nothing(base, fmt.Sprintf("%s %s publishes nothing", p.tool, pos[0]), p.tool, pos[0])
}

func classifyRake(rest []string, dir string) Classification {
	a := newArgs(rest, "-f", "--rakefile", "-C", "--directory", "-I", "--libdir", "-r", "--require")
	base := dir
	if p, ok := a.value("-C", "--directory"); ok && p != "" {
		base = resolve(dir, p)
	}
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

func classifyMaven(prog string, rest []string, dir string) Classification {
	a := newArgs(rest, "-f", "--file", "-pl", "--projects", "-s", "--settings", "-gs", "-P", "--activate-profiles", "-rf", "--resume-from", "-T", "--threads", "-D", "-l", "--log-file", "-t", "--toolchains")
	base := dir
	if f, ok := a.value("-f", "--file"); ok && f != "" {
		p := resolve(dir, f)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			base = p
		} else {
			base = filepath.Dir(p)
		}
	}
	for _, goal := range a.positionals() {
		switch {
		case goal == "deploy" || strings.HasPrefix(goal, "deploy:") || strings.HasSuffix(goal, ":deploy") || strings.HasSuffix(goal, ":deploy-file"):
			c := known(OpRegistryUpload, "mvn deploy uploads artifacts to the remote repository", base, prog, "deploy")
			if skipsDeploy(a) {
				c.DryRun, c.Why = true, "-Dmaven.deploy.skip=true skips the upload"
			}
			return c
		case goal == "release:perform" || strings.HasSuffix(goal, ":release:perform"):
			c := known(OpPublishRelease, "mvn release:perform deploys the tagged release", base, prog, "release:perform")
			if a.flag("-DdryRun=true", "-DdryRun") {
				c.DryRun, c.Why = true, "-DdryRun=true rehearses the release"
			}
			return c
		}
	}
	return nothing(base, prog+" publishes only with the deploy or release:perform goal", prog)
}

func skipsDeploy(a args) bool {
	for _, w := range a.words {
		if w == "-Dmaven.deploy.skip=true" || w == "-Dmaven.deploy.skip" {
			return true
		}
	}
	for _, v := range a.values("-D") {
		if v == "maven.deploy.skip=true" || v == "maven.deploy.skip" {
			return true
		}
	}
	return false
}

func classifyGradle(prog string, rest []string, dir string) Classification {
	a := newArgs(rest, "-p", "--project-dir", "-b", "--build-file", "-c", "--settings-file", "-x", "--exclude-task", "-D", "-P", "-g", "--gradle-user-home", "-I", "--init-script", "--console", "--warning-mode", "--include-build", "--max-workers")
	base := dir
	if p, ok := a.value("-p", "--project-dir"); ok && p != "" {
		base = resolve(dir, p)
	}
	for _, task := range a.positionals() {
		name := task
		if i := strings.LastIndexByte(name, ':'); i >= 0 {
			name = name[i+1:]
		}
		lower := strings.ToLower(name)
		if strings.HasPrefix(lower, "publish") && !strings.HasSuffix(lower, "tomavenlocal") {
			c := known(OpRegistryUpload, fmt.Sprintf("gradle task %s uploads publications", task), base, prog, "publish")
			if a.flag("--dry-run", "-m") {
				c.DryRun, c.Why = true, "gradle --dry-run executes no task"
			}
			return c
		}
	}
	return nothing(base, prog+" publishes only with a publish* task", prog)
}

func classifyDocker(prog string, rest []string, dir string) Classification {
	a := newArgs(rest, "-H", "--host", "--context", "-c", "--config", "-l", "--log-level", "-f", "--file", "-t", "--tag", "-p", "--project-name", "--build-arg", "--platform", "--target", "--builder", "-o", "--output", "--cache-from", "--cache-to", "--label", "--secret", "--ssh", "--progress", "--env-file", "--profile", "--project-directory")
	pos := a.positionals()
	if len(pos) == 0 {
		return nothing(dir, prog+" without a subcommand publishes nothing", prog)
	}
	push := func(words ...string) Classification {
		return known(OpRegistryUpload, strings.Join(words, " ")+" uploads images to a registry", dir, words...)
	}
	switch {
	case pos[0] == "push":
		return push(prog, "push")
	case len(pos) > 1 && (pos[0] == "image" || pos[0] == "manifest" || pos[0] == "compose") && pos[1] == "push":
		return push(prog, pos[0], "push")
	case pos[0] == "manifest" && len(pos) > 1 && pos[1] == "push":
		return push(prog, "manifest", "push")
	case (pos[0] == "build" || pos[0] == "buildx" && len(pos) > 1 && (pos[1] == "build" || pos[1] == "bake")) && (a.flag("--push") || outputPushes(a)):
		return push(prog, pos[0], "--push")
	case pos[0] == "buildx" && len(pos) > 2 && pos[1] == "imagetools" && pos[2] == "create":
		return push(prog, "buildx", "imagetools", "create")
	}
	return nothing(dir, fmt.Sprintf("%s %s publishes nothing", prog, pos[0]), prog, pos[0])
}

// outputPushes reports an --output type=registry / push=true build output.
func outputPushes(a args) bool {
	for _, v := range a.values("-o", "--output") {
		if strings.Contains(v, "type=registry") || strings.Contains(v, "push=true") {
			return true
		}
	}
	return false
}

func classifyHelm(rest []string, dir string) Classification {
	a := newArgs(rest, "--kube-context", "--namespace", "-n", "--registry-config", "--repository-config", "--repository-cache", "--cert-file", "--key-file", "--ca-file", "--username", "--password", "--context-path", "--version", "--kubeconfig")
	pos := a.positionals()
	if len(pos) > 0 && (pos[0] == "push" || pos[0] == "cm-push") {
		projectDir := dir
		if len(pos) > 1 {
			if st, err := os.Stat(resolve(dir, pos[1])); err == nil && st.IsDir() {
				projectDir = resolve(dir, pos[1])
			} else if err == nil {
				projectDir = filepath.Dir(resolve(dir, pos[1]))
			}
		}
		return known(OpRegistryUpload, "helm "+pos[0]+" uploads the chart to a registry", projectDir, "helm", pos[0])
	}
	if len(pos) == 0 {
		return nothing(dir, "helm without a subcommand publishes nothing", "helm")
	}
	return nothing(dir, fmt.Sprintf("helm %s publishes nothing", pos[0]), "helm", pos[0])
}

func classifyGoreleaser(rest []string, dir string) Classification {
	a := newArgs(rest, "-f", "--config", "-p", "--parallelism", "--timeout", "--skip", "--release-notes", "--release-header", "--release-footer", "--id", "--single-target")
	pos := a.positionals()
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
		return c
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
			dir = resolve(dir, rest[1])
			rest = rest[2:]
		case (w == "-c" || w == "--git-dir" || w == "--work-tree" || w == "--namespace") && len(rest) > 1:
			if w == "--work-tree" {
				dir = resolve(dir, rest[1])
			}
			rest = rest[2:]
		case strings.HasPrefix(w, "--work-tree="):
			dir = resolve(dir, strings.TrimPrefix(w, "--work-tree="))
			rest = rest[1:]
		case strings.HasPrefix(w, "-"):
			rest = rest[1:]
		default:
			return nothing(dir, fmt.Sprintf("git %s is guarded by the git hooks, not the publish wrapper", w), "git", w)
		}
	}
	return nothing(dir, "git without a subcommand publishes nothing", "git")
}

// mentionsGitHubAPI reports a GitHub API URL (github.com's or an Enterprise /api/v3).
func mentionsGitHubAPI(words []string) bool {
	for _, w := range words {
		if lw := strings.ToLower(w); strings.Contains(lw, "api.github.com") || strings.Contains(lw, "/api/v3/") || strings.Contains(lw, "/api/graphql") {
			return true
		}
	}
	return false
}

// distProject is the project whose built files are uploaded: the folder above the
// dist/ (or wheelhouse/, target/wheels/) folder that the first file lies in, or dir.
func distProject(dir string, files []string) string {
	for _, f := range files {
		p := filepath.ToSlash(resolve(dir, f))
		for _, marker := range []string{"/dist/", "/wheelhouse/", "/target/wheels/"} {
			if i := strings.LastIndex(p, marker); i > 0 {
				return filepath.FromSlash(p[:i])
			}
		}
	}
	return dir
}
