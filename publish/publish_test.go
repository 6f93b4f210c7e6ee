package publish

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guardlocks/guard/classify"
	"github.com/guardlocks/guard/cmd/guard/exitcode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

var testNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.Local)

// world is a temporary project with stand-in npm and gh executables on PATH that
// append "<name> <args>" to a record file, so tests can see whether and in which
// order things ran.
type world struct {
	t       *testing.T
	root    string // the project folder (under a parent that can hold markers)
	bin     string
	record  string
	environ []string
	stdout  *bytes.Buffer
	stderr  *bytes.Buffer
}

func newWorld(t *testing.T) *world {
	t.Helper()
	base := t.TempDir()
	w := &world{t: t, root: filepath.Join(base, "org", "pkg"), bin: filepath.Join(base, "bin"), record: filepath.Join(base, "record")}
	require.NoError(t, os.MkdirAll(w.root, 0o755))
	require.NoError(t, os.MkdirAll(w.bin, 0o755))
	for _, name := range []string{"npm", "gh"} {
		w.standIn(name, `echo "`+name+` $*" >> "$RECORD"; exit "${STANDIN_EXIT:-0}"`)
	}
	w.environ = []string{"PATH=" + w.bin + ":" + testenv.Path(), "RECORD=" + w.record, "HOME=" + base,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x"}
	return w
}

func (w *world) standIn(name, body string) {
	w.t.Helper()
	require.NoError(w.t, os.WriteFile(filepath.Join(w.bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755))
}

func (w *world) write(rel, content string) {
	w.t.Helper()
	p := filepath.Join(w.root, rel)
	require.NoError(w.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(w.t, os.WriteFile(p, []byte(content), 0o644))
}

func (w *world) env(stdin string) *guard.Env {
	e := envtest.New(envtest.Stdin(stdin), envtest.At(testNow), envtest.Identity("bob", "hostA"), envtest.Dir(w.root))
	w.stdout, w.stderr = e.Out, e.Err
	return e.Env
}

// publish runs guard publish with the given options and returns its exit code.
func (w *world) publish(o PublishOptions, args ...string) int {
	w.t.Helper()
	if o.Env == nil {
		o.Env = w.env("")
	}
	o.Identity = guard.Identity{Owner: "bob", Host: "hostA"}
	o.Args = args
	o.Env.Environ = w.environ
	err := RunPublish(o)
	var oe *guard.OutcomeError
	if err != nil && errors.As(err, &oe) && oe.Err != nil {
		w.stderr.WriteString("guard: " + oe.Err.Error() + "\n")
	}
	return exitcode.Of(err)
}

// ran is the record of what ran, one line each.
func (w *world) ran() []string {
	data, err := os.ReadFile(w.record)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(w.t, err)
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

func (w *world) git(args ...string) {
	w.t.Helper()
	guardtest.Git(w.t, w.root, args...)
}

func TestPublishUnderPrivateNeverRunsTheCommand(t *testing.T) {
	cases := []struct {
		name    string
		marker  string // where PRIVATE.txt goes, relative to the project
		args    []string
		explain string
	}{
		{"npm publish under PRIVATE.txt", "PRIVATE.txt", []string{"npm", "publish"}, "registry-upload"},
		{"npm publish under a PRIVATE.txt two folders up", "../../PRIVATE.txt", []string{"npm", "publish", "--access", "public"}, "registry-upload"},
		{"gh release create under PRIVATE.txt", "PRIVATE.txt", []string{"gh", "release", "create", "v1.0.0"}, "publish-release"},
		{"gh repo create --public under PRIVATE.txt", "PRIVATE.txt", []string{"gh", "repo", "create", "x", "--public", "--source=."}, "visibility-public"},
		{"gh repo edit --visibility=public under PRIVATE.txt", "PRIVATE.txt", []string{"gh", "repo", "edit", "--visibility=public", "--accept-visibility-change-consequences"}, "visibility-public"},
		{"gh api making the repository public under PRIVATE.txt", "PRIVATE.txt", []string{"gh", "api", "-X", "PATCH", "repos/o/r", "-F", "private=false"}, "visibility-public"},
		{"npm publish of a subfolder under PRIVATE.txt", "PRIVATE.txt", []string{"npm", "publish", "./sub"}, "registry-upload"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.write(tc.marker, "Not before the audit (ask carol).\n")
			w.write("PUBLIC.txt", "chore: echo chore >> \"$RECORD\"\n")
			w.write("sub/package.json", "{}")
			code := w.publish(PublishOptions{}, tc.args...)
			assert.Equal(t, 1, code, w.stderr.String())
			assert.Nil(t, w.ran(), "the stand-in must not run")
			assert.Contains(t, w.stderr.String(), "refused "+tc.explain)
			assert.Contains(t, w.stderr.String(), "| Not before the audit (ask carol).")
			assert.Contains(t, w.stderr.String(), "was not run")
		})
	}
}

func TestPublishRunsWhatPublishesNothingUnguarded(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"gh repo create --private", []string{"gh", "repo", "create", "x", "--private"}},
		{"npm publish --dry-run", []string{"npm", "publish", "--dry-run"}},
		{"npm install", []string{"npm", "install"}},
		{"gh pr create", []string{"gh", "pr", "create", "--fill"}},
	}
	for _, tc := range cases {
		t.Run(tc.name+" runs under PRIVATE.txt", func(t *testing.T) {
			w := newWorld(t)
			w.write("PRIVATE.txt", "never")
			code := w.publish(PublishOptions{}, tc.args...)
			assert.Equal(t, 0, code, w.stderr.String())
			assert.Equal(t, []string{strings.Join(tc.args, " ")}, w.ran())
		})
	}
}

func TestPublishPassesTheExitCodeThrough(t *testing.T) {
	for _, code := range []int{0, 1, 2, 7, 127} {
		w := newWorld(t)
		w.write("PUBLIC.txt", "chore: echo chore >> \"$RECORD\"\n")
		w.environ = append(w.environ, "STANDIN_EXIT="+strconv.Itoa(code))
		got := w.publish(PublishOptions{}, "npm", "publish")
		assert.Equal(t, code, got, "npm exited %d", code)
		if code == 0 {
			assert.Equal(t, []string{"npm publish", "chore"}, w.ran())
		} else {
			assert.Equal(t, []string{"npm publish"}, w.ran(), "no chore after a failed publish")
			assert.Contains(t, w.stderr.String(), "exited "+strconv.Itoa(code)+"; no chores run")
		}
	}
}

func TestPublishPassesStdinAndStdoutThrough(t *testing.T) {
	w := newWorld(t)
	w.write("PUBLIC.txt", "")
	w.standIn("npm", `read otp; echo "otp=$otp"; echo "npm $*" >> "$RECORD"`)
	env := w.env("123456\n")
	code := w.publish(PublishOptions{Env: env}, "npm", "publish")
	assert.Equal(t, 0, code, w.stderr.String())
	assert.Equal(t, "otp=123456\n", w.stdout.String(), "the command's stdout is guard's stdout, and nothing else is")
}

func TestPublishChecksRunBeforeAndChoresAfterEachOnce(t *testing.T) {
	for _, inRepo := range []bool{true, false} {
		name := "outside a repository"
		if inRepo {
			name = "in a repository"
		}
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			if inRepo {
				w.git("init", "-q")
			}
			w.write("PUBLIC.txt", "approved_by: carol\ncheck: echo check1 >> \"$RECORD\"\ncheck: echo check2 in $(basename \"$PWD\") >> \"$RECORD\"\nchore: echo chore1 >> \"$RECORD\"\nchore: echo chore2 >> \"$RECORD\"\n")
			require.Equal(t, 0, w.publish(PublishOptions{}, "npm", "publish"), w.stderr.String())
			assert.Equal(t, []string{"check1", "check2 in pkg", "npm publish", "chore1", "chore2"}, w.ran())
			assert.Contains(t, w.stderr.String(), "guard: check: echo check1 >> \"$RECORD\"\n")
			assert.Contains(t, w.stderr.String(), "guard: chore: echo chore2 >> \"$RECORD\"\n")

			require.NoError(t, os.Remove(w.record))
			require.Equal(t, 0, w.publish(PublishOptions{}, "npm", "publish"), w.stderr.String())
			assert.Equal(t, []string{"check1", "check2 in pkg", "npm publish"}, w.ran(), "chores run once")
			assert.Contains(t, w.stderr.String(), "chore already done, skipped: echo chore1")

			recPath := filepath.Join(w.root, ".PUBLIC.txt.chores.json")
			if inRepo {
				recPath = filepath.Join(w.root, ".git", "guard", "chores.json")
				assert.NoFileExists(t, filepath.Join(w.root, ".PUBLIC.txt.chores.json"))
			}
			rec, err := loadChoreRecord(recPath)
			require.NoError(t, err)
			require.Len(t, rec.Done, 2)
			assert.Equal(t, filepath.Join(w.root, "PUBLIC.txt"), rec.Done[0].Public)
			assert.Equal(t, "echo chore1 >> \"$RECORD\"", rec.Done[0].Chore)
		})
	}
}

