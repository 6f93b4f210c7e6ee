package classify

import (
	"os"
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

func rel2(name, cmd string) classifyCase {
	return classifyCase{name: name, cmd: cmd, op: OpPublishRelease, known: true}
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
		// GitHub's REST endpoints that create or flip public content, as gh api,
		// curl, HTTPie and xh call them
		pub("gh api POST gists with public=true makes a public gist", "gh api gists -F public=true -f 'files[a.txt][content]=x'", vis),
		pub("gh api -X POST /gists with --field public=true", "gh api -X POST /gists --field public=true", vis),
		pub("gh api creating a gist from a body guard cannot read fails closed", "gh api gists --input gist.json", vis),
		none("gh api creating a secret gist publishes nothing (as gh gist create)", "gh api gists -f 'files[a.txt][content]=x'"),
		pub("gh api PATCH of a gist's files may change public content", "gh api -X PATCH gists/abc -f 'files[a.txt][content]=x'", vis),
		none("gh api reading a gist publishes nothing", "gh api gists/abc"),
		pub("gh api creating a Pages site publishes it", "gh api -X POST repos/o/r/pages -f 'source[branch]=main'", vis),
		pub("gh api updating a Pages site with public=true publishes it", "gh api -X PUT repos/o/r/pages -F public=true", vis),
		none("gh api making a Pages site private publishes nothing", "gh api -X PUT repos/o/r/pages -F public=false"),
		pub("gh api requesting a Pages build publishes the site", "gh api -X POST repos/o/r/pages/builds", vis),
		pub("gh api creating a Pages deployment publishes the site", "gh api repos/o/r/pages/deployments -f artifact_id=1", vis),
		none("gh api deleting a Pages site publishes nothing", "gh api -X DELETE repos/o/r/pages"),
		pub("gh api restoring a deleted package publishes it again", "gh api -X POST user/packages/npm/p/restore", up),
		pub("gh api restoring an org package version publishes it again", "gh api -X POST orgs/o/packages/container/p/versions/1/restore", up),
		pub("gh api publishing a security advisory", "gh api -X PATCH repos/o/r/security-advisories/GHSA-1 -f state=published", vis),
		none("gh api editing a draft advisory publishes nothing", "gh api -X PATCH repos/o/r/security-advisories/GHSA-1 -f summary=x"),
		pub("gh api --method PATCH with private=false", "gh api --method PATCH repos/o/r --field private=false", vis),
		pub("gh api graphql createRepository with the visibility in a variable field", `gh api graphql -f query='mutation($i: CreateRepositoryInput!) { createRepository(input: $i) { repository { id } } }' -F 'i[visibility]=PUBLIC'`, vis),
		pub("gh api graphql with the query in a file guard cannot read fails closed", "gh api graphql --input q.json", vis),
		pub("HTTPie PATCH private:=false makes a repository public", "http PATCH api.github.com/repos/o/r private:=false", vis),
		pub("HTTPie's https PATCH private:=false makes a repository public", "https PATCH api.github.com/repos/o/r private:=false", vis),
		pub("xh patch (lower case) private:=false makes a repository public", "xh patch api.github.com/repos/o/r private:=false", vis),
		pub("HTTPie with auth options before the method", "http -A bearer -a tok PATCH api.github.com/repos/o/r private:=false", vis),
		pub("HTTPie visibility=public with a scheme", "http PATCH https://api.github.com/repos/o/r visibility=public", vis),
		pub("HTTPie POST gists public:=true makes a public gist", "http POST api.github.com/gists public:=true 'files:={}'", vis),
		pub("HTTPie PATCH with the body on standard input fails closed", "http PATCH api.github.com/repos/o/r", vis),
		pub("HTTPie PATCH with the body from a file guard cannot read fails closed", "http --ignore-stdin PATCH api.github.com/repos/o/r @/nonexistent/body.json", vis),
		unknown("HTTPie --ignore-stdin PATCH with no body sends none: nothing known is published", "http --ignore-stdin PATCH api.github.com/repos/o/r"),
		dry("HTTPie --offline only prints the request", "http --offline PATCH api.github.com/repos/o/r private:=false", vis),
		unknown("HTTPie PATCH of the description is, like any HTTP call that publishes nothing known, unknown", "http PATCH api.github.com/repos/o/r description=x"),
		pub("curl POST gists with public true makes a public gist", `curl -X POST https://api.github.com/gists -d '{"public": true, "files": {}}'`, vis),
		pub("curl creating a Pages site publishes it", "curl -XPOST https://api.github.com/repos/o/r/pages", vis),
		pub("curl PATCHing GitHub's API to public makes a repository public", `curl -X PATCH -H 'Authorization: token x' https://api.github.com/repos/o/r -d '{"private":false}'`, vis),
		pub("curl to GitHub's GraphQL with visibility PUBLIC makes a repository public", `curl https://api.github.com/graphql -d '{"query":"mutation{updateRepository(input:{visibility:PUBLIC})}"}'`, vis),
		unknown("curl elsewhere is unknown", "curl -X POST https://example.com/upload -d private=false"),
		// flags as the tools read them: the last occurrence wins
		pub("npm publish --dry-run --no-dry-run publishes", "npm publish --dry-run --no-dry-run", up),
		pub("npm publish --dry-run --dry-run=false publishes", "npm publish --dry-run --dry-run=false", up),
		dry("npm publish --no-dry-run --dry-run rehearses", "npm publish --no-dry-run --dry-run", up),
		pub("-Dmaven.deploy.skip=true then =false deploys", "mvn deploy -Dmaven.deploy.skip=true -Dmaven.deploy.skip=false", up),
		dry("-Dmaven.deploy.skip=false then =true skips", "mvn deploy -Dmaven.deploy.skip=false -Dmaven.deploy.skip=true", up),
		dry("-D maven.deploy.skip=true as two words skips", "mvn -D maven.deploy.skip=true deploy", up),
		dry("-Dmaven.deploy.skip alone skips", "mvn deploy -Dmaven.deploy.skip", up),
		pub("-Dmaven.deploy.skip=yes deploys (Maven reads only true)", "mvn deploy -Dmaven.deploy.skip=yes", up),
		pub("-DdryRun=true then =false performs the release", "mvn release:perform -DdryRun=true -DdryRun=false", rel),
		dry("-DdryRun=true rehearses release:perform", "mvn release:perform -DdryRun=true", rel),
		pub("cargo publish --dry-run=false uploads", "cargo publish --dry-run=false", up),
		pub("semantic-release -d --no-dry-run releases", "semantic-release -d --no-dry-run", rel),
		pub("goreleaser --snapshot=false releases", "goreleaser release --snapshot=false", rel),
		pub("cargo release --execute --no-execute still counts as executing", "cargo release --execute --no-execute", rel),
		pub("cargo release -vx executes (grouped short flags)", "cargo release -vx", rel),
		pub("cargo release -xv patch executes", "cargo release -xv patch", rel),
		dry("cargo release -v rehearses", "cargo release -v", rel),
		dry("cargo release -pxyz names a package xyz and rehearses", "cargo release -pxyz", rel),
		dry("cargo release -vp x names a package x and rehearses", "cargo release -vp x patch", rel),
		pub("gh gist create -wp makes a public gist (grouped short flags)", "gh gist create -wp notes.md", vis),
		none("gh gist create -dp gives the description p", "gh gist create -dp notes.md"),
		pub("gh api with grouped short options and the method last", "gh api -iXPATCH repos/o/r/releases/1 -F draft=false", rel),
		pub("gh api -X GET then -X POST creates a release (the last -X wins)", "gh api -X GET -X POST repos/o/r/releases -f tag_name=v1", rel),
		none("gh api -X POST then -X GET reads", "gh api -X POST -X GET repos/o/r/releases -f per_page=5"),
		// runners
		pub("poetry run twine upload uploads", "poetry run twine upload dist/*", up),
		pubIn("poetry -C folder run twine upload acts on the folder", "poetry -C lib run twine upload dist/x.whl", up, "lib"),
		pub("uv run twine upload uploads", "uv run twine upload dist/*", up),
		pub("uv run with its own options uploads", "uv run --with twine --python 3.12 --frozen twine upload dist/*", up),
		pub("uv run -- twine upload uploads", "uv run -- twine upload dist/*", up),
		pub("uv run -m twine upload uploads", "uv run -m twine upload dist/*", up),
		pub("uv run behind an option guard does not know uploads", "uv run --some-new-option value twine upload dist/*", up),
		pub("uv tool run twine upload uploads", "uv tool run twine upload dist/*", up),
		pub("hatch run twine upload uploads", "hatch run twine upload dist/*", up),
		pub("hatch run env:twine upload uploads", "hatch run release:twine upload dist/*", up),
		pub("hatch -e release run hatch publish uploads", "hatch -e release run hatch publish", up),
		pub("pdm run twine upload uploads", "pdm run twine upload dist/*", up),
		pub("pipenv run twine upload uploads", "pipenv run twine upload dist/*", up),
		pub("rye run twine upload uploads", "rye run twine upload dist/*", up),
		pub("conda run -n env twine upload uploads", "conda run -n build twine upload dist/*", up),
		pub("pixi run twine upload uploads", "pixi run twine upload dist/*", up),
		pub("python -um twine upload uploads", "python3 -um twine upload dist/*", up),
		pub("lerna exec -- npm publish uploads", "lerna exec --scope @o/a --concurrency 1 -- npm publish", up),
		pub("lerna exec without -- uploads", "lerna exec npm publish", up),
		pub("nx exec -- npm publish uploads", "nx exec -- npm publish", up),
		pub("pnpm recursive publish uploads", "pnpm recursive publish", up),
		pub("pnpm m publish uploads", "pnpm m publish --access public", up),
		pub("pnpm -r publish uploads", "pnpm -r publish", up),
		pub("pnpm recursive exec npm publish uploads", "pnpm recursive exec npm publish", up),
		pub("pnpm -r exec -- npm publish uploads", "pnpm -r exec -- npm publish", up),
		pub("yarn workspaces foreach npm publish uploads", "yarn workspaces foreach -A --topological npm publish --tolerate-republish", up),
		pub("yarn workspaces foreach with valued options uploads", "yarn workspaces foreach --include @o/a --exclude @o/b -j 2 npm publish", up),
		pub("yarn workspaces foreach with an option guard does not know uploads", "yarn workspaces foreach --since main npm publish", up),
		pub("yarn workspaces foreach exec npm publish uploads", "yarn workspaces foreach -A exec npm publish", up),
		pub("yarn workspace NAME npm publish uploads", "yarn workspace @o/a npm publish", up),
		pub("yarn runs an installed publisher", "yarn semantic-release", rel),
		pub("pnpm runs an installed publisher", "pnpm changeset publish", up),
		pub("bun run runs an installed publisher", "bun run semantic-release", rel),
		none("yarn build publishes nothing", "yarn build"),
		none("pnpm lint publishes nothing", "pnpm lint"),
		pub("mise exec -- npm publish uploads", "mise exec node@20 -- npm publish", up),
		pub("mise x without -- still reads the command", "mise x node@20 npm publish", up),
		pub("op run -- npm publish uploads", "op run --env-file .env -- npm publish", up),
		pub("doppler run --command reads the string", "doppler run --command 'npm publish'", up),
		pub("aws-vault exec PROFILE -- mvn deploy uploads", "aws-vault exec prod -- mvn deploy", up),
		pub("dotenv -- npm publish uploads", "dotenv -e .env.prod -- npm publish", up),
		pub("cross-env NAME=v npm publish uploads", "cross-env NODE_ENV=production npm publish", up),
		pub("env-cmd -f file npm publish uploads", "env-cmd -f .env npm publish", up),
		pub("nix develop -c npm publish uploads", "nix develop .#ci -c npm publish", up),
		pub("nix-shell --run reads the string", "nix-shell --run 'cargo publish'", up),
		pub("asdf exec cargo publish uploads", "asdf exec cargo publish", up),
		pubIn("direnv exec DIR runs in DIR", "direnv exec sub npm publish", up, "sub"),
		pub("xargs npm publish uploads", "xargs -n 1 npm publish", up),
		pub("npx with an option guard does not know still runs the publisher", "npx --node-options x np", rel),
		unknown("poetry run of an unknown program is unknown", "poetry run ./release.sh"),
		unknown("uv run of an unknown program is unknown", "uv run scripts/release.py"),
		// publishers
		pub("docker compose build --push uploads", "docker compose build --push", up),
		pub("docker compose -f file build --push uploads", "docker compose -f compose.prod.yml build --push api", up),
		pub("docker-compose build --push uploads", "docker-compose build --push", up),
		pub("docker compose publish uploads", "docker compose publish o/app:1", up),
		none("docker compose build publishes nothing", "docker compose build"),
		none("docker compose build --push=false publishes nothing", "docker compose build --push=false"),
		pub("docker build --push uploads", "docker build --push -t ghcr.io/o/app .", up),
		pub("docker buildx bake --push uploads", "docker buildx bake --push", up),
		pub("docker buildx bake --set *.output=type=registry uploads", "docker buildx bake --set *.output=type=registry", up),
		pub("docker trust sign uploads", "docker trust sign ghcr.io/o/app:1", up),
		pub("podman manifest push uploads", "podman manifest push list docker://quay.io/o/app", up),
		pub("buildah push uploads", "buildah push quay.io/o/app", up),
		pub("gradle publishToMavenCentral uploads", "gradle publishToMavenCentral", up),
		pub("gradle closeAndReleaseRepository uploads", "./gradlew publishToSonatype closeAndReleaseSonatypeStagingRepository", up),
		pub("gradle closeAndReleaseRepository alone uploads", "./gradlew closeAndReleaseRepository", up),
		pub("gradle abbreviated publishToMavenCentral uploads", "./gradlew pTMC", up),
		pub("gradle abbreviated publish uploads", "./gradlew pub", up),
		pub("gradle abbreviated closeAndReleaseRepository uploads", "./gradlew cARR", up),
		pub("gradle jib uploads", "./gradlew jib", up),
		pub("gradle bootBuildImage --publishImage uploads", "./gradlew bootBuildImage --publishImage", up),
		pub("gradle artifactoryPublish uploads", "./gradlew artifactoryPublish", up),
		none("gradle jibDockerBuild publishes nothing", "./gradlew jibDockerBuild"),
		none("gradle -x publish build publishes nothing", "./gradlew build -x publish"),
		none("gradle clean publishes nothing", "./gradlew clean check"),
		pub("mvn jib:build uploads", "mvn compile jib:build", up),
		pub("mvn jib:build with the full plugin name uploads", "mvn com.google.cloud.tools:jib-maven-plugin:3.4.0:build", up),
		dry("mvn jib:build -Djib.skip=true rehearses", "mvn jib:build -Djib.skip=true", up),
		pub("mvn deploy with deploy skipped still pushes with jib:build", "mvn deploy jib:build -Dmaven.deploy.skip=true", up),
		pub("mvn dockerfile:push uploads", "mvn dockerfile:push", up),
		pub("mvn nexus-staging:release uploads", "mvn nexus-staging:release", up),
		pub("mvn central-publishing:publish uploads", "mvn central-publishing:publish", up),
		pub("mvn gpg:sign-and-deploy-file uploads", "mvn gpg:sign-and-deploy-file -Dfile=x.jar", up),
		pub("mvn deploy:deploy-file uploads", "mvn deploy:deploy-file -Dfile=x.jar -Durl=https://r", up),
		pub("mvn with the full deploy plugin name uploads", "mvn org.apache.maven.plugins:maven-deploy-plugin:3.1.1:deploy", up),
		pub("mvn package with quarkus push uploads", "mvn package -Dquarkus.container-image.push=true", up),
		rel2("mvn jreleaser:full-release releases", "mvn jreleaser:full-release"),
		none("mvn jib:dockerBuild publishes nothing", "mvn jib:dockerBuild"),
		pub("sbt publishSigned uploads", "sbt +publishSigned", up),
		pub("sbt with several commands in one argument uploads", "sbt 'clean; core/publish'", up),
		pub("sbt ci-release uploads", "sbt ci-release", up),
		none("sbt publishLocal publishes nothing", "sbt publishLocal"),
		pub("lein deploy uploads", "lein deploy clojars", up),
		pub("helm push uploads", "helm push chart.tgz oci://r", up),
		pub("helm cm-push uploads", "helm cm-push ./chart repo", up),
		pub("ko build uploads", "ko build ./cmd/app", up),
		pub("ko publish uploads", "ko publish ./cmd/app", up),
		pub("ko resolve uploads", "ko resolve -f config/", up),
		pub("ko apply uploads", "ko apply -f config/", up),
		dry("ko build --local keeps the image local", "ko build --local ./cmd/app", up),
		dry("ko build --push=false keeps the image local", "ko build --push=false ./cmd/app", up),
		pub("ko build --push=false --push pushes", "ko build --push=false --push ./cmd/app", up),
		pub("crane push uploads", "crane push image.tar ghcr.io/o/app", up),
		pub("crane copy uploads", "crane copy a b", up),
		none("crane digest publishes nothing", "crane digest ghcr.io/o/app"),
		pub("skopeo copy to a registry uploads", "skopeo copy docker-archive:img.tar docker://ghcr.io/o/app", up),
		none("skopeo copy into a folder publishes nothing", "skopeo copy docker://ghcr.io/o/app dir:/tmp/app"),
		pub("oras push uploads", "oras push ghcr.io/o/art:1 file.txt:text/plain", up),
		pub("jib build uploads", "jib build --target ghcr.io/o/app", up),
		none("jib build into the local daemon publishes nothing", "jib build --target docker://app"),
		pub("goreleaser publish publishes a prepared release", "goreleaser publish", rel),
		pub("goreleaser continue publishes", "goreleaser continue --merge", rel),
		dry("goreleaser release --prepare publishes nothing", "goreleaser release --prepare", rel),
		pub("cargo publish uploads (still)", "cargo publish -p x", up),
		pub("dotnet nuget push uploads (still)", "dotnet nuget push x.nupkg", up),
		pub("gem push uploads (still)", "gem push x.gem", up),
		pub("uv publish uploads (still)", "uv publish dist/*", up),
		pub("twine upload uploads (still)", "twine upload dist/*", up),
		pub("twine register uploads", "twine register dist/x.whl", up),
		pub("flit publish uploads (still)", "flit publish", up),
		pub("hatch publish uploads (still)", "hatch publish dist/*", up),
		pub("rye publish uploads", "rye publish", up),
		pub("maturin upload uploads", "maturin upload target/wheels/*", up),
		pub("python setup.py sdist upload uploads", "python setup.py sdist upload", up),
		pub("nuget push uploads", "nuget push x.nupkg -Source https://r", up),
		pub("choco push uploads", "choco push x.nupkg", up),
		pub("dart pub publish uploads", "dart pub publish --force", up),
		dry("dart pub publish -n rehearses", "dart pub publish -n", up),
		pub("flutter pub publish uploads", "flutter pub publish", up),
		pub("mix hex.publish uploads", "mix hex.publish --yes", up),
		dry("mix hex.publish --dry-run rehearses", "mix hex.publish --dry-run", up),
		pub("rebar3 hex publish uploads", "rebar3 hex publish", up),
		pub("pod trunk push uploads", "pod trunk push x.podspec", up),
		pub("swift package-registry publish uploads", "swift package-registry publish o.x 1.0.0", up),
		pub("conan upload uploads", "conan upload 'x/*' -r remote", up),
		// A word after an option that takes a value is that value, --dry-run included:
		// each tool would read a token, a URL or a remote there and upload.
		pub("jsr publish --token --dry-run uploads (the token is --dry-run)", "jsr publish --token --dry-run", up),
		dry("jsr publish --dry-run rehearses", "jsr publish --dry-run", up),
		pub("vsce publish -p --dry-run uploads (the token is --dry-run)", "vsce publish -p --dry-run", up),
		pub("deno publish --config --dry-run uploads", "deno publish --config --dry-run", up),
		pub("swift package-registry publish --url --dry-run uploads", "swift package-registry publish o.x 1.0.0 --url --dry-run", up),
		dry("swift package-registry publish --dry-run rehearses", "swift package-registry publish o.x 1.0.0 --dry-run", up),
		pub("conan upload -r --dry-run uploads (the remote is --dry-run)", "conan upload 'x/*' -r --dry-run", up),
		dry("conan upload -c --dry-run rehearses (-c takes no value)", "conan upload 'x/*' -c --dry-run", up),
		pub("mix hex.publish --organization --dry-run uploads", "mix hex.publish --organization --dry-run", up),
		dry("mix hex.publish --replace --dry-run rehearses (--replace takes no value)", "mix hex.publish --replace --dry-run", up),
		rel2("np --message --preview releases (the message is --preview)", "np --message --preview"),
		none("a gradle task name that is not UTF-8 publishes nothing (and does not crash)", "gradle \x83"),
		none("a gradle task name of one accented letter publishes nothing", "gradle é"),
		pub("cabal upload uploads", "cabal upload dist-newstyle/sdist/x.tar.gz", up),
		pub("anaconda upload uploads", "anaconda upload x.tar.bz2", up),
		pub("nx release publishes", "nx release --yes", up),
		pub("nx release publish uploads", "nx release publish", up),
		dry("nx release --dry-run rehearses", "nx release -d", up),
		none("nx release version publishes nothing", "nx release version"),
		pub("nx run-many -t publish runs a publish target", "nx run-many -t publish", up),
		none("nx build publishes nothing", "nx build app"),
		dry("rush publish without --publish rehearses", "rush publish", up),
		pub("rush publish --publish uploads", "rush publish --publish", up),
		pub("rush publish --pack --publish uploads (--pack takes no value)", "rush publish --include-all --pack --publish", up),
		dry("rush publish --tag --publish rehearses (the tag is --publish)", "rush publish --tag --publish", up),
		pub("auto shipit releases", "auto shipit", rel),
		pub("release-please github-release releases", "release-please github-release --token x", rel),
		none("release-please release-pr publishes nothing", "release-please release-pr"),
		pub("pkg-pr-new publish uploads", "pkg-pr-new publish './packages/*'", up),
		pub("glab release create releases", "glab release create v1", rel),
		pub("tea release create releases", "tea releases create --tag v1", rel),
		pub("hub release create releases", "hub release create v1", rel),
		pub("hub create makes a public repository", "hub create", vis),
		none("hub create -p makes a private one", "hub create -p"),
		pub("glab repo create --public makes a public project", "glab repo create x --public", vis),
		pub("ghr releases", "ghr v1 dist/", rel),
		// gh api by method, endpoint and body
		pub("gh api creating a release", "gh api repos/o/r/releases -f tag_name=v1", rel),
		pub("gh api creating a release with -X POST", "gh api -X POST /repos/{owner}/{repo}/releases -F tag_name=v1 -F draft=true", rel),
		pub("gh api creating a release from a full URL", "gh api --method POST https://api.github.com/repos/o/r/releases --input -", rel),
		pub("gh api un-drafting a release", "gh api -X PATCH repos/o/r/releases/1 -F draft=false", rel),
		pub("gh api un-drafting a release with --method=PATCH", "gh api --method=PATCH repos/o/r/releases/1 --raw-field draft=false", rel),
		none("gh api editing a release's notes publishes nothing", "gh api -X PATCH repos/o/r/releases/1 -f body=notes"),
		pub("gh api uploading a release asset", "gh api -X POST https://uploads.github.com/repos/o/r/releases/1/assets?name=x.zip --input x.zip", rel),
		none("gh api generating release notes publishes nothing", "gh api repos/o/r/releases/generate-notes -f tag_name=v1"),
		none("gh api deleting a release publishes nothing", "gh api -X DELETE repos/o/r/releases/1"),
		none("gh api listing releases publishes nothing", "gh api repos/o/r/releases"),
		pub("gh api PATCH visibility=public", "gh api -X PATCH repos/o/r -f visibility=public", vis),
		pub("gh api visibility from stdin fails closed", "gh api -X PATCH repos/o/r -F visibility=@-", vis),
		pub("gh api visibility from a missing file fails closed", "gh api -X PATCH repos/o/r -F visibility=@/nonexistent/v.txt", vis),
		pub("gh api graphql from stdin fails closed", "gh api graphql -F query=@-", vis),
		pub("gh api graphql from a missing file fails closed", "gh api graphql -F query=@/nonexistent/mutation.graphql", vis),
		pub("gh api graphql mutation with a visibility variable", `gh api graphql -f query='mutation($v: RepositoryVisibility!) { createRepository(input: {name: "x", visibility: $v}) { repository { id } } }' -f v=PUBLIC`, vis),
		none("gh api graphql query publishes nothing", "gh api graphql -f query='query { viewer { login } }'"),
		none("gh api graphql mutation adding a comment publishes nothing", `gh api graphql -f query='mutation { addComment(input: {subjectId: "x", body: "hi"}) { clientMutationId } }'`),
		none("gh api PATCH a repository description publishes nothing", "gh api -X PATCH repos/o/r -f description=x"),
		pub("gh api PATCH a repository with a body from stdin fails closed", "gh api -X PATCH repos/o/r --input -", vis),
		pub("curl creating a release", "curl -X POST -H 'Authorization: token x' https://api.github.com/repos/o/r/releases -d '{\"tag_name\":\"v1\"}'", rel),
		pub("curl with data and no -X creates a release", "curl https://api.github.com/repos/o/r/releases -d @/nonexistent/release.json", rel),
		unknown("curl reading releases is not known to publish", "curl https://api.github.com/repos/o/r/releases"),
		// --help publishes nothing
		none("gh release create --help publishes nothing", "gh release create --help"),
		none("npm publish --help publishes nothing", "npm publish --help"),
		none("npm publish -h publishes nothing", "npm publish -h"),
		none("cargo publish --help publishes nothing", "cargo publish --help"),
		none("twine upload --help publishes nothing", "twine upload --help"),
		none("docker push --help publishes nothing", "docker push --help"),
		none("npx semantic-release --help publishes nothing", "npx semantic-release --help"),
		none("poetry run twine upload --help publishes nothing", "poetry run twine upload --help"),
		pub("gh release create --notes --help makes a release with the notes --help", "gh release create v1 --notes --help", rel),
		pub("gh repo edit -h is --homepage, not help", "gh repo edit -h https://x --visibility public", vis),
		pub("npm publish -- --help publishes", "npm publish -- --help", up),
		pub("lein deploy --help is not known to be help: it publishes", "lein deploy --help", up),
		none("mvn deploy --help publishes nothing", "mvn deploy --help"),
		none("gradle publish --help publishes nothing", "./gradlew publish --help"),
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

func TestClassifyReadsRequestBodiesFromFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"public.txt":        "public\n",
		"private.txt":       "private\n",
		"create.graphql":    `mutation { createRepository(input: {name: "x", visibility: PUBLIC}) { repository { url } } }`,
		"query.graphql":     `query { viewer { repositories(first: 5) { nodes { name } } } }`,
		"comment.graphql":   `mutation { addComment(input: {subjectId: "I_1", body: "thanks"}) { clientMutationId } }`,
		"release.graphql":   `mutation { updateRelease(input: {id: "R_1", isDraft: false}) { release { url } } }`,
		"unhide.json":       `{"private": false}`,
		"describe.json":     `{"description": "internal tools"}`,
		"undraft.json":      `{"draft": false}`,
		"false.json":        `false`,
		"public-gist.json":  `{"public": true, "files": {"a.txt": {"content": "x"}}}`,
		"secret-gist.json":  `{"public": false, "files": {"a.txt": {"content": "x"}}}`,
		"notes.json":        `{"body": "more notes"}`,
		"graphql-body.json": `{"query": "mutation { createRepository(input: {name: \"x\", visibility: PUBLIC}) { repository { url } } }"}`,
		"empty.txt":         "",
		"huge.json":         `{"description": "` + strings.Repeat("x", 2<<20) + `"}`,
	}
	for name, content := range files {
		require.NoError(t, writeFile(filepath.Join(dir, name), content))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "a-folder"), 0o755))
	const up, rel, vis = OpRegistryUpload, OpPublishRelease, OpVisibilityPublic
	cases := []struct{ name, cmd, op string }{
		{"visibility read from a file that says public", "gh api -X PATCH repos/o/r -F visibility=@public.txt", vis},
		{"visibility read from a file that says private", "gh api -X PATCH repos/o/r -F visibility=@private.txt", ""},
		{"visibility from a file with an absolute path", "gh api -X PATCH repos/o/r -F visibility=@" + filepath.Join(dir, "public.txt"), vis},
		{"visibility from a folder cannot be read: fail closed", "gh api -X PATCH repos/o/r -F visibility=@a-folder", vis},
		{"visibility from a file over the size limit: fail closed", "gh api -X PATCH repos/o/r -F visibility=@huge.json", vis},
		{"-f sends @file as text and reads nothing", "gh api -X PATCH repos/o/r -f description=@public.txt", ""},
		{"a graphql mutation from a file making a public repository", "gh api graphql -F query=@create.graphql", vis},
		{"a graphql query from a file", "gh api graphql -F query=@query.graphql", ""},
		{"a graphql mutation from a file adding a comment", "gh api graphql -F query=@comment.graphql", ""},
		{"a graphql mutation from a file about a release", "gh api graphql -F query=@release.graphql", rel},
		{"a graphql body from --input", "gh api graphql --input graphql-body.json", vis},
		{"--input that makes a repository public", "gh api -X PATCH repos/o/r --input unhide.json", vis},
		{"--input that changes a description", "gh api -X PATCH repos/o/r --input describe.json", ""},
		{"--input that un-drafts a release", "gh api -X PATCH repos/o/r/releases/1 --input undraft.json", rel},
		{"--input that edits release notes", "gh api -X PATCH repos/o/r/releases/1 --input notes.json", ""},
		{"--input that is missing: fail closed", "gh api -X PATCH repos/o/r/releases/1 --input missing.json", rel},
		{"--input from standard input on a repository: fail closed", "gh api -X PATCH repos/o/r --input -", vis},
		{"an empty --input body", "gh api -X PATCH repos/o/r --input empty.txt", ""},
		{"a device file cannot be read: fail closed", "gh api graphql -F query=@/dev/stdin", vis},
		{"a kernel file cannot be read: fail closed", "gh api graphql -F query=@/proc/self/status", vis},
		{"curl with a body file that makes a repository public", "curl -X PATCH https://api.github.com/repos/o/r -d @unhide.json", vis},
		{"curl with a body file that un-drafts a release", "curl -X PATCH https://api.github.com/repos/o/r/releases/1 --data-binary @undraft.json", rel},
		{"curl with a body file that cannot be read: fail closed", "curl -X PATCH https://api.github.com/repos/o/r/releases/1 -d @missing.json", rel},
		{"HTTPie with a field read from a file that makes a repository public", "http PATCH api.github.com/repos/o/r private:=@false.json", vis},
		{"HTTPie with the whole body from a file that makes a repository public", "http --ignore-stdin PATCH api.github.com/repos/o/r @unhide.json", vis},
		{"HTTPie with the whole body from a file that changes a description", "http --ignore-stdin PATCH api.github.com/repos/o/r @describe.json", ""},
		{"a gist body from --input that makes it public", "gh api gists --input public-gist.json", vis},
		{"a gist body from --input that keeps it secret", "gh api gists --input secret-gist.json", ""},
		{"twine as a control", "twine upload x.whl", up},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Classify(splitTestCommand(tc.cmd), dir, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.op, c.Op, c.Why)
			assert.False(t, c.DryRun, c.Why)
		})
	}
}

