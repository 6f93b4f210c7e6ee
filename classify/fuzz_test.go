package classify

import (
	"strings"
	"testing"
)

// FuzzClassify: no command line makes the classifier panic or return a relative
// project directory.
func FuzzClassify(f *testing.F) {
	for _, seed := range []string{
		"npm publish", "npm publish --dry-run", "gh repo create x --public", "env -S", "env -C",
		"npx", "npx -c", "sudo -u", "python -m", "cargo publish --manifest-path", "gh api -X PATCH repos/o/r -f visibility=public",
		"goreleaser release --skip", "yarn workspace", "gh", "", "=", "A=b", "npm exec --", "mvn -f",
		"poetry run", "uv run --with", "hatch run x:", "lerna exec --", "pnpm recursive", "yarn workspaces foreach -j",
		"mise x --", "aws-vault exec", "direnv exec", "nix develop -c", "nix-shell --run", "xargs -n",
		"gh api -X", "gh api -iX", "gh api graphql -F query=@-", "gh api --input", "curl -d @", "gh release create v1 --help",
		"mvn -D", "mvn -Dmaven.deploy.skip", "./gradlew pTMC", "docker compose build --push", "ko build --push=",
		"skopeo copy oci:", "oras push r a:b", "npm publish ../x.tgz", "uv publish ../*/dist/*", "python -um",
		"npm run", "yarn", "pnpm x", "bun run",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := Classify(strings.Fields(line), "/w", nil)
		if err != nil {
			t.Fatalf("Classify(%q): %v", line, err)
		}
		if !strings.HasPrefix(c.ProjectDir, "/") {
			t.Fatalf("Classify(%q): project dir %q is not absolute", line, c.ProjectDir)
		}
		_ = c.ConfigHint()
	})
}

// publicSpellings are the ways of asking gh for public visibility; each is a
// command path and the words that ask for it.
var publicSpellings = []struct{ path, ask []string }{
	{[]string{"repo", "create"}, []string{"--public"}},
	{[]string{"repo", "create"}, []string{"--public=true"}},
	{[]string{"repo", "create"}, []string{"--visibility", "public"}},
	{[]string{"repo", "create"}, []string{"--visibility=public"}},
	{[]string{"repo", "create"}, []string{"--visibility=PUBLIC"}},
	{[]string{"repo", "new"}, []string{"--public"}},
	{[]string{"repo", "edit"}, []string{"--visibility", "public"}},
	{[]string{"repo", "edit"}, []string{"--visibility=public"}},
	{[]string{"repo", "edit"}, []string{"--visibility", "Public"}},
	{[]string{"repo", "edit"}, []string{"--visibility=PUBLIC"}},
	{[]string{"api"}, []string{"-f", "visibility=public"}},
	{[]string{"api"}, []string{"-F", "visibility=public"}},
	{[]string{"api"}, []string{"--field", "visibility=public"}},
	{[]string{"api"}, []string{"--raw-field", "visibility=public"}},
	{[]string{"api"}, []string{"--field=visibility=public"}},
	{[]string{"api"}, []string{"-fvisibility=public"}},
	{[]string{"api"}, []string{"-F", "private=false"}},
	{[]string{"api"}, []string{"-f", "private=false"}},
	{[]string{"api"}, []string{"--raw-field", "private=false"}},
}

// FuzzGhPublicNeverSlipsThrough: whatever words surround a public-visibility
// spelling of a gh command, and whatever wrapper runs it, the classifier says
// visibility-public: never "publishes nothing", never unknown.
func FuzzGhPublicNeverSlipsThrough(f *testing.F) {
	f.Add(uint8(0), uint8(0), "my-repo", "--clone")
	f.Add(uint8(6), uint8(1), "o/r", "--accept-visibility-change-consequences")
	f.Add(uint8(10), uint8(2), "-X PATCH repos/o/r", "-f name=x")
	f.Add(uint8(3), uint8(3), "--private", "-R")
	f.Add(uint8(16), uint8(4), "-- x", "--visibility private")
	f.Fuzz(func(t *testing.T, spelling, wrapper uint8, before, after string) {
		sp := publicSpellings[int(spelling)%len(publicSpellings)]
		wrappers := [][]string{nil, {"env", "GH_TOKEN=x"}, {"/usr/bin/env"}, {"sudo", "-E"}, {"command"}, {"GH_HOST=github.com"}, {"time"}}
		argv := append([]string{}, wrappers[int(wrapper)%len(wrappers)]...)
		argv = append(argv, "/usr/local/bin/gh")
		argv = append(argv, sp.path...)
		argv = append(argv, strings.Fields(before)...)
		argv = append(argv, sp.ask...)
		argv = append(argv, strings.Fields(after)...)
		c, err := Classify(argv, "/w", nil)
		if err != nil {
			t.Fatalf("Classify(%q): %v", argv, err)
		}
		if c.Op != OpVisibilityPublic || c.DryRun || !c.Known {
			t.Fatalf("Classify(%q) = op %q dry %v known %v (%s); want visibility-public", argv, c.Op, c.DryRun, c.Known, c.Why)
		}
	})
}