func TestPublishFailingCheckRefusesBeforeTheCommand(t *testing.T) {
	w := newWorld(t)
	w.write("PUBLIC.txt", "check: echo ok >> \"$RECORD\"\ncheck: test -f LICENSE\ncheck: echo never >> \"$RECORD\"\nchore: echo chore >> \"$RECORD\"\n")
	code := w.publish(PublishOptions{}, "npm", "publish")
	assert.Equal(t, 1, code)
	assert.Equal(t, []string{"ok"}, w.ran())
	assert.Contains(t, w.stderr.String(), `the check "test -f LICENSE" from `+filepath.Join(w.root, "PUBLIC.txt")+" failed (exit 1)")
	assert.Contains(t, w.stderr.String(), "npm publish was not run")
}

func TestPublishFailedChoreExitsOneWithASummaryAndRunsAgainNextTime(t *testing.T) {
	w := newWorld(t)
	w.write("PUBLIC.txt", "chore: echo a >> \"$RECORD\"\nchore: exit 3\nchore: echo c >> \"$RECORD\"\n")
	assert.Equal(t, 1, w.publish(PublishOptions{}, "npm", "publish"))
	assert.Equal(t, []string{"npm publish", "a", "c"}, w.ran(), "a failed chore does not stop the others")
	out := w.stderr.String()
	assert.Contains(t, out, "1 of 3 chore(s) failed; the publication itself succeeded:\n")
	assert.Contains(t, out, "  ok                echo a >> \"$RECORD\"\n")
	assert.Contains(t, out, "  failed (exit 3)   exit 3\n")

	require.NoError(t, os.Remove(w.record))
	assert.Equal(t, 1, w.publish(PublishOptions{}, "npm", "publish"))
	assert.Equal(t, []string{"npm publish"}, w.ran(), "only the failed chore runs again")
	assert.Contains(t, w.stderr.String(), "  done before       echo a")
}

