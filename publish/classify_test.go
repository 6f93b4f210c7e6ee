package publish

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
)

const wd = "/work/project"

type classifyCase struct {
	name   string
	cmd    string
	op     string
	dir    string // relative to wd; "" means wd
	dryRun bool
	known  bool
}

// pub is a case for a command that publishes op.
func pub(name, cmd, op string) classifyCase {
	return classifyCase{name: name, cmd: cmd, op: op, known: true}
}

func pubIn(name, cmd, op, dir string) classifyCase {
	return classifyCase{name: name, cmd: cmd, op: op, dir: dir, known: true}
}

func dry(name, cmd, op string) classifyCase {
	return classifyCase{name: name, cmd: cmd, op: op, dryRun: true, known: true}
}

func none(name, cmd string) classifyCase {
	return classifyCase{name: name, cmd: cmd, known: true}
}

func unknown(name, cmd string) classifyCase {
	return classifyCase{name: name, cmd: cmd}
}

func TestClassifyRealWorldCommandLines(t *testing.T) {
	const up, rel, vis = OpRegistryUpload, OpPublishRelease, OpVisibilityPublic
	cases := []classifyCase{
		// npm and friends
		pub("npm publish uploads", "npm publish", up),
		pub("npm publish with access and tag uploads", "npm publish --access public --tag next", up),
		pub("npm publish with otp uploads", "npm publish --otp 123456", up),
		pub("npm with registry before the subcommand uploads", "npm --registry http://127.0.0.1:4873 publish", up),
		pubIn("npm publish of a folder acts on that folder", "npm publish ./pkg", up, "pkg"),
		pubIn("npm publish of a nested folder acts on it", "npm publish packages/a --access public", up, "packages/a"),
		pubIn("npm publish with --prefix acts on the prefix", "npm publish --prefix sub", up, "sub"),
		pubIn("npm with -C acts on that folder", "npm -C sub publish", up, "sub"),
		pubIn("npm publish with --prefix=X acts on X", "npm --prefix=sub publish", up, "sub"),
		pubIn("npm publish with an absolute folder acts on it", "npm publish /elsewhere/pkg", up, "/elsewhere/pkg"),
		pub("npm publish of a tarball acts on the working directory", "npm publish pkg-1.0.0.tgz", up),
		dry("npm publish --dry-run rehearses", "npm publish --dry-run", up),
		dry("npm publish --dry-run=true rehearses", "npm publish --dry-run=true", up),
		pub("npm publish --dry-run=false really uploads", "npm publish --dry-run=false", up),
		pub("npm publish --dry-run false really uploads", "npm publish --dry-run false", up),
		pub("npm access public makes a package public", "npm access public @scope/pkg", vis),
		pub("npm access set status=public makes a package public", "npm access set status=public @scope/pkg", vis),
		pub("an abbreviated npm publish uploads, as npm expands unique prefixes", "npm pub", up),
		pub("npm publ uploads", "npm publ --access public", up),
		pub("an abbreviated npm access public makes a package public", "npm acc public @scope/pkg", vis),
		pub("npm with a valued option guard does not know before publish uploads", "npm --script-shell bash publish", up),
		pub("npm --dry-run false before the subcommand really uploads", "npm --dry-run false publish", up),
		pub("several options guard does not know before publish still upload", "npm --registry http://r --node-options x publish", up),
		pub("docker with a TLS option before push uploads", "docker --tlscacert ca.pem push img", up),
		none("gh repo create --private with the name after the flag publishes nothing", "gh repo create --private myrepo"),
		none("npm with an option before install publishes nothing", "npm --loglevel warn install"),
		none("npm install publishes nothing", "npm install"),
		none("npm ci publishes nothing", "npm ci --omit dev"),
		none("npm run release publishes nothing by itself", "npm run release"),
		none("npm pack publishes nothing", "npm pack"),
		none("npm view publishes nothing", "npm view left-pad"),
		none("npm with no subcommand publishes nothing", "npm"),
		pub("pnpm publish uploads", "pnpm publish --no-git-checks", up),
		pub("pnpm recursive publish uploads", "pnpm -r publish --access public", up),
		pubIn("pnpm -C folder publish acts on the folder", "pnpm -C packages/ui publish", up, "packages/ui"),
		pub("pnpm filtered publish uploads", "pnpm --filter @scope/ui publish", up),
		dry("pnpm publish --dry-run rehearses", "pnpm publish --dry-run", up),
		none("pnpm install publishes nothing", "pnpm install --frozen-lockfile"),
		pub("yarn publish uploads", "yarn publish --new-version 1.2.3", up),
		pub("yarn npm publish uploads", "yarn npm publish --access public", up),
		pub("yarn workspaces foreach npm publish uploads", "yarn workspaces foreach --all npm publish", up),
		pubIn("yarn --cwd folder publish acts on the folder", "yarn --cwd pkg publish", up, "pkg"),
		none("yarn build publishes nothing", "yarn build"),
		pub("bun publish uploads", "bun publish", up),
		dry("bun publish --dry-run rehearses", "bun publish --dry-run", up),
		none("bun test publishes nothing", "bun test"),
		pub("lerna publish uploads", "lerna publish from-package --yes", up),
		pub("changeset publish uploads", "changeset publish", up),
		none("changeset version publishes nothing", "changeset version"),
		// runners and wrappers
		pub("npx np releases", "npx np", rel),
		pub("npx with a version releases", "npx np@latest --no-tests", rel),
		dry("np --preview rehearses", "np --preview", rel),
		pub("npx --yes semantic-release releases", "npx --yes semantic-release", rel),
		dry("semantic-release --dry-run rehearses", "semantic-release --dry-run", rel),
		dry("semantic-release -d rehearses", "npx semantic-release -d", rel),
		pub("release-it releases", "release-it minor --ci", rel),
		dry("release-it --dry-run rehearses", "npx release-it --dry-run", rel),
		pub("env with assignments uploads", "env NODE_AUTH_TOKEN=x npm publish", up),
		pub("shell assignments in front upload", "NPM_TOKEN=x CI=1 npm publish", up),
		pubIn("env -C changes the project", "env -C sub npm publish", up, "sub"),
		pub("env -S splits its string", "env -S 'npm publish'", up),
		pub("an absolute program path uploads", "/usr/local/bin/npm publish", up),
		pub("a Windows program name uploads", `'C:\Program Files\nodejs\npm.cmd' publish`, up),
		pub("sudo with a user uploads", "sudo -u deploy -E npm publish", up),
		pub("command wrapper uploads", "command npm publish", up),
		pub("time wrapper uploads", "time npm publish", up),
		pub("nice wrapper uploads", "nice -n 10 cargo publish", up),
		// The agent hook's unwrapper (cmdline): every wrapper spelling it knows.
		pub("timeout wrapper uploads", "timeout 60 npm publish", up),
		pub("timeout with options uploads", "timeout --signal KILL -k 5 60 npm publish", up),
		pub("sudo with grouped options uploads", "sudo -nu root npm publish", up),
		pub("nice --adjustment uploads", "nice --adjustment 5 npm publish", up),
		pub("setsid, nohup and stdbuf upload", "setsid nohup stdbuf -oL npm publish", up),
		pub("busybox wrapper uploads", "/usr/bin/env busybox env npm publish", up),
		pubIn("sudo -D changes the project", "sudo -D sub npm publish", up, "sub"),
		pub("flock -c runs its string", "flock /tmp/l -c 'npm publish'", up),
		pub("npm exec runs what it names", "npm exec -- semantic-release", rel),
		pub("npm exec -c splits its string", "npm exec -c 'npm publish'", up),
		pub("npm exec after npm's own options runs what it names", "npm --yes exec -- np", rel),
		pub("bun x after bun's own options runs what it names", "bun --silent x semantic-release", rel),
		pub("bundle exec after bundle's own options runs what it names", "bundle --verbose exec rake release", up),
		pub("pipx run after pipx's own options runs what it names", "pipx --verbose run twine upload dist/x.whl", up),
		pub("npm x after a valued option runs what it names", "npm --registry http://r x semantic-release", rel),
		pub("pnpm dlx runs what it names", "pnpm dlx release-it", rel),
		pub("pnpm exec runs what it names", "pnpm exec changeset publish", up),
		pub("pnpm -r exec runs what it names in every package", "pnpm -r exec npm publish", up),
		pubIn("pnpm -C folder exec runs in the folder", "pnpm -C pkg exec npm publish", up, "pkg"),
		pub("yarn dlx runs what it names", "yarn dlx semantic-release", rel),
		pub("bunx runs what it names", "bunx np", rel),
		pub("bun x runs what it names", "bun x semantic-release", rel),
		pub("a scoped package runner resolves the bin", "npx @changesets/cli@2 publish", up),
		// Rust
		pub("cargo publish uploads", "cargo publish", up),
		pubIn("cargo publish --manifest-path acts on the manifest's crate", "cargo publish --manifest-path crates/core/Cargo.toml", up, "crates/core"),
		pubIn("cargo --manifest-path=X acts on X's crate", "cargo publish --manifest-path=crates/cli/Cargo.toml --locked", up, "crates/cli"),
		pub("cargo +toolchain publish uploads", "cargo +nightly publish -Z package-workspace", up),
		pub("cargo publish -p uploads", "cargo publish -p mycrate --token x", up),
		dry("cargo publish --dry-run rehearses", "cargo publish --dry-run", up),
		dry("cargo release without --execute rehearses", "cargo release patch", rel),
		pub("cargo release --execute releases", "cargo release patch --execute", rel),
		none("cargo build publishes nothing", "cargo build --release"),
		pub("cargo workspaces publish uploads every crate", "cargo workspaces publish --from-git", up),
		pub("cargo ws publish uploads every crate", "cargo ws publish", up),
		dry("cargo workspaces publish --dry-run rehearses", "cargo workspaces publish --dry-run", up),
		none("cargo workspaces list publishes nothing", "cargo workspaces list"),
		// Python
		pub("twine upload uploads", "twine upload dist/*", up),
		pub("twine upload to a repository uploads", "twine upload -r testpypi dist/*", up),
		pubIn("twine upload of another project's dist acts on that project", "twine upload packages/core/dist/*", up, "packages/core"),
		pub("python -m twine upload uploads", "python3 -m twine upload --skip-existing dist/*", up),
		pub("uvx twine upload uploads", "uvx twine upload dist/*", up),
		pub("pipx run twine upload uploads", "pipx run twine upload dist/*", up),
		none("twine check publishes nothing", "twine check dist/*"),
		pub("poetry publish uploads", "poetry publish --build", up),
		pubIn("poetry -C folder publish acts on the folder", "poetry -C lib publish", up, "lib"),
		dry("poetry publish --dry-run rehearses", "poetry publish --dry-run", up),
		none("poetry build publishes nothing", "poetry build"),
		pub("uv publish uploads", "uv publish", up),
		pub("uv publish with a token uploads", "uv publish --token x dist/*", up),
		pubIn("uv --directory folder publish acts on the folder", "uv --directory pkg publish", up, "pkg"),
		dry("uv publish --dry-run rehearses", "uv publish --dry-run", up),
		none("uv sync publishes nothing", "uv sync"),
		pub("flit publish uploads", "flit publish", up),
		pub("hatch publish uploads", "hatch publish", up),
		pub("pdm publish uploads", "pdm publish", up),
		pub("maturin publish uploads", "maturin publish", up),
		// Ruby, .NET, JVM
		pub("gem push uploads", "gem push mygem-1.0.0.gem", up),
		pub("gem push to a host uploads", "gem push --host https://rubygems.pkg.github.com/o mygem-1.0.0.gem", up),
		none("gem build publishes nothing", "gem build mygem.gemspec"),
		pub("bundle exec rake release uploads", "bundle exec rake release", up),
		pub("dotnet nuget push uploads", "dotnet nuget push bin/Release/x.nupkg --api-key k --source https://api.nuget.org/v3/index.json", up),
		none("dotnet build publishes nothing", "dotnet build"),
		pub("mvn deploy uploads", "mvn deploy", up),
		pub("mvn clean deploy with options uploads", "mvn -B -DskipTests clean deploy -P release", up),
		pubIn("mvn -f pom deploy acts on the pom's folder", "mvn -f service/pom.xml deploy", up, "service"),
		pub("mvnw deploy uploads", "./mvnw deploy", up),
		dry("mvn deploy with maven.deploy.skip rehearses", "mvn deploy -Dmaven.deploy.skip=true", up),
		pub("mvn release:perform releases", "mvn release:prepare release:perform", rel),
		none("mvn install publishes nothing", "mvn clean install"),
		pub("gradle publish uploads", "gradle publish", up),
		pub("gradlew publish uploads", "./gradlew publish", up),
		pub("gradlew publishToMavenCentral uploads", "./gradlew publishToMavenCentral --no-configuration-cache", up),
		pub("a subproject publish task uploads", "./gradlew :lib:publishAllPublicationsToSonatypeRepository", up),
		pub("gradle publishPlugins uploads", "gradle publishPlugins", up),
		pubIn("gradle -p folder publish acts on the folder", "gradle -p lib publish", up, "lib"),
		dry("gradle --dry-run publish rehearses", "./gradlew publish --dry-run", up),
		none("gradle publishToMavenLocal publishes nothing", "./gradlew publishToMavenLocal"),
		none("gradle build publishes nothing", "./gradlew build"),
		// containers, charts
		pub("docker push uploads", "docker push ghcr.io/o/app:1.0", up),
		pub("docker image push uploads", "docker image push --all-tags ghcr.io/o/app", up),
		pub("docker buildx build --push uploads", "docker buildx build --platform linux/amd64,linux/arm64 -t ghcr.io/o/app --push .", up),
		pub("docker build --output type=registry uploads", "docker buildx build -o type=registry -t x .", up),
		pub("docker compose push uploads", "docker compose push", up),
		pub("docker manifest push uploads", "docker manifest push ghcr.io/o/app:1", up),
		pub("podman push uploads", "podman push quay.io/o/app", up),
		none("docker build without push publishes nothing", "docker build -t app ."),
		none("docker run publishes nothing", "docker run --rm app"),
		pub("helm push uploads", "helm push mychart-0.1.0.tgz oci://ghcr.io/o/charts", up),
		none("helm install publishes nothing", "helm install x ./chart"),
		// releases
		pub("gh release create releases", "gh release create v1.0.0 --generate-notes", rel),
		pub("gh release create with assets releases", "gh release create v1.0.0 dist/*.tar.gz -t v1.0.0 -n notes", rel),
		pub("gh release upload releases", "gh release upload v1.0.0 dist/x.zip", rel),
		pub("gh -R release create releases", "gh -R o/r release create v1", rel),
		pub("gh release edit --draft=false publishes a draft", "gh release edit v1 --draft=false", rel),
		none("gh release view publishes nothing", "gh release view v1"),
		none("gh release list publishes nothing", "gh release list"),
		pub("goreleaser release releases", "goreleaser release --clean", rel),
		pub("goreleaser without a subcommand releases", "goreleaser", rel),
		dry("goreleaser --snapshot rehearses", "goreleaser release --snapshot --clean", rel),
		dry("goreleaser --skip=publish rehearses", "goreleaser release --skip=publish", rel),
		dry("goreleaser --skip publish rehearses", "goreleaser release --skip announce,publish", rel),
		dry("goreleaser --skip-publish rehearses", "goreleaser release --skip-publish", rel),
		none("goreleaser build publishes nothing", "goreleaser build --snapshot"),
		none("goreleaser check publishes nothing", "goreleaser check"),
		// visibility
		pub("gh repo create --public makes a public repository", "gh repo create my-repo --public", vis),
		pub("gh repo create with --public first", "gh repo create --public my-repo --source=. --push", vis),
		pubIn("gh repo create --source acts on the source folder", "gh repo create o/x --public --source sub --remote upstream", vis, "sub"),
		pub("gh repo create --visibility public makes a public repository", "gh repo create x --visibility public", vis),
		pub("gh repo create --visibility=public makes a public repository", "gh repo create x --visibility=public", vis),
		pub("gh repo create --public=true makes a public repository", "gh repo create x --public=true", vis),
		pub("gh repo create without a visibility flag may make a public repository", "gh repo create x", vis),
		none("gh repo create --private publishes nothing", "gh repo create x --private"),
		none("gh repo create --internal publishes nothing", "gh repo create x --internal --clone"),
		none("gh repo create of a repository named public-notes --private publishes nothing", "gh repo create public-notes --private"),
		pub("gh repo edit --visibility public makes the repository public", "gh repo edit --visibility public", vis),
		pub("gh repo edit --visibility=public makes the repository public", "gh repo edit --visibility=public --accept-visibility-change-consequences", vis),
		pub("gh repo edit with the repository first makes it public", "gh repo edit o/r --accept-visibility-change-consequences --visibility public", vis),
		pub("gh repo edit --visibility PUBLIC makes the repository public", "gh repo edit --visibility PUBLIC", vis),
		none("gh repo edit --visibility private publishes nothing", "gh repo edit --visibility private --accept-visibility-change-consequences"),
		none("gh repo edit of the description publishes nothing", "gh repo edit --description 'a public-facing site'"),
		pub("gh api PATCH visibility=public makes a repository public", "gh api -X PATCH repos/o/r -f visibility=public", vis),
		pub("gh api --method PATCH --field visibility=public", "gh api --method PATCH /repos/o/r --field visibility=public", vis),
		pub("gh api --raw-field visibility=public", "gh api repos/o/r --raw-field visibility=public -X PATCH", vis),
		pub("gh api -F private=false makes a repository public", "gh api -X PATCH repos/o/r -F private=false", vis),
		pub("gh api with an attached field makes a repository public", "gh api -XPATCH repos/o/r -fvisibility=public", vis),
		pub("gh api creating a repository without private=true makes a public one", "gh api user/repos -f name=x", vis),
		pub("gh api creating an org repository with visibility=public", "gh api orgs/o/repos -f name=x -f visibility=public", vis),
		none("gh api creating a private repository publishes nothing", "gh api user/repos -f name=x -F private=true"),
		pub("gh api graphql mutation to PUBLIC makes a repository public", `gh api graphql -f query='mutation { updateRepository(input: {repositoryId: "x", visibility: PUBLIC}) { repository { id } } }'`, vis),
		pub("gh api --input on a repository endpoint fails closed", "gh api -X PATCH repos/o/r --input body.json", vis),
		none("gh api reading a repository publishes nothing", "gh api repos/o/r"),
		none("gh api PATCH private=true publishes nothing", "gh api -X PATCH repos/o/r -F private=true"),
		pub("gh gist create --public makes a public gist", "gh gist create --public notes.md", vis),
		none("gh gist create publishes nothing", "gh gist create notes.md"),
		pub("a gh alias mentioning --public is read as making something public", "gh mkpub --public", vis),
		none("gh pr create publishes nothing", "gh pr create --fill"),
		none("gh issue create about public things publishes nothing", "gh issue create --title public --body x"),
		pub("curl PATCHing GitHub's API to public makes a repository public", `curl -X PATCH -H 'Authorization: token x' https://api.github.com/repos/o/r -d '{"private":false}'`, vis),
		pub("curl to GitHub's GraphQL with visibility PUBLIC makes a repository public", `curl https://api.github.com/graphql -d '{"query":"mutation{updateRepository(input:{visibility:PUBLIC})}"}'`, vis),
		unknown("curl elsewhere is unknown", "curl -X POST https://example.com/upload -d private=false"),
		// git
		pubIn("git -C follows the folder and publishes nothing", "git -C sub push", "", "sub"),
		// unknown
		unknown("make release is unknown", "make release"),
		unknown("a release script is unknown", "./scripts/release.sh --prod"),
		unknown("just publish is unknown", "just publish"),
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Classify(splitTestCommand(tc.cmd), wd, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.op, c.Op, "op (why: %s)", c.Why)
			assert.Equal(t, tc.dryRun, c.DryRun, "dry run (why: %s)", c.Why)
			assert.Equal(t, tc.known, c.Known, "known (why: %s)", c.Why)
			wantDir := wd
			if tc.dir != "" {
				wantDir = tc.dir
				if !filepath.IsAbs(wantDir) {
					wantDir = filepath.Join(wd, tc.dir)
				}
			}
			assert.Equal(t, wantDir, c.ProjectDir)
			assert.NotEmpty(t, c.Why)
		})
	}
}

