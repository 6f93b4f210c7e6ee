package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 24, item 3: a mistyped command, flag or value is a usage error (2) that says
// what was probably meant, on stderr, with nothing on stdout, at every level.
func TestMistakesAreAnsweredWithASuggestion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"chek", "."}, `guard: unknown command "chek"; did you mean check?`},
		{[]string{"audit", "githb"}, `guard: audit: unknown command "githb"; did you mean github?`},
		{[]string{"hook", "pre-comit"}, `guard: hook: unknown command "pre-comit"; did you mean pre-commit?`},
		{[]string{"team", "chekin"}, `guard: team: unknown command "chekin"; did you mean checkin?`},
		{[]string{"lock", "--expire", "1h"}, `guard: lock: unknown flag: --expire; did you mean --expires?`},
		{[]string{"team", "claim", "--resorce", "a"}, `guard: team claim: unknown flag: --resorce; did you mean --resource?`},
		{[]string{"agent-install", "claud"}, `guard: agent-install: "claud" is not claude, gemini or codex; did you mean claude?`},
		{[]string{"agent-uninstall", "gemni"}, `guard: agent-uninstall: "gemni" is not claude, gemini or codex; did you mean gemini?`},
		{[]string{"install", "--hooks", "pre-comit"}, `guard: install: invalid argument "pre-comit" for "--hooks" flag: "pre-comit" is not pre-commit, pre-merge-commit or pre-push; did you mean pre-commit?`},
		{[]string{"install", "--hooks", "pre-commit,pre-psh"}, `"pre-psh" is not pre-commit, pre-merge-commit or pre-push; did you mean pre-push?`},
		{[]string{"ci", "--format", "jsn"}, `guard: ci: invalid argument "jsn" for "--format" flag: "jsn" is not text, json or github; did you mean json?`},
		{[]string{"lock", "--mode", "hardd"}, `"hardd" is not hard or soft; did you mean hard?`},
		{[]string{"history", "--event", "aquired"}, `did you mean acquired?`},
		{[]string{"agent-release", "--hook", "codx"}, `did you mean codex?`},
		{[]string{"completion", "tcsh"}, `guard: completion: unknown command "tcsh"; did you mean bash or fish or zsh?`},
		{[]string{"completion", "nushell"}, `guard: completion: unknown command "nushell" (bash, fish, powershell or zsh)`},
		{[]string{"help", "environmnt"}, `guard: help: no help for "environmnt": no such command or topic; did you mean environment?`},
		{[]string{"help", "hook", "pre-comit"}, `guard: help: no help for "hook pre-comit": no such command or topic; did you mean pre-commit?`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, stderr, code := runGuard(t, t.TempDir(), nil, tc.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out, "no help page on stdout")
			assert.Contains(t, stderr, tc.want+"\n")
			assert.Contains(t, stderr, "see 'guard")
		})
	}
}

// What printed a help page and exited 0 is a usage error now; asking for help is not.
func TestWrongInvocationsExit2(t *testing.T) {
	for _, args := range [][]string{{"completion"}, {"help", "nosuchtopic"}, {"team"}, {"hook"}, {"audit"}} {
		out, stderr, code := runGuard(t, t.TempDir(), nil, args...)
		assert.Equal(t, 2, code, args)
		assert.Empty(t, out, args)
		assert.NotEmpty(t, stderr, args)
	}
	for _, args := range [][]string{{"help"}, {"help", "lock"}, {"help", "hook", "pre-push"}, {"completion", "--help"}, {"completion", "bash"}} {
		out, stderr, code := runGuard(t, t.TempDir(), nil, args...)
		assert.Equal(t, 0, code, args)
		assert.NotEmpty(t, out, args)
		assert.Empty(t, stderr, args)
	}
}