func TestPublishNoChoresSkipsThem(t *testing.T) {
	w := newWorld(t)
	w.write("PUBLIC.txt", "chore: echo chore >> \"$RECORD\"\n")
	assert.Equal(t, 0, w.publish(PublishOptions{NoChores: true}, "npm", "publish"))
	assert.Equal(t, []string{"npm publish"}, w.ran())
}

func TestPublishDryRunRunsNothing(t *testing.T) {
	w := newWorld(t)
	w.write("PUBLIC.txt", "check: echo check >> \"$RECORD\"\nchore: echo chore >> \"$RECORD\"\n")
	assert.Equal(t, 0, w.publish(PublishOptions{DryRun: true}, "npm", "publish"))
	assert.Nil(t, w.ran())
	assert.Equal(t, "registry-upload of "+w.root+": allowed (approved by "+filepath.Join(w.root, "PUBLIC.txt")+")\n"+
		"would run check: echo check >> \"$RECORD\"  (in "+w.root+")\n"+
		"would run: npm publish\n"+
		"would run chore: echo chore >> \"$RECORD\"  (in "+w.root+")\n", w.stdout.String())

	w2 := newWorld(t)
	w2.write("PRIVATE.txt", "")
	assert.Equal(t, 1, w2.publish(PublishOptions{DryRun: true}, "npm", "publish"), "a dry run still says it would be refused")
	assert.Nil(t, w2.ran())
}

func TestPublishRefusesAnUnknownCommandWithTheConfigLine(t *testing.T) {
	w := newWorld(t)
	w.standIn("make", `echo "make $*" >> "$RECORD"`)
	w.write("PUBLIC.txt", "")
	assert.Equal(t, 2, w.publish(PublishOptions{}, "make", "release"))
	assert.Nil(t, w.ran())
	assert.Contains(t, w.stderr.String(), "    [publish.commands]\n    \"make release\" = \"registry-upload\"\n")

	w.write(".guard.toml", "[publish.commands]\n\"make release\" = \"publish-release\"\n")
	w.git("init", "-q")
	assert.Equal(t, 0, w.publish(PublishOptions{}, "make", "release"), w.stderr.String())
	assert.Equal(t, []string{"make release"}, w.ran())
}