// FuzzNpmPublishIsGuarded: `npm publish` followed by any words that do not ask for a
// dry run is a guarded registry upload.
func FuzzNpmPublishIsGuarded(f *testing.F) {
	f.Add("--access public", "./pkg")
	f.Add("--tag next --otp 1", "--dry-run=false")
	f.Add("-- --dry-run", "")
	f.Fuzz(func(t *testing.T, a, b string) {
		words := append(append([]string{"npm", "publish"}, strings.Fields(a)...), strings.Fields(b)...)
		for _, w := range words[2:] {
			if strings.Contains(strings.ToLower(w), "dry") || w == "--help" || w == "-h" {
				return
			}
		}
		c, err := Classify(words, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Publishes() || c.Op != OpRegistryUpload {
			t.Fatalf("Classify(%q) = op %q dry %v (%s); want a guarded registry-upload", words, c.Op, c.DryRun, c.Why)
		}
	})
}

// runnerPrefixes are runners in front of a publisher, each with the point where
// options of its own may stand.
var runnerPrefixes = [][]string{
	{"poetry", "run"}, {"uv", "run"}, {"hatch", "run"}, {"pdm", "run"}, {"npx"}, {"npm", "exec"},
	{"pnpm", "exec"}, {"pnpm", "-r", "exec"}, {"pnpm", "dlx"}, {"yarn", "dlx"}, {"bunx"}, {"uvx"}, {"pipx", "run"},
	{"lerna", "exec"}, {"nx", "exec", "--"}, {"conda", "run"}, {"pixi", "run"}, {"op", "run", "--"},
	{"mise", "exec", "--"}, {"dotenv", "--"}, {"env-cmd"}, {"xargs"}, {"asdf", "exec"},
}

// publishers are commands that publish, in the form a runner starts them.
var publishers = [][]string{
	{"npm", "publish"}, {"twine", "upload", "dist/x.whl"}, {"cargo", "publish"}, {"gh", "release", "create", "v1"},
	{"semantic-release"}, {"mvn", "deploy"}, {"docker", "push", "img"}, {"./gradlew", "publish"},
	{"gh", "api", "repos/o/r/releases", "-f", "tag_name=v1"}, {"uv", "publish"}, {"gem", "push", "x.gem"},
}

// FuzzRunnersNeverHideAPublisher: whatever options guard does not know stand
// between a runner and a publisher (alone, with "=value", or before a value word),
// the command still publishes: no reading of them hides the publisher.
func FuzzRunnersNeverHideAPublisher(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte{0, 1, 2})
	f.Add(uint8(1), uint8(3), []byte{2, 2, 2, 2})
	f.Add(uint8(7), uint8(8), []byte{1, 0, 2, 0})
	f.Fuzz(func(t *testing.T, runner, publisher uint8, opts []byte) {
		if len(opts) > 12 {
			opts = opts[:12]
		}
		argv := append([]string{}, runnerPrefixes[int(runner)%len(runnerPrefixes)]...)
		if argv[len(argv)-1] != "--" {
			for i, o := range opts {
				name := "--zz" + string(rune('a'+i))
				switch o % 3 {
				case 0:
					argv = append(argv, name)
				case 1:
					argv = append(argv, name+"=v")
				case 2:
					argv = append(argv, name, "value"+string(rune('a'+i)))
				}
			}
		}
		argv = append(argv, publishers[int(publisher)%len(publishers)]...)
		c, err := Classify(argv, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Publishes() {
			t.Fatalf("Classify(%q) = op %q dry %v known %v (%s); want a guarded publication", argv, c.Op, c.DryRun, c.Known, c.Why)
		}
	})
}

// FuzzLastFlagWins: a sequence of --dry-run and --no-dry-run (and =true/=false)
// spellings is a dry run exactly when the last one sets it, as npm reads them.
func FuzzLastFlagWins(f *testing.F) {
	f.Add([]byte{0, 1})
	f.Add([]byte{1, 0, 3})
	f.Fuzz(func(t *testing.T, seq []byte) {
		spellings := []struct {
			word string
			set  bool
		}{{"--dry-run", true}, {"--no-dry-run", false}, {"--dry-run=true", true}, {"--dry-run=false", false}, {"--access=public", false}}
		argv := []string{"npm", "publish"}
		want := false
		for _, b := range seq {
			s := spellings[int(b)%len(spellings)]
			argv = append(argv, s.word)
			if s.word != "--access=public" {
				want = s.set
			}
		}
		c, err := Classify(argv, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Op != OpRegistryUpload || c.DryRun != want {
			t.Fatalf("Classify(%q) = op %q dry %v, want dry %v", argv, c.Op, c.DryRun, want)
		}
	})
}

// apiPublications are GitHub API calls that publish, each with the operation.
var apiPublications = []struct {
	argv []string
	op   string
}{
	{[]string{"gh", "api", "gists", "-F", "public=true"}, OpVisibilityPublic},
	{[]string{"gh", "api", "-X", "PATCH", "gists/abc", "-f", "files[a][content]=x"}, OpVisibilityPublic},
	{[]string{"gh", "api", "-X", "POST", "repos/o/r/pages"}, OpVisibilityPublic},
	{[]string{"gh", "api", "-X", "PUT", "repos/o/r/pages", "-F", "public=true"}, OpVisibilityPublic},
	{[]string{"gh", "api", "-X", "POST", "repos/o/r/pages/builds"}, OpVisibilityPublic},
	{[]string{"gh", "api", "-X", "POST", "user/packages/npm/p/restore"}, OpRegistryUpload},
	{[]string{"gh", "api", "-X", "PATCH", "repos/o/r/security-advisories/GHSA-1", "-f", "state=published"}, OpVisibilityPublic},
	{[]string{"gh", "api", "--method", "PATCH", "repos/o/r", "-F", "private=false"}, OpVisibilityPublic},
	{[]string{"http", "PATCH", "api.github.com/repos/o/r", "private:=false"}, OpVisibilityPublic},
	{[]string{"xh", "patch", "api.github.com/repos/o/r", "visibility=public"}, OpVisibilityPublic},
	{[]string{"https", "POST", "api.github.com/gists", "public:=true"}, OpVisibilityPublic},
	{[]string{"curl", "-X", "POST", "https://api.github.com/gists", "-d", `{"public":true}`}, OpVisibilityPublic},
}

// FuzzGitHubAPIPublicationsNeverSlipThrough: another field of any name and value
// added to a publishing GitHub API call (a -f field for gh api and curl's -d, an
// item for HTTPie and xh) never makes it publish nothing.
func FuzzGitHubAPIPublicationsNeverSlipThrough(f *testing.F) {
	f.Add(uint8(0), "description", "x")
	f.Add(uint8(8), "name", "public")
	f.Add(uint8(3), "source", "{}")
	f.Add(uint8(11), "files", "@x")
	f.Fuzz(func(t *testing.T, which uint8, key, value string) {
		call := apiPublications[int(which)%len(apiPublications)]
		key = strings.Map(func(r rune) rune {
			if 'a' <= r && r <= 'z' || r == '_' {
				return r
			}
			return -1
		}, strings.ToLower(key))
		// Fields that decide the verdict themselves are not "another field".
		for _, decisive := range []string{"private", "public", "visibility", "draft", "state"} {
			if strings.Contains(key, decisive) {
				return
			}
		}
		if key == "" || strings.ContainsAny(value, "\n\x00") {
			return
		}
		argv := append([]string{}, call.argv...)
		switch argv[0] {
		case "gh":
			argv = append(argv, "-f", key+"="+value)
		case "curl":
			argv = append(argv, "-d", key+"="+value)
		default:
			argv = append(argv, key+"="+value)
		}
		c, err := Classify(argv, "/w", nil)
		if err != nil {
			t.Fatalf("Classify(%q): %v", argv, err)
		}
		if c.Op != call.op || c.DryRun || !c.Known {
			t.Fatalf("Classify(%q) = op %q dry %v known %v (%s); want %s", argv, c.Op, c.DryRun, c.Known, c.Why, call.op)
		}
	})
}

// FuzzCargoReleaseGroupedExecute: a group of short flags holding -x, with no flag that
// takes a value before it, makes cargo release execute.
func FuzzCargoReleaseGroupedExecute(f *testing.F) {
	f.Add("v", "q")
	f.Add("", "vv")
	f.Fuzz(func(t *testing.T, before, after string) {
		keep := func(s string) string {
			return strings.Map(func(r rune) rune {
				if 'a' <= r && r <= 'z' && !strings.ContainsRune("pcx", r) || 'A' <= r && r <= 'Y' && r != 'Z' {
					return r
				}
				return -1
			}, s)
		}
		group := "-" + keep(before) + "x" + keep(after)
		argv := []string{"cargo", "release", group, "patch"}
		c, err := Classify(argv, "/w", nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Op != OpPublishRelease || c.DryRun {
			t.Fatalf("Classify(%q) = op %q dry %v (%s); want an executing release", argv, c.Op, c.DryRun, c.Why)
		}
	})
}