// guard --help lists its commands in groups, the plumbing apart, then the topics.
func TestRootHelpGroupsTheCommands(t *testing.T) {
	out, _, code := runGuard(t, t.TempDir(), nil, "--help")
	require.Equal(t, 0, code)
	at := -1
	for _, g := range commandGroups {
		i := strings.Index(out, "\n"+g.Title+"\n")
		require.Greater(t, i, at, "group %q, in order", g.Title)
		at = i
	}
	commands := out[:strings.Index(out, "\nFlags:")]
	assert.Contains(t, commands, "\n  lock ")
	assert.Contains(t, commands, "\n  agent-install ")
	assert.NotContains(t, commands, "\n  hook ", "plumbing is not among the commands")
	assert.NotContains(t, commands, "\n  agent-hook ")
	assert.NotContains(t, out, "Additional Commands", "every command has a group")
	plumbingPart := out[strings.Index(out, "\nPlumbing"):]
	assert.Contains(t, plumbingPart, "\n  hook ")
	assert.Contains(t, plumbingPart, "\n  agent-hook ")
	assert.Contains(t, out, "\nHelp topics:\n  environment ")
	assert.Contains(t, out, "\n  exit-codes ")
	assert.Contains(t, out, "\n  formatting ")

	// Hidden from the list, the plumbing still runs and has its help.
	out, _, code = runGuard(t, t.TempDir(), nil, "hook", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "pre-commit")
}

// everyCommand walks the tree: every command a user or a hook may run (cobra's
// __complete and the hidden spellings of old scripts aside).
func everyCommand(t *testing.T) []*cobra.Command {
	root := newRootCmd(processEnv(), buildInfo{})
	addExamples(root) // guard does it before showing help
	var all []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		for _, sub := range c.Commands() {
			if strings.HasPrefix(sub.Name(), "__") || sub.Hidden && !plumbing[sub.Name()] && !plumbing[c.Name()] {
				continue
			}
			walk(sub)
		}
	}
	walk(root)
	require.Greater(t, len(all), 40)
	return all
}

func TestEveryCommandHasAnExample(t *testing.T) {
	for _, c := range everyCommand(t) {
		if !assert.NotEmpty(t, c.Example, "%s has no example (add one to examples.go)", c.CommandPath()) {
			continue
		}
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "$ ") && !strings.Contains(line, "guard ") {
				assert.Contains(t, line, " git ", "%s: an example runs guard, or git that runs it: %s", c.CommandPath(), line)
			}
		}
	}
	root := newRootCmd(processEnv(), buildInfo{})
	for key := range exampleTable() {
		if key == "guard" {
			continue
		}
		c, rest, err := root.Find(strings.Fields(key))
		assert.True(t, err == nil && len(rest) == 0 && commandKey(c) == key, "example for %q, which is no command", key)
	}
}

// The examples run: a few of the lock commands' own, as written, in a repository.
func TestExamplesRunAsWritten(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, exec.Command("git", "init", "-q", dir).Run())
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src", "parser"), 0o755))
	for _, tc := range []struct {
		line string
		code int
	}{
		{`guard lock src/parser --expires 2h --purpose rewriting`, 0},
		{`guard status src/parser --json`, 1}, // locked
		{`guard renew src/parser --expires 4h`, 0},
		{`guard check --op push --json src`, 0}, // alice's own lock
		{`guard scan`, 0},
		{`guard unlock src/parser`, 0},
		{`guard install --hooks pre-commit,pre-push`, 0},
		{`guard version --json`, 0},
	} {
		require.Contains(t, allExamples(), tc.line)
		_, stderr, code := runGuard(t, dir, []string{"GUARD_OWNER=alice"}, strings.Fields(tc.line)[1:]...)
		assert.Equal(t, tc.code, code, "%s: %s", tc.line, stderr)
	}
}

func allExamples() string {
	var b strings.Builder
	for _, ex := range exampleTable() {
		b.WriteString(strings.ReplaceAll(ex, `"`, "") + "\n")
	}
	return b.String()
}

func TestEveryCommandIsInAGroup(t *testing.T) {
	root := newRootCmd(processEnv(), buildInfo{})
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			assert.NotEmpty(t, c.GroupID, "%s has no group (add it to groupOf)", c.Name())
		}
	}
}