func TestPublishRefusedByAConditionLock(t *testing.T) {
	w := newWorld(t)
	w.write("PUBLIC.txt", "")
	w.write("LOCK.condition.txt", "owner: alice\ncreated: 2026-11-29T11:00:00\nrelease_condition: legal approves the license\noperations: registry-upload\n")
	assert.Equal(t, 1, w.publish(PublishOptions{}, "npm", "publish"))
	assert.Nil(t, w.ran())
	assert.Contains(t, w.stderr.String(), "legal approves the license")
	assert.Contains(t, w.stderr.String(), "alice")

	assert.Equal(t, 0, w.publish(PublishOptions{}, "gh", "release", "create", "v1"), "the lock names only registry-upload")
	assert.Equal(t, []string{"gh release create v1"}, w.ran())
}

func TestPublishWithoutMarkersWarnsOrRefuses(t *testing.T) {
	w := newWorld(t)
	assert.Equal(t, 0, w.publish(PublishOptions{}, "npm", "publish"))
	assert.Contains(t, w.stderr.String(), "warning: nothing approved publishing "+w.root)
	assert.Equal(t, []string{"npm publish"}, w.ran())

	w2 := newWorld(t)
	w2.git("init", "-q")
	w2.write(".guard.toml", "[publish]\nrequire_public = true\n")
	assert.Equal(t, 1, w2.publish(PublishOptions{}, "npm", "publish"))
	assert.Nil(t, w2.ran())
}

func TestPublishWithoutACommandIsAUsageError(t *testing.T) {
	w := newWorld(t)
	assert.Equal(t, 2, w.publish(PublishOptions{}))
	assert.Equal(t, 2, w.publish(PublishOptions{}, "env", "A=b"))
	assert.Contains(t, w.stderr.String(), `"env A=b" runs no command`)
	w.write("PUBLIC.txt", "")
	require.NoError(t, os.Remove(filepath.Join(w.bin, "npm")))
	w.environ[0] = "PATH=" + w.bin
	assert.Equal(t, 2, w.publish(PublishOptions{}, "npm", "publish"), "npm is not on PATH")
	assert.Contains(t, w.stderr.String(), "npm: executable not found in PATH")
}

func TestPublishSignalDuringTheChecksStopsBeforeTheCommand(t *testing.T) {
	w := newWorld(t)
	w.write("PUBLIC.txt", "check: echo check >> \"$RECORD\"\n")
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGINT // as if Ctrl-C came while the checks ran
	assert.Equal(t, 130, w.publish(PublishOptions{Signals: sigs}, "npm", "publish"))
	assert.Equal(t, []string{"check"}, w.ran(), "npm never started")
	assert.Contains(t, w.stderr.String(), "interrupt received before npm publish started; it was not run.")
}

func TestPublishChecksTheProjectTheCommandActsOn(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"npm publish ./sub acts on the private subfolder", []string{"npm", "publish", "./sub"}, 1},
		{"npm --prefix sub publish acts on the private subfolder", []string{"npm", "--prefix", "sub", "publish"}, 1},
		{"cargo --manifest-path acts on the private crate", []string{"cargo", "publish", "--manifest-path", "sub/Cargo.toml"}, 1},
		{"env -C sub acts on the private subfolder", []string{"env", "-C", "sub", "npm", "publish"}, 1},
		{"npm publish of the approved folder runs", []string{"npm", "publish"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.standIn("cargo", `echo "cargo $*" >> "$RECORD"`)
			w.write("PUBLIC.txt", "")
			w.write("sub/PRIVATE.txt", "the sub-package stays internal")
			assert.Equal(t, tc.code, w.publish(PublishOptions{}, tc.args...), w.stderr.String())
			if tc.code == 1 {
				assert.Nil(t, w.ran())
				// PUBLIC.txt above and PRIVATE.txt in the project: both apply, PRIVATE wins.
				assert.Contains(t, w.stderr.String(), "refused registry-upload of "+filepath.Join(w.root, "sub")+": both PRIVATE.txt and PUBLIC.txt are present")
				assert.Contains(t, w.stderr.String(), "| the sub-package stays internal")
			} else {
				assert.Equal(t, []string{strings.Join(tc.args, " ")}, w.ran())
			}
		})
	}
}

