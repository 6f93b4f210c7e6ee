package docs

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The checks fail where they must: each is shown a page that breaks its rule.

func TestReadmeProblemsCatchALongREADMEAndMissingCommands(t *testing.T) {
	good := "# guard\n\n## The two commands\n\n```sh\n" + mainJobCommand + "\n```\n\n```sh\n" + testCommand + "\n```\n\n## More\n"
	if p := readmeProblems(parseMD("README.md", good)); len(p) != 0 {
		t.Errorf("a short README with both commands: %v", p)
	}
	long := good + strings.Repeat("text\n", maxREADMELines)
	if p := readmeProblems(parseMD("README.md", long)); len(p) != 1 || !strings.Contains(p[0], "more than 200") {
		t.Errorf("a README of %d lines: %v", maxREADMELines+12, p)
	}
	prose := "# guard\n\n## The two commands\n\nRun " + mainJobCommand + " and " + testCommand + ".\n"
	if p := readmeProblems(parseMD("README.md", prose)); len(p) != 2 {
		t.Errorf("commands in prose, not in a code block: %v", p)
	}
	elsewhere := "# guard\n\n## The two commands\n\nsee below\n\n## Tests\n\n```sh\n" + testCommand + "\n" + mainJobCommand + "\n```\n"
	if p := readmeProblems(parseMD("README.md", elsewhere)); len(p) != 2 {
		t.Errorf("commands in another section: %v", p)
	}
	nested := "# guard\n\n### The two commands\n\n```sh\n" + mainJobCommand + "\n" + testCommand + "\n```\n"
	if p := readmeProblems(parseMD("README.md", nested)); len(p) != 1 || !strings.Contains(p[0], "no top-level section") {
		t.Errorf("the section below the top level: %v", p)
	}
}

func TestSlugsAreGitHubs(t *testing.T) {
	for text, want := range map[string]string{
		"Bypass: GUARD_BYPASS":                  "bypass-guard_bypass",
		"guard run --sandbox DIR -- COMMAND":    "guard-run---sandbox-dir----command",
		"Hooks a manager runs: `managed`":       "hooks-a-manager-runs-managed",
		"[agent]":                               "agent",
		"History and [watch](history.md) pages": "history-and-watch-pages",
	} {
		if got := slugify(text); got != want {
			t.Errorf("slugify(%q) = %q, want %q", text, got, want)
		}
	}
	f := parseMD("x.md", "# A\n## Same\n```\n## Not a heading\n```\n## Same\n")
	want := map[string]bool{"a": true, "same": true, "same-1": true}
	if got := f.anchors(); !reflect.DeepEqual(got, want) {
		t.Errorf("anchors = %v, want %v", got, want)
	}
}

func TestBrokenLinksAreFound(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docs/a.md", "# A\n\n## Here it is\n")
	write("README.md", strings.Join([]string{
		"# R",
		"[ok](docs/a.md) [ok](docs/a.md#here-it-is) [ok](#r) [web](https://example.com/x.md#nope)",
		"[gone](docs/b.md) [no anchor](docs/a.md#there) [own](#nowhere)",
		"`[in code](docs/c.md)`",
		"```",
		"[in a block](docs/d.md)",
		"```",
		"[up](../outside.md) [abs](/etc/passwd)",
		"[ref]: docs/e.md",
	}, "\n"))
	got := brokenLinks(dir, []string{"README.md"})
	want := []string{
		"README.md:3: docs/b.md: no such file",
		"README.md:3: docs/a.md#there: no heading #there in a.md",
		"README.md:3: #nowhere: no heading #nowhere in README.md",
		"README.md:8: ../outside.md leads out of the repository",
		"README.md:8: /etc/passwd is absolute: write it relative to the file",
		"README.md:9: docs/e.md: no such file",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("brokenLinks =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestConfigProblemsNameTheMissingKeys(t *testing.T) {
	type inner struct {
		Claim bool   `toml:"claim"`
		Other string `toml:"other"`
	}
	type config struct {
		Path   string            `toml:"-"`
		Owner  string            `toml:"owner"`
		Agent  inner             `toml:"agent"`
		Scopes map[string]string `toml:"scopes"`
		Back   *inner            `toml:"backend"`
	}
	keys := configKeys(reflect.TypeOf(config{}), "")
	wantKeys := []configKey{{"", "owner"}, {"agent", ""}, {"agent", "claim"}, {"agent", "other"}, {"scopes", ""},
		{"backend", ""}, {"backend", "claim"}, {"backend", "other"}}
	if !reflect.DeepEqual(keys, wantKeys) {
		t.Fatalf("configKeys = %v, want %v", keys, wantKeys)
	}
	page := parseMD("configuration.md", "# C\n\n## Top level\n\n`owner`\n\n## [agent]\n\n`claim`\n\n### [agent.x]\n\n`other` is in a subsection\n\n## [backend]\n\n`claim`, and `other`\n\n```\n## [scopes]\n```\n")
	got := configProblems(page, keys)
	want := []string{`configuration.md's section "[agent]" does not name ` + "`other`", `configuration.md has no heading "[scopes]"`}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("configProblems = %q, want %q", got, want)
	}
}

func TestUndocumentedCommandsAreNamed(t *testing.T) {
	pages := map[string]string{
		"a.md": "Use `guard lock DIR` and guard team (`checkin --role R`).",
		"b.md": "guard audit lists; `github` alone does not count here.",
		"c.md": "guard locker is another word; `checkout` without its parent.",
	}
	cmds := []command{{"lock"}, {"unlock"}, {"team"}, {"team", "checkin"}, {"team", "checkout"}, {"audit"}, {"audit", "github"}, {"locker"}}
	got := undocumented(pages, cmds)
	want := []string{"team checkout", "unlock"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("undocumented = %v, want %v", got, want)
	}
}
