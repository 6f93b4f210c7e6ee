package docs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

// root is the repository: this package sits three folders below it.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// maxREADMELines is how long the README may grow: it is read in five minutes, and the
// reference lives in docs/ (issue 24).
const maxREADMELines = 200

// The two commands a newcomer needs, exactly as a newcomer types them.
const (
	mainJobCommand = "go run ./cmd/guard check ."
	testCommand    = "go test ./..."
)

// readmeProblems says what is wrong with a README: too long, or the two commands not
// shown on lines of their own in a code block of its "The two commands" section, a
// top-level heading.
func readmeProblems(f *mdFile) []string {
	var problems []string
	if n := len(f.lines); n > maxREADMELines {
		problems = append(problems, fmt.Sprintf("README.md has %d lines, more than %d: move the reference into docs/", n, maxREADMELines))
	}
	var at *heading
	for _, h := range f.headings() {
		if h.level == 2 && h.text == "The two commands" {
			h := h
			at = &h
			break
		}
	}
	if at == nil {
		return append(problems, `README.md has no top-level section "## The two commands"`)
	}
	end := len(f.lines)
	for _, h := range f.headings() {
		if h.line > at.line && h.level <= 2 {
			end = h.line
			break
		}
	}
	code := f.fencedLines(at.line, end)
	for _, want := range []string{mainJobCommand, testCommand} {
		found := false
		for _, line := range code {
			if line == want {
				found = true
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf(`README.md's "The two commands" shows no code line %q`, want))
		}
	}
	return problems
}

