package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
)

// schemaDir is docs/schema, the JSON Schema of each command's --json document.
var schemaDir = filepath.Join("..", "..", "docs", "schema")

// loadSchema resolves docs/schema/name, following $refs to its sibling files.
func loadSchema(t *testing.T, name string) *jsonschema.Resolved {
	t.Helper()
	dir, err := filepath.Abs(schemaDir)
	require.NoError(t, err)
	read := func(p string) (*jsonschema.Schema, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return &s, nil
	}
	s, err := read(filepath.Join(dir, name))
	require.NoError(t, err)
	r, err := s.Resolve(&jsonschema.ResolveOptions{
		BaseURI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir) + "/"}).String(),
		Loader:  func(u *url.URL) (*jsonschema.Schema, error) { return read(filepath.FromSlash(u.Path)) },
	})
	require.NoError(t, err, name)
	return r
}

// validateDoc checks one command's stdout (one JSON document, or one a line with
// lines) against its schema.
func validateDoc(t *testing.T, schema, stdout string, lines bool) {
	t.Helper()
	r := loadSchema(t, schema)
	docs := []string{stdout}
	if lines {
		docs = strings.Split(strings.TrimSpace(stdout), "\n")
	}
	for _, d := range docs {
		var v any
		require.NoError(t, json.Unmarshal([]byte(d), &v), "%s: %s", schema, d)
		assert.NoError(t, r.Validate(v), "%s does not describe:\n%s", schema, d)
	}
}

// schemaCase runs one command with --json and names the schema of its document.
type schemaCase struct {
	schema string
	args   []string
	// code is the exit code the scenario gives.
	code int
	// env adds to the pinned environment.
	env []string
}

// TestEveryJSONDocumentMatchesItsSchema runs every command that takes --json in one
// scenario (a repository with locks, a PRIVATE.txt, a team lock, a fake GitHub) and
// validates what it prints against docs/schema. Every schema file is used, and every
// command with --json has a case.
func TestEveryJSONDocumentMatchesItsSchema(t *testing.T) {
	srv := fakeGitHubAPI(t)
	dir := ctRepo(t, map[string]string{"src/a.go": "package a\n"})
	ctWrite(t, dir, "pkg/PRIVATE.txt", "not before the review\n")
	ctWrite(t, dir, "src/b.go", "package a\n")
	guardtest.Git(t, dir, "add", "src")
	guardtest.Git(t, dir, "commit", "-q", "-m", "second")
	ctWrite(t, dir, "locked/LOCK.txt", "owner: alice\n"+ctLive+"purpose: parser\nfence: 7\n")
	state := t.TempDir()
	home := t.TempDir()
	pinned := []string{"XDG_STATE_HOME=" + state, "HOME=" + home, "GUARD_OWNER=bob", "GH_TOKEN=t"}

	cases := []schemaCase{
		{"scan.json", []string{"scan", "--all"}, 0, nil},
		{"status.json", []string{"status", "locked"}, 1, nil},
		{"status.json", []string{"status", "src"}, 0, nil},
		{"check.json", []string{"check", "locked/x", "src/a.go"}, 1, nil},
		{"check.json", []string{"check", "--op", "registry-upload", "pkg"}, 1, nil},
		{"lock.json", []string{"lock", "src", "--purpose", "schema"}, 0, nil},
		{"renew.json", []string{"renew", "src"}, 0, nil},
		{"unlock.json", []string{"unlock", "src"}, 0, nil},
		{"lock.json", []string{"lock", "src", "--scope", "api"}, 0, nil},
		{"unlock-all.json", []string{"unlock", "--all", dir}, 0, nil},
		{"prune.json", []string{"prune", "--dry-run", dir}, 0, nil},
		{"lockdown.json", []string{"lockdown", dir}, 0, nil},
		{"lockdown.json", []string{"lockdown", "--undo"}, 0, nil},
		{"permissions.json", []string{"permissions", "--agent", "claude", "Bash"}, 0, nil},
		{"preflight.json", []string{"preflight", "pkg"}, 1, nil},
		{"ci.json", []string{"ci", "--base", "HEAD~1", "--head", "HEAD"}, 0, nil},
		{"doctor.json", []string{"doctor"}, 1, nil},
		{"install.json", []string{"install"}, 0, nil},
		{"install.json", []string{"uninstall"}, 0, nil},
		{"audit-github.json", []string{"audit", "github", "--owner", "acme", "--api-url", srv.URL + "/api/v3/", dir}, 0, nil},
		{"agent-install.json", []string{"agent-install", "claude"}, 0, nil},
		{"agent-release.json", []string{"agent-release"}, 0, nil},
		{"agent-install.json", []string{"agent-uninstall", "claude"}, 0, nil},
		{"lock.json", []string{"lock", "team", "--team", "box1"}, 0, nil},
		{"team-action.json", []string{"team", "checkin", "team", "--role", "dev", "--task", "schema"}, 0, nil},
		{"team-show.json", []string{"team", "show", "team"}, 0, nil},
		{"history.json", []string{"history"}, 0, nil},
		{"history-stats.json", []string{"history", "--stats"}, 0, nil},
		{"version.json", []string{"version"}, 0, nil},
	}
	ctMkdir(t, dir, "team")
	covered := map[string]bool{"watch": true} // below: it streams
	used := map[string]bool{"watch.json": true, "lock-object.json": true, "markers.json": true, "event.json": true}
	for _, c := range cases {
		out, errOut, code := ctRun(t, dir, append(pinned, c.env...), "", append(c.args, "--json")...)
		require.Equal(t, c.code, code, "%v: %s", c.args, errOut)
		validateDoc(t, c.schema, out, false)
		used[c.schema] = true
		covered[commandPath(c.args)] = true
	}

	// watch prints one event a line as they happen.
	watch := exec.Command(guardBin, "watch", "--json", dir)
	watch.Dir, watch.Env = dir, ctEnv(t, pinned)
	pipe, err := watch.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, watch.Start())
	t.Cleanup(func() { _ = watch.Process.Kill(); _ = watch.Wait() })
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		if sc.Scan() {
			line <- sc.Text()
		}
	}()
	time.Sleep(2 * time.Second) // its first scan
	deadline := time.After(20 * time.Second)
	for got := ""; got == ""; {
		ctWrite(t, dir, "src/LOCK.txt", "owner: carol\n"+ctLive)
		select {
		case got = <-line:
			validateDoc(t, "watch.json", got, true)
		case <-time.After(3 * time.Second):
			require.NoError(t, os.Remove(filepath.Join(dir, "src", "LOCK.txt")))
		case <-deadline:
			t.Fatal("guard watch --json printed no event")
		}
	}

	files, err := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	require.NoError(t, err)
	for _, f := range files {
		assert.True(t, used[filepath.Base(f)], "docs/schema/%s is checked by no case", filepath.Base(f))
		loadSchema(t, filepath.Base(f))
	}
	var missing []string
	walkJSONCommands(newRootCmd(envtest.New().Env, buildInfo{}), func(c *cobra.Command) {
		if p := strings.TrimPrefix(c.CommandPath(), "guard "); !covered[p] {
			missing = append(missing, p)
		}
	})
	sort.Strings(missing)
	// team alone names no action; its other actions answer with checkin's document
	// (one Go type, TeamResultJSON).
	assert.Equal(t, []string{"team", "team checkout", "team claim", "team claim-tool", "team message", "team release", "team release-tool"}, missing,
		"commands with --json whose document no case validates")
}