// issueGateExamples are the publications of issue 11's "Publishing under
// PRIVATE.txt" class: each one, run through guard publish in a project under
// PRIVATE.txt, must be refused without running the command.
var issueGateExamples = []struct {
	name string
	args []string
	op   string
}{
	{"the last --no-dry-run wins over --dry-run", []string{"npm", "publish", "--dry-run", "--no-dry-run"}, classify.OpRegistryUpload},
	{"the last -Dmaven.deploy.skip wins", []string{"mvn", "deploy", "-Dmaven.deploy.skip=true", "-Dmaven.deploy.skip=false"}, classify.OpRegistryUpload},
	{"poetry run twine upload", []string{"poetry", "run", "twine", "upload", "dist/x.whl"}, classify.OpRegistryUpload},
	{"uv run twine upload", []string{"uv", "run", "--with", "twine", "twine", "upload", "dist/x.whl"}, classify.OpRegistryUpload},
	{"hatch run twine upload", []string{"hatch", "run", "twine", "upload", "dist/x.whl"}, classify.OpRegistryUpload},
	{"lerna exec -- npm publish", []string{"lerna", "exec", "--", "npm", "publish"}, classify.OpRegistryUpload},
	{"pnpm recursive publish", []string{"pnpm", "recursive", "publish"}, classify.OpRegistryUpload},
	{"pnpm -r publish", []string{"pnpm", "-r", "publish"}, classify.OpRegistryUpload},
	{"yarn workspaces foreach npm publish", []string{"yarn", "workspaces", "foreach", "-A", "--include", "@o/a", "npm", "publish"}, classify.OpRegistryUpload},
	{"docker compose build --push", []string{"docker", "compose", "build", "--push"}, classify.OpRegistryUpload},
	{"docker compose push", []string{"docker", "compose", "push"}, classify.OpRegistryUpload},
	{"docker buildx build --push", []string{"docker", "buildx", "build", "--push", "-t", "ghcr.io/o/app", "."}, classify.OpRegistryUpload},
	{"gradle publishToMavenCentral", []string{"./gradlew", "publishToMavenCentral"}, classify.OpRegistryUpload},
	{"gradle publishPlugins", []string{"./gradlew", "publishPlugins"}, classify.OpRegistryUpload},
	{"gradle closeAndReleaseRepository", []string{"./gradlew", "closeAndReleaseRepository"}, classify.OpRegistryUpload},
	{"mvn jib:build", []string{"mvn", "compile", "jib:build"}, classify.OpRegistryUpload},
	{"gh api creating a release", []string{"gh", "api", "repos/o/r/releases", "-f", "tag_name=v1"}, classify.OpPublishRelease},
	{"gh api un-drafting a release", []string{"gh", "api", "-X", "PATCH", "repos/o/r/releases/1", "-F", "draft=false"}, classify.OpPublishRelease},
	{"gh api visibility=public", []string{"gh", "api", "-X", "PATCH", "repos/o/r", "-f", "visibility=public"}, classify.OpVisibilityPublic},
	{"gh api visibility from a file", []string{"gh", "api", "-X", "PATCH", "repos/o/r", "-F", "visibility=@visibility.txt"}, classify.OpVisibilityPublic},
	{"gh api visibility from a file that cannot be read", []string{"gh", "api", "-X", "PATCH", "repos/o/r", "-F", "visibility=@missing.txt"}, classify.OpVisibilityPublic},
	{"gh api graphql mutation from a file", []string{"gh", "api", "graphql", "-F", "query=@mutation.graphql"}, classify.OpVisibilityPublic},
	{"gh api graphql query from standard input", []string{"gh", "api", "graphql", "-F", "query=@-"}, classify.OpVisibilityPublic},
}