func TestREADMEIsShortAndShowsTheTwoCommands(t *testing.T) {
	f, err := readMD(filepath.Join(root(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range readmeProblems(f) {
		t.Error(p)
	}
	// The test command is the one CI runs: .ci/run ends with go test over ./...
	ci, err := os.ReadFile(filepath.Join(root(t), ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^go test .*\./\.\.\.$`).Match(ci) {
		t.Errorf(".ci/run does not run go test over ./..., the README's test command %q", testCommand)
	}
}

// docFiles are the files whose links are checked: the README, CONTRIBUTING.md and
// every page of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root(t), "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md", "CONTRIBUTING.md"}
	for _, p := range pages {
		files = append(files, filepath.ToSlash(strings.TrimPrefix(p, root(t)+string(filepath.Separator))))
	}
	if len(files) < 10 {
		t.Fatalf("found only %v: the docs are missing", files)
	}
	return files
}

func TestRelativeLinksLeadToFilesAndHeadings(t *testing.T) {
	for _, p := range brokenLinks(root(t), docFiles(t)) {
		t.Error(p)
	}
}

// A configKey is one key of .guard.toml: the table it sits in ("" for the top level)
// and its name. A table of free keys ([scopes], [publish.commands]) is a key too, with
// table set to its own name and name "".
type configKey struct{ table, name string }

// configKeys walks guard.Config's toml tags: a struct field is a table, a map a table
// of free keys, anything else a key.
func configKeys(typ reflect.Type, table string) []configKey {
	var out []configKey
	for i := 0; i < typ.NumField(); i++ {
		field := typ.Field(i)
		name, _, _ := strings.Cut(field.Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		full := name
		if table != "" {
			full = table + "." + name
		}
		ft := field.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.Struct:
			out = append(out, configKey{table: full})
			out = append(out, configKeys(ft, full)...)
		case reflect.Map:
			out = append(out, configKey{table: full})
		default:
			out = append(out, configKey{table: table, name: name})
		}
	}
	return out
}

// topLevelTitle is the heading of configuration.md's section for keys outside any table.
const topLevelTitle = "Top level"

// configProblems says which keys the configuration page does not document: every
// table needs a heading "[table]", every key its name in backquotes in its table's
// section.
func configProblems(page *mdFile, keys []configKey) []string {
	var problems []string
	for _, k := range keys {
		title := topLevelTitle
		if k.table != "" {
			title = "[" + k.table + "]"
		}
		text, ok := page.section(title)
		if !ok {
			problems = append(problems, fmt.Sprintf("configuration.md has no heading %q", title))
			continue
		}
		if k.name != "" && !strings.Contains(text, "`"+k.name+"`") {
			problems = append(problems, fmt.Sprintf("configuration.md's section %q does not name `%s`", title, k.name))
		}
	}
	return problems
}

func TestEveryGuardTOMLKeyIsOnTheConfigurationPage(t *testing.T) {
	keys := configKeys(reflect.TypeOf(guard.Config{}), "")
	// Config has more than 30 keys: fewer means the walk went wrong, not that the
	// page is complete.
	if len(keys) < 30 {
		t.Fatalf("read only %d keys from guard.Config: %v", len(keys), keys)
	}
	page, err := readMD(filepath.Join(root(t), "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range configProblems(page, keys) {
		t.Error(p)
	}
}

// runGuard runs guard in an empty folder with an environment of the test's own.
func runGuard(t *testing.T, bin, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + testenv.Path(), "HOME=" + dir, "XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES=" + filepath.Dir(dir)}
	out, err := cmd.Output()
	return string(out), err
}

// completions are the names cobra offers after args: the commands guard --help lists
// (hidden ones are left out of both), one per line, before the ":directive" line.
func completions(t *testing.T, bin, dir string, args ...string) []string {
	t.Helper()
	out, err := runGuard(t, bin, dir, append([]string{"__complete"}, append(args, "")...)...)
	if err != nil {
		t.Fatalf("guard __complete %v: %v", args, err)
	}
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if line == "" || strings.HasPrefix(line, ":") {
			continue
		}
		name, _, _ := strings.Cut(line, "\t")
		names = append(names, name)
	}
	return names
}

// A command is one command path of guard's tree: "lock", "audit github".
type command []string

func (c command) String() string { return strings.Join(c, " ") }

// guardCommands lists guard's commands and their subcommands as guard --help and each
// command's --help show them.
func guardCommands(t *testing.T, bin string) []command {
	dir := t.TempDir()
	help, err := runGuard(t, bin, dir, "--help")
	if err != nil {
		t.Fatalf("guard --help: %v", err)
	}
	var out []command
	for _, name := range completions(t, bin, dir) {
		if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(name) + `\b`).MatchString(help) {
			t.Errorf("guard offers the command %q, but guard --help does not list it", name)
		}
		out = append(out, command{name})
		for _, sub := range completions(t, bin, dir, name) {
			// A completion may be an argument's value (agent-hook claude): a
			// subcommand is one whose own usage line names it.
			h, err := runGuard(t, bin, dir, name, sub, "--help")
			if err != nil {
				continue
			}
			if _, usage, ok := strings.Cut(h, "Usage:\n"); ok {
				first, _, _ := strings.Cut(usage, "\n")
				if f := strings.Fields(first); len(f) >= 3 && f[0] == "guard" && f[1] == name && f[2] == sub {
					out = append(out, command{name, sub})
				}
			}
		}
	}
	if len(out) < 30 {
		t.Fatalf("read only %d commands from guard --help: %v", len(out), out)
	}
	return out
}

// undocumented are the commands no page names: a command needs "guard NAME" in a
// page; a subcommand also its name in a code span of a page that names its parent.
func undocumented(pages map[string]string, cmds []command) []string {
	var missing []string
	for _, c := range cmds {
		parent := regexp.MustCompile(`guard ` + regexp.QuoteMeta(c[0]) + `([^a-z0-9-]|$)`)
		found := false
		for _, text := range pages {
			if !parent.MatchString(text) {
				continue
			}
			if len(c) == 1 {
				found = true
				break
			}
			sub := regexp.MustCompile(`(^|[^a-z0-9-])` + regexp.QuoteMeta(c[len(c)-1]) + `([^a-z0-9-]|$)`)
			for _, span := range codeSpanRE.FindAllString(text, -1) {
				if sub.MatchString(strings.Trim(span, "`")) {
					found = true
					break
				}
			}
			if found {
				break
			}
		}
		if !found {
			missing = append(missing, c.String())
		}
	}
	sort.Strings(missing)
	return missing
}

// userPages are the README and the pages of docs/ a user reads (not the contract and
// protocol documents, which are the promises rather than the guide).
func userPages(t *testing.T) map[string]string {
	pages := map[string]string{}
	for _, name := range docFiles(t) {
		if name == "CONTRIBUTING.md" || name == "docs/CONTRACT.md" || name == "docs/LOCK-SYSTEM.md" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root(t), name))
		if err != nil {
			t.Fatal(err)
		}
		pages[name] = string(data)
	}
	return pages
}

func TestEveryCommandOfGuardHelpIsDocumented(t *testing.T) {
	cmds := guardCommands(t, guardtest.Binary(t))
	t.Logf("guard's commands: %v", cmds)
	for _, c := range undocumented(userPages(t), cmds) {
		t.Errorf("no page of README.md or docs/ names `guard %s`", c)
	}
}