func TestClassifyUsesConfiguredCommands(t *testing.T) {
	cfg := &guard.Config{Publish: guard.PublishConfig{Commands: map[string]string{
		"make release":   OpPublishRelease,
		"make":           OpNone,
		"git push":       OpPublishRelease,
		"./release.sh":   OpRegistryUpload,
		"npm run deploy": OpRegistryUpload,
		"gh repo create": OpNone,
	}}}
	tests := []struct {
		name, cmd, op string
		known         bool
		dir           string
	}{
		{"the longest mapping wins", "make -j4 release", OpPublishRelease, true, wd},
		{"a shorter mapping applies to other targets", "make test", "", true, wd},
		{"a mapping matches after git -C", "git -C sub push origin main", OpPublishRelease, true, wd + "/sub"},
		{"a script path matches as written", "./release.sh --prod", OpRegistryUpload, true, wd},
		{"a mapping can upgrade a builtin that publishes nothing", "npm run deploy", OpRegistryUpload, true, wd},
		{"a mapping matches behind an option guard does not know", "npm --loglevel warn run deploy", OpRegistryUpload, true, wd},
		{"a mapping matches behind an unknown program's valued option", "make -j 4 release", OpPublishRelease, true, wd},
		{"a mapping matches behind a variable assignment", "make V=1 release", OpPublishRelease, true, wd},
		{"a mapping cannot weaken a builtin that publishes", "gh repo create x --public", OpVisibilityPublic, true, wd},
		{"an unmapped unknown stays unknown", "just ship", "", false, wd},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Classify(splitTestCommand(tc.cmd), wd, cfg)
			require.NoError(t, err)
			assert.Equal(t, tc.op, c.Op, c.Why)
			assert.Equal(t, tc.known, c.Known, c.Why)
			assert.Equal(t, tc.dir, c.ProjectDir)
		})
	}
}