func TestPublishRefusesEveryGateExampleUnderPrivate(t *testing.T) {
	for _, tc := range issueGateExamples {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			for _, name := range []string{"mvn", "poetry", "uv", "hatch", "lerna", "pnpm", "yarn", "docker", "twine"} {
				w.standIn(name, `echo "`+name+` $*" >> "$RECORD"`)
			}
			w.write("gradlew", "#!/bin/sh\necho \"gradlew $*\" >> \"$RECORD\"\n")
			require.NoError(t, os.Chmod(filepath.Join(w.root, "gradlew"), 0o755))
			w.write("visibility.txt", "public\n")
			w.write("mutation.graphql", `mutation { createRepository(input: {name: "x", visibility: PUBLIC}) { repository { url } } }`)
			w.write("PRIVATE.txt", "Not before the audit (ask carol).\n")

			c, err := classify.Classify(tc.args, w.root, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.op, c.Op, c.Why)
			assert.True(t, c.Publishes(), c.Why)

			code := w.publish(PublishOptions{}, tc.args...)
			assert.Equal(t, 1, code, w.stderr.String())
			assert.Nil(t, w.ran(), "the command must not run")
			assert.Contains(t, w.stderr.String(), "refused "+tc.op+" of "+w.root)
			assert.Contains(t, w.stderr.String(), "| Not before the audit (ask carol).")
		})
	}
}

func TestPublishChecksTheProjectOfAnUploadedArtifact(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"npm publish of a private project's tarball", []string{"npm", "publish", "../priv/pkg-1.0.0.tgz"}},
		{"gem push of a private project's gem", []string{"gem", "push", "../priv/x-1.0.0.gem"}},
		{"uv publish of a private project's dist", []string{"uv", "publish", "../priv/dist/x-1.0-py3-none-any.whl", "../priv/dist/x-1.0.tar.gz"}},
		{"uv publish of a pattern the shell did not expand", []string{"uv", "publish", "../priv/dist/*"}},
		{"dotnet nuget push of a private project's package", []string{"dotnet", "nuget", "push", "../priv/bin/Release/x.1.0.0.nupkg", "--source", "https://api.nuget.org/v3/index.json"}},
		{"twine upload of a private project's dist", []string{"twine", "upload", "../priv/dist/x-1.0.tar.gz"}},
		{"twine upload of a free and a private project's dist", []string{"twine", "upload", "dist/y-1.0.tar.gz", "../priv/dist/x-1.0.tar.gz"}},
		{"gh release create with a private project's asset", []string{"gh", "release", "create", "v1", "../priv/dist/x-1.0.tar.gz#the x archive"}},
		{"gh release upload of a private project's asset", []string{"gh", "release", "upload", "v1", "../priv/dist/x-1.0.tar.gz"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			for _, name := range []string{"gem", "uv", "dotnet", "twine"} {
				w.standIn(name, `echo "`+name+` $*" >> "$RECORD"`)
			}
			w.write("PUBLIC.txt", "approved\n")
			w.write("dist/y-1.0.tar.gz", "y")
			priv := filepath.Join(filepath.Dir(w.root), "priv")
			for _, f := range []string{"pkg-1.0.0.tgz", "x-1.0.0.gem", "dist/x-1.0-py3-none-any.whl", "dist/x-1.0.tar.gz", "bin/Release/x.1.0.0.nupkg"} {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(priv, f)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(priv, f), []byte("x"), 0o644))
			}
			require.NoError(t, os.WriteFile(filepath.Join(priv, "PRIVATE.txt"), []byte("priv stays in-house\n"), 0o644))

			code := w.publish(PublishOptions{}, tc.args...)
			assert.Equal(t, 1, code, w.stderr.String())
			assert.Nil(t, w.ran(), "the command must not run")
			assert.Contains(t, w.stderr.String(), "of "+priv)
			assert.Contains(t, w.stderr.String(), "| priv stays in-house")

			// The same command with the artifact's project approved runs.
			require.NoError(t, os.Rename(filepath.Join(priv, "PRIVATE.txt"), filepath.Join(priv, "PUBLIC.txt")))
			code = w.publish(PublishOptions{}, tc.args...)
			assert.Equal(t, 0, code, w.stderr.String())
			assert.Len(t, w.ran(), 1)
		})
	}
}

func TestPublishRunsHelpUnderPrivate(t *testing.T) {
	for _, args := range [][]string{
		{"gh", "release", "create", "--help"},
		{"npm", "publish", "--help"},
		{"npm", "publish", "-h"},
		{"gh", "api", "repos/o/r/releases", "-f", "tag_name=v1", "--help"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			w := newWorld(t)
			w.write("PRIVATE.txt", "never\n")
			assert.Equal(t, 0, w.publish(PublishOptions{}, args...), w.stderr.String())
			assert.Equal(t, []string{strings.Join(args, " ")}, w.ran())
		})
	}
	// A --help that an option takes as its value is no help: the release is made.
	w := newWorld(t)
	w.write("PRIVATE.txt", "never\n")
	assert.Equal(t, 1, w.publish(PublishOptions{}, "gh", "release", "create", "v1", "--notes", "--help"))
	assert.Nil(t, w.ran())
}