func TestClassifyReadsPackageScripts(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, writeFile(filepath.Join(dir, "package.json"), `{"name": "x", "scripts": {
		"release": "npm run build && npm publish --access public",
		"build": "tsc -p .",
		"ship": "np --no-tests",
		"prerelease-dry": "echo",
		"release-dry": "npm publish --dry-run",
		"deploy": "echo deploying",
		"postdeploy": "semantic-release",
		"test": "jest && changeset publish",
		"both": "npm publish --dry-run && npm publish"
	}}`))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	const up, rel = OpRegistryUpload, OpPublishRelease
	cases := []struct {
		name, cmd, op string
		dry           bool
	}{
		{"npm run of a script that publishes", "npm run release", up, false},
		{"npm run-script of a script that publishes", "npm run-script release", up, false},
		{"npm run of a build script publishes nothing", "npm run build", "", false},
		{"npm run of a script that rehearses", "npm run release-dry", up, true},
		{"a post script that publishes counts", "npm run deploy", rel, false},
		{"npm test runs the test script", "npm test", up, false},
		{"a script that rehearses and then publishes publishes", "npm run both", up, false},
		{"yarn X runs the script X", "yarn ship", rel, false},
		{"pnpm run X runs the script X", "pnpm run release", up, false},
		{"bun run X runs the script X", "bun run release", up, false},
		{"the script of the package above the working directory", "npm run release", up, false},
		{"yarn of a script that does not publish publishes nothing", "yarn build", "", false},
		{"yarn of an unknown word publishes nothing", "yarn lint", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := dir
			if strings.Contains(tc.name, "above") {
				in = filepath.Join(dir, "src")
			}
			c, err := Classify(splitTestCommand(tc.cmd), in, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.op, c.Op, c.Why)
			assert.Equal(t, tc.dry, c.DryRun, c.Why)
			assert.True(t, c.Known, c.Why)
		})
	}
}

func TestClassifyMapsARunnersOwnWords(t *testing.T) {
	cfg := &guard.Config{Publish: guard.PublishConfig{Commands: map[string]string{
		"poetry run release": OpPublishRelease,
		"jest":               OpNone,
	}}}
	c, err := Classify([]string{"poetry", "run", "release", "--prod"}, wd, cfg)
	require.NoError(t, err)
	assert.Equal(t, OpPublishRelease, c.Op, c.Why)
	c, err = Classify([]string{"npx", "jest", "--ci"}, wd, cfg)
	require.NoError(t, err)
	assert.True(t, c.Known, c.Why)
	assert.Equal(t, "", c.Op, c.Why)
	c, err = Classify([]string{"npx", "jest", "--ci"}, wd, nil)
	require.NoError(t, err)
	assert.False(t, c.Known, "without the mapping, what npx runs is unknown: %s", c.Why)
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