func TestClassifyHintIsTheConfigLineThatWouldMapTheCommand(t *testing.T) {
	c, err := Classify([]string{"make", "release", "VERSION=1"}, wd, nil)
	require.NoError(t, err)
	require.False(t, c.Known)
	assert.Equal(t, "[publish.commands]\n\"make release\" = \"registry-upload\"\n# operations: registry-upload, publish-release, visibility-public, or \"none\" for a command that publishes nothing", c.ConfigHint())

	// The hint, pasted into .guard.toml, makes the command known.
	cfg := &guard.Config{}
	dir := t.TempDir()
	path := filepath.Join(dir, ".guard.toml")
	require.NoError(t, writeFile(path, c.ConfigHint()+"\n"))
	cfg, err = guard.LoadConfig(path)
	require.NoError(t, err)
	c2, err := Classify([]string{"make", "release", "VERSION=1"}, wd, cfg)
	require.NoError(t, err)
	assert.True(t, c2.Known)
	assert.Equal(t, OpRegistryUpload, c2.Op)
}

func TestClassifyRejectsARelativeDirectory(t *testing.T) {
	_, err := Classify([]string{"npm", "publish"}, "rel", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"rel" is not absolute`)
}

// splitTestCommand splits a command line on spaces, honouring single quotes.
func splitTestCommand(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote, has := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			inQuote = !inQuote
			has = true
		case r == ' ' && !inQuote:
			if has {
				out = append(out, cur.String())
				cur.Reset()
				has = false
			}
		default:
			cur.WriteRune(r)
			has = true
		}
	}
	if has {
		out = append(out, cur.String())
	}
	return out
}
