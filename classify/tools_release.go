package classify

import (
	"fmt"
	"slices"
	"strings"
)

// forgeTools make releases on a forge (GitHub, GitLab, Gitea) or change a
// repository's visibility there, and the release tools that do it for a project.
func forgeTools() map[string]tool {
	return map[string]tool{
		"gh":               {withoutProg(classifyGh), helpLong},
		"glab":             {classifyForgeRelease, helpLong},
		"tea":              {classifyForgeRelease, helpLong},
		"hub":              {classifyForgeRelease, nil},
		"ghr":              {classifyGhr, nil},
		"github-release":   {subcommands(map[string]string{"release": OpPublishRelease, "upload": OpPublishRelease, "edit": OpPublishRelease}, "-u", "--user", "-r", "--repo", "-t", "--tag", "-n", "--name", "-d", "--description", "-f", "--file", "-s", "--security-token", "-c", "--target"), nil},
		"goreleaser":       {withoutProg(classifyGoreleaser), helpAnywhere},
		"semantic-release": {classifyReleaseTool, helpAnywhere},
		"release-it":       {classifyReleaseTool, helpAnywhere},
		"auto":             {classifyReleaseTool, nil},
		"release-please":   {classifyReleaseTool, nil},
	}
}

// classifyGhr: ghr does one thing, upload a GitHub release.
func classifyGhr(_ string, _ []string, dir string) Classification {
	return known(OpPublishRelease, "ghr uploads a GitHub release", dir, "ghr")
}

// Release tools tag, release and publish in one go: semantic-release, release-it,
// auto, release-please, nx release, and the forges' own release commands (glab,
// tea, hub).

func classifyReleaseTool(prog string, rest []string, dir string) Classification {
	a := newArgs(rest, "-b", "--branches", "-r", "--repository-url", "-t", "--tag-format", "-e", "--extends", "-p", "--plugins", "-c", "--config", "--preRelease", "--token", "--repo-url", "--release-type", "--path", "--config-file", "--manifest-file", "--target-branch", "--label", "-v", "--verbose")
	pos := a.positionals()
	c := known(OpPublishRelease, prog+" tags, releases and publishes the project", dir, prog)
	switch prog {
	case "auto":
		if len(pos) == 0 || !slices.Contains([]string{"shipit", "latest", "canary", "next", "release"}, pos[0]) {
			return nothing(dir, "auto publishes only with shipit, latest, canary, next or release", "auto")
		}
		c.Words = []string{"auto", pos[0]}
	case "release-please":
		if len(pos) == 0 || pos[0] != "github-release" {
			return nothing(dir, "release-please publishes a release only with github-release (release-pr opens a pull request)", "release-please")
		}
		c.Words = []string{"release-please", "github-release"}
	}
	if a.flag("--dry-run", "-d") || prog == "release-it" && a.flag("--release-version", "--changelog") {
		c.DryRun, c.Why = true, prog+" --dry-run rehearses the release"
	}
	return c
}

// classifyNxRelease: nx release (version, changelog and publish), nx release
// publish and changelog (which can create forge releases) publish; a task named
// publish or release (nx run pkg:publish, nx run-many -t publish) is taken to.
func classifyNxRelease(rest []string, dir string) Classification {
	a := newArgs(rest, "-p", "--projects", "-g", "--groups", "-t", "--target", "--targets", "--tag", "--registry", "--otp", "--access", "--first-release", "--preid", "--specifier", "--from", "--to", "--git-commit-message", "--create-release", "-c", "--configuration", "--exclude", "--parallel", "--base", "--head", "--output-style")
	pos := a.positionals()
	if len(pos) > 0 && pos[0] == "release" {
		sub := ""
		if len(pos) > 1 {
			sub = pos[1]
		}
		var c Classification
		switch sub {
		case "version", "plan", "plan:check":
			return nothing(dir, "nx release "+sub+" publishes nothing", "nx", "release", sub)
		case "changelog":
			c = known(OpPublishRelease, "nx release changelog can create the forge's releases", dir, "nx", "release", "changelog")
		case "publish":
			c = known(OpRegistryUpload, "nx release publish uploads the packages", dir, "nx", "release", "publish")
		default:
			c = known(OpRegistryUpload, "nx release versions, writes changelogs and publishes the packages", dir, "nx", "release")
			if a.anySet("--skip-publish") {
				c.Op, c.Why = OpPublishRelease, "nx release --skip-publish still writes changelogs that can create releases"
			}
		}
		if a.flag("--dry-run", "-d") {
			c.DryRun, c.Why = true, "nx release --dry-run changes nothing"
		}
		return withProjects(c, jsWorkspacePackages(dir)...)
	}
	targets := append(a.values("-t", "--target", "--targets"), pos...)
	for _, t := range targets {
		for _, part := range strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ':' }) {
			if p := strings.ToLower(part); p == "publish" || p == "release" || strings.HasPrefix(p, "publish-") || strings.HasSuffix(p, "-publish") {
				return known(OpRegistryUpload, "nx runs a target named "+part+" (taken to publish)", dir, "nx", part)
			}
		}
	}
	return nothing(dir, "nx publishes only with nx release or a publish target", "nx")
}

// classifyForgeRelease: glab (GitLab), tea (Gitea) and hub (GitHub) release
// create/upload publish a release; glab repo create --public and hub create
// (public unless --private) make a public repository.
func classifyForgeRelease(prog string, rest []string, dir string) Classification {
	a := newArgs(rest, "-R", "--repo", "-n", "--name", "-N", "--notes", "-F", "--notes-file", "-r", "--ref", "-a", "--assets-links", "-m", "--milestone", "-t", "--tag", "--title", "--note", "--target", "-d", "--description", "-g", "--group", "-h", "--homepage", "--login", "-o", "--remote", "--defaultBranch", "--readme")
	pos := a.positionals()
	if len(pos) == 0 {
		return nothing(dir, prog+" without a subcommand publishes nothing", prog)
	}
	switch {
	case (pos[0] == "release" || pos[0] == "releases" || pos[0] == "r") && len(pos) > 1 && slices.Contains([]string{"create", "c", "new", "upload"}, pos[1]):
		c := known(OpPublishRelease, prog+" release "+pos[1]+" publishes a release", dir, prog, "release", pos[1])
		if pos[1] == "upload" && len(pos) > 3 {
			c = withArtifacts(c, dir, pos[3:], false)
		}
		return c
	case prog == "glab" && pos[0] == "repo" && len(pos) > 1 && (pos[1] == "create" || pos[1] == "new") && (a.anySet("--public", "-P") || mentionsPublic(a.words)):
		return known(OpVisibilityPublic, "glab repo create --public makes a public project", dir, "glab", "repo", "create")
	case prog == "hub" && pos[0] == "create":
		if a.anySet("--private", "-p") {
			return nothing(dir, "hub create --private makes no public repository", "hub", "create")
		}
		return known(OpVisibilityPublic, "hub create makes a public repository unless --private", dir, "hub", "create")
	}
	return nothing(dir, prog+" "+pos[0]+" publishes nothing", prog, pos[0])
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
