package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

// Usage errors name the command, say what it takes and where the help is (cobra's bare
// "requires at least 1 arg(s), only received 0" said none of that).
func TestUsageErrorsSayWhatTheCommandTakes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check"}, "guard: check: requires at least 1 arg(s), only received 0\nusage: guard check [--op OP] PATH... [flags]\nsee 'guard check --help'\n"},
		{[]string{"check", "--no-such-flag", "x"}, "guard: check: unknown flag: --no-such-flag\nusage: guard check [--op OP] PATH... [flags]\nsee 'guard check --help'\n"},
		{[]string{"lock", "a", "b"}, "guard: lock: accepts at most 1 arg(s), received 2\nusage: guard lock [DIR] [flags]\nsee 'guard lock --help'\n"},
		{[]string{"--no-such-flag"}, "guard: unknown flag: --no-such-flag\nsee 'guard --help'\n"},
		{[]string{"chek", "."}, "guard: unknown command \"chek\"; did you mean check?\nsee 'guard --help'\n"},
		{[]string{"frobnicate"}, "guard: unknown command \"frobnicate\"\nsee 'guard --help'\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, stderr, code := runGuard(t, t.TempDir(), nil, tc.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.Equal(t, tc.want, stderr)
		})
	}
}

func TestGuardAloneShowsHelp(t *testing.T) {
	out, _, code := runGuard(t, t.TempDir(), nil)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "Usage:\n  guard [flags]\n  guard [command]")
}

// Shell completion offers the values guard knows for its flags and arguments.
func TestCompletionOffersValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"check", "--op", ""}, guard.KnownOps},
		{[]string{"ci", "--op", ""}, guard.KnownOps},
		{[]string{"ci", "--format", ""}, []string{"text", "json", "github"}},
		{[]string{"install", "--hooks", ""}, []string{"pre-commit", "pre-push"}},
		{[]string{"lock", "--mode", ""}, []string{"hard", "soft"}},
		{[]string{"agent-install", ""}, []string{"claude", "gemini", "codex"}},
		{[]string{"agent-hook", ""}, []string{"claude", "gemini", "codex"}},
		{[]string{"agent-release", "--hook", ""}, []string{"claude", "gemini", "codex"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, _, code := runGuard(t, t.TempDir(), nil, append([]string{"__complete"}, tc.args...)...)
			assert.Equal(t, 0, code)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			assert.Equal(t, ":4", lines[len(lines)-1], "no file completion for a value list")
			var values []string
			for _, l := range lines[:len(lines)-1] {
				value, desc, _ := strings.Cut(l, "\t")
				assert.NotEmpty(t, desc, "%s is described", value)
				values = append(values, value)
			}
			for _, w := range tc.want {
				assert.Contains(t, values, w)
			}
		})
	}
}

// guard man writes one page per command, for the release archives. It exists in the
// build the release makes them with (-tags manpages), not in the guard users run.
func TestManWritesAPagePerCommand(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runGuard(t, dir, nil, "man", "pages")
	assert.Equal(t, 2, code, "the shipped guard has no man command")
	assert.Contains(t, stderr, `unknown command "man"`)

	manBin := filepath.Join(t.TempDir(), "guard")
	build := exec.Command("go", "build", "-tags", "manpages", "-o", manBin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	cmd := exec.Command(manBin, "man", "pages")
	cmd.Dir, cmd.Env = dir, []string{"PATH=" + testenv.Path(), "HOME=" + t.TempDir()}
	out, err = cmd.Output()
	require.NoError(t, err)
	assert.Equal(t, "pages\n", string(out))
	for _, page := range []string{"guard.1", "guard-check.1", "guard-hook-pre-push.1", "guard-agent-install.1"} {
		data, err := os.ReadFile(filepath.Join(dir, "pages", page))
		if assert.NoError(t, err, page) {
			assert.Contains(t, string(data), ".TH \"GUARD\" \"1\"", page)
		}
	}
	check, _ := os.ReadFile(filepath.Join(dir, "pages", "guard-check.1"))
	assert.Contains(t, string(check), `\fBguard check [--op OP] PATH... [flags]\fP`)
	assert.Contains(t, string(check), ".SH EXAMPLE", "the examples of --help")

	// guard(1) has ENVIRONMENT and EXIT STATUS, from the help topics, before SEE ALSO.
	page, _ := os.ReadFile(filepath.Join(dir, "pages", "guard.1"))
	text := string(page)
	env, exit, see := strings.Index(text, ".SH ENVIRONMENT\n"), strings.Index(text, ".SH EXIT STATUS\n"), strings.Index(text, ".SH SEE ALSO\n")
	assert.True(t, env > 0 && exit > env && see > exit, "ENVIRONMENT, EXIT STATUS, SEE ALSO in order")
	for _, v := range []string{"GUARD_OWNER", "GUARD_HOST", "GUARD_BYPASS", "GUARD_SANDBOX_NAMESPACES"} {
		assert.Contains(t, text, ".TP\n\\fB"+strings.ReplaceAll(v, "-", `\-`)+"\\fP\n", v)
	}
	for _, code := range []string{"0", "1", "2", "3", "4", "5"} {
		assert.Contains(t, text, ".TP\n\\fB"+code+"\\fP\n")
	}
	// The plumbing, hidden from guard --help, has its pages.
	assert.Contains(t, text, "guard-hook(1)")
	assert.Contains(t, text, "guard-agent-hook(1)")
	if _, err := os.Stat(filepath.Join(dir, "pages", "guard-agent-hook.1")); err != nil {
		t.Error("no page for guard agent-hook")
	}
	if man, err := exec.LookPath("man"); err == nil {
		cmd := exec.Command(man, "-l", filepath.Join(dir, "pages", "guard.1"))
		cmd.Env = []string{"PATH=" + testenv.Path(), "MANWIDTH=80", "HOME=" + t.TempDir()}
		out, err := cmd.Output()
		require.NoError(t, err, "man renders guard(1)")
		assert.Contains(t, string(out), "EXIT STATUS")
		assert.Contains(t, string(out), "GUARD_OWNER")
	}
}