// guard help environment names every GUARD_ variable guard's code names (read or
// set), so that one added later cannot go undocumented.
func TestEnvironmentTopicNamesEveryGuardVariable(t *testing.T) {
	out, _, code := runGuard(t, t.TempDir(), nil, "help", "environment")
	require.Equal(t, 0, code)
	re := regexp.MustCompile(`GUARD_[A-Z_]+`)
	found := map[string]bool{}
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testing" && filepath.Base(filepath.Dir(path)) == "internal" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, v := range re.FindAllString(string(data), -1) {
			found[v] = true
		}
		return nil
	})
	require.NoError(t, err)
	var vars []string
	for v := range found {
		vars = append(vars, v)
	}
	sort.Strings(vars)
	require.Contains(t, vars, "GUARD_OWNER", "the walk read guard's source")
	for _, v := range vars {
		assert.Regexp(t, `(^|\W)`+v+`(\W|$)`, out, "guard help environment does not name %s", v)
	}

	// ... and every variable docs/environment.md lists (the tests' own aside).
	page, err := os.ReadFile("../../docs/environment.md")
	require.NoError(t, err)
	doc, _, _ := strings.Cut(string(page), "guard's own tests read")
	listed := regexp.MustCompile("`([A-Z][A-Z0-9_]*\\*?)`").FindAllStringSubmatch(doc, -1)
	require.Greater(t, len(listed), 30)
	for _, m := range listed {
		assert.Contains(t, out, m[1], "docs/environment.md lists %s, guard help environment does not", m[1])
	}
}

func TestHelpTopics(t *testing.T) {
	for topic, want := range map[string][]string{
		"environment": {"GUARD_OWNER\n", "GUARD_BYPASS\n", "GH_TOKEN, GITHUB_TOKEN\n"},
		"exit-codes":  {"\n  0     Done, or allowed", "\n  2     A usage error", "\n  5     guard run: the lock was lost"},
		"formatting":  {"\n  --json\n", "check, ci, doctor"},
	} {
		out, stderr, code := runGuard(t, t.TempDir(), nil, "help", topic)
		assert.Equal(t, 0, code, topic)
		assert.Empty(t, stderr, topic)
		for _, w := range want {
			assert.Contains(t, out, w, topic)
		}
	}
}

// Completion describes the values it offers, and completes unlock's and renew's lock
// names from the folder being completed.
func TestCompletionDescribesValuesAndNamesLocks(t *testing.T) {
	out, _, code := runGuard(t, t.TempDir(), nil, "__complete", "lock", "--mode", "")
	require.Equal(t, 0, code)
	assert.Equal(t, "hard\tthe lock refuses\nsoft\tthe lock only warns\n:4\n", strings.SplitN(out, "Completion ended", 2)[0])
	out, _, _ = runGuard(t, t.TempDir(), nil, "__complete", "agent-install", "")
	assert.Contains(t, out, "claude\tClaude Code\n")
	out, _, _ = runGuard(t, t.TempDir(), nil, "__complete", "help", "exit")
	assert.Contains(t, out, "exit-codes\tWhat guard's exit statuses mean\n")
	for _, values := range flagValues() {
		for _, v := range values {
			assert.NotEmpty(t, valueHelp()[v], "completion value %q has no description", v)
		}
	}

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
	for _, args := range [][]string{{"lock", "--expires", "2h"}, {"lock", "src", "--scope", "api"}} {
		_, stderr, code := runGuard(t, dir, []string{"GUARD_OWNER=alice"}, args...)
		require.Equal(t, 0, code, stderr)
	}
	for _, cmd := range []string{"unlock", "renew"} {
		out, _, code = runGuard(t, dir, nil, "__complete", cmd, "")
		require.Equal(t, 0, code)
		assert.Regexp(t, `^LOCK\.txt\talice, \d+h\d+m\n:4\n`, out, cmd)
		out, _, _ = runGuard(t, dir, nil, "__complete", cmd, "src/")
		assert.Regexp(t, `^src/LOCK\.api\.txt\talice, `, out, cmd)
	}
	out, _, _ = runGuard(t, t.TempDir(), nil, "__complete", "unlock", "")
	assert.Equal(t, ":16\n", strings.SplitN(out, "Completion ended", 2)[0], "no lock here: the shell completes folders")
}