// commandPath is the command an argument list names ("audit github", "team show").
func commandPath(args []string) string {
	if len(args) > 1 && (args[0] == "audit" || args[0] == "team") {
		return args[0] + " " + args[1]
	}
	return args[0]
}

// walkJSONCommands calls f for every command that takes --json.
func walkJSONCommands(c *cobra.Command, f func(*cobra.Command)) {
	for _, sub := range c.Commands() {
		walkJSONCommands(sub, f)
	}
	if c.Flags().Lookup("json") != nil || c.InheritedFlags().Lookup("json") != nil {
		if c.Runnable() && c.HasParent() {
			f(c)
		}
	}
}

// TestJSONCarriesTheCommonKeys: the keys issue 24 added beside the promised ones (the
// schemas say they exist; this says what they hold).
func TestJSONCarriesTheCommonKeys(t *testing.T) {
	dir := ctRepo(t, nil)
	ctWrite(t, dir, "pkg/PRIVATE.txt", "not before the review\n")
	ctWrite(t, dir, "locked/LOCK.txt", "owner: alice\ncreated: 2099-01-01T00:00:00\nexpires_after: 2h\n")

	out, _, code := ctRun(t, dir, nil, "", "check", "--json", "--op", "registry-upload", "pkg")
	require.Equal(t, 1, code)
	b := ctObject(t, out)["blocking"].([]any)[0].(map[string]any)
	assert.Nil(t, b["lock"])
	marker := b["marker"].(map[string]any)
	assert.Equal(t, "private", marker["state"])
	private := marker["private"].([]any)[0].(map[string]any)
	assert.Equal(t, filepath.Join(dir, "pkg", "PRIVATE.txt"), private["path"])
	assert.Equal(t, "not before the review\n", private["content"])

	out, _, code = ctRun(t, dir, nil, "", "status", "--json", "locked")
	require.Equal(t, 1, code)
	st := ctObject(t, out)
	assert.Equal(t, false, st["ok"])
	l := st["locks"].([]any)[0].(map[string]any)
	at, err := time.Parse(time.RFC3339, l["expires_at"].(string))
	require.NoError(t, err)
	assert.InDelta(t, time.Until(at).Seconds(), l["remaining_seconds"], 60, "expires_at less now, in seconds")

	_, _, code = ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "lock", "--json", "free")
	require.Equal(t, 2, code, "free does not exist yet")
	ctMkdir(t, dir, "free")
	_, _, code = ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "lock", "free")
	require.Equal(t, 0, code)
	out, _, code = ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "renew", "--json", "free")
	require.Equal(t, 0, code)
	rn := ctObject(t, out)
	assert.Equal(t, filepath.Join(dir, "free", "LOCK.txt"), rn["path"], "the lock object's keys stay at the top")
	assert.Equal(t, rn["path"], rn["lock"].(map[string]any)["path"], "and the lock --json shape is beside them")
	assert.Equal(t, "renewed", rn["action"])
	assert.Equal(t, true, rn["ok"])

	ctWrite(t, dir, "src/a.go", "package a\n")
	guardtest.Git(t, dir, "add", "src")
	guardtest.Git(t, dir, "commit", "-q", "-m", "src")
	out, _, code = ctRun(t, dir, nil, "", "ci", "--json", "--base", "HEAD~1")
	require.Equal(t, 0, code)
	ci := ctObject(t, out)
	assert.Equal(t, []any{"src/a.go"}, ci["paths"])
	assert.Equal(t, []any{filepath.Join(dir, "src", "a.go")}, ci["absolute_paths"])
	assert.Equal(t, dir, ci["root"])
	assert.Equal(t, true, ci["ok"])
}