func TestPublishRefusesWhatItCannotReadWithTheConfigLine(t *testing.T) {
	for _, args := range [][]string{
		{"poetry", "run", "./release.sh"},
		{"uv", "run", "scripts/release.py"},
		{"npx", "some-release-tool"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			w := newWorld(t)
			w.write("PUBLIC.txt", "")
			assert.Equal(t, 2, w.publish(PublishOptions{}, args...))
			assert.Nil(t, w.ran())
			assert.Contains(t, w.stderr.String(), "guard: refused: cannot tell what")
			assert.Contains(t, w.stderr.String(), "[publish.commands]")
		})
	}
}

func TestPublishOfAWorkspaceChecksEveryPackageItUploads(t *testing.T) {
	cases := []struct {
		name   string
		layout map[string]string // the workspace's manifests, relative to the root
		args   []string
	}{
		{"pnpm -r publish", map[string]string{"pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n"}, []string{"pnpm", "-r", "publish"}},
		{"pnpm recursive publish", map[string]string{"pnpm-workspace.yaml": "packages:\n  - \"packages/**\"\n"}, []string{"pnpm", "recursive", "publish"}},
		{"pnpm -r exec npm publish", map[string]string{"pnpm-workspace.yaml": "packages:\n  - packages/*\n"}, []string{"pnpm", "-r", "exec", "npm", "publish"}},
		{"npm publish --workspaces", map[string]string{"package.json": `{"workspaces": ["packages/*"]}`}, []string{"npm", "publish", "--workspaces"}},
		{"yarn workspaces foreach npm publish", map[string]string{"package.json": `{"workspaces": {"packages": ["packages/*"]}}`}, []string{"yarn", "workspaces", "foreach", "-A", "npm", "publish"}},
		{"lerna publish", map[string]string{"lerna.json": `{"packages": ["packages/*"]}`}, []string{"lerna", "publish", "from-package", "--yes"}},
		{"lerna exec -- npm publish", map[string]string{"lerna.json": `{"packages": ["packages/*"]}`}, []string{"lerna", "exec", "--", "npm", "publish"}},
		{"changeset publish", map[string]string{"package.json": `{"workspaces": ["packages/*"]}`}, []string{"changeset", "publish"}},
		{"cargo publish --workspace", map[string]string{"Cargo.toml": "[workspace]\nmembers = [\n  \"packages/*\",\n]\n"}, []string{"cargo", "publish", "--workspace"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			for _, name := range []string{"pnpm", "yarn", "lerna", "changeset", "cargo"} {
				w.standIn(name, `echo "`+name+` $*" >> "$RECORD"`)
			}
			w.write("PUBLIC.txt", "approved\n")
			for rel, content := range tc.layout {
				w.write(rel, content)
			}
			for _, pkg := range []string{"packages/a", "packages/secret"} {
				w.write(pkg+"/package.json", `{"name": "`+filepath.Base(pkg)+`"}`)
				w.write(pkg+"/Cargo.toml", "[package]\nname = \""+filepath.Base(pkg)+"\"\n")
			}
			w.write("packages/secret/PRIVATE.txt", "the secret package stays in-house\n")
			secret := filepath.Join(w.root, "packages", "secret")

			assert.Equal(t, 1, w.publish(PublishOptions{}, tc.args...), w.stderr.String())
			assert.Nil(t, w.ran(), "the command must not run")
			assert.Contains(t, w.stderr.String(), "of "+secret)
			assert.Contains(t, w.stderr.String(), "| the secret package stays in-house")

			// A package its tool never uploads does not block the others.
			w.write("packages/secret/package.json", `{"name": "secret", "private": true}`)
			w.write("packages/secret/Cargo.toml", "[package]\nname = \"secret\"\npublish = false\n")
			assert.Equal(t, 0, w.publish(PublishOptions{}, tc.args...), w.stderr.String())
			assert.Len(t, w.ran(), 1)
		})
	}
}
