package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
)

// The rule syntax of Claude Code's permissions documentation, one example each.
func TestBashRuleMatchesAsClaudeCodeDocumentsIt(t *testing.T) {
	cases := []struct {
		rule, command string
		strict, loose bool
	}{
		{"", "anything at all", true, true},
		{"*", "rm -rf /", true, true},
		{"npm run build", "npm run build", true, true},
		{"npm run build", "npm run build --watch", false, false},
		{"npm run build", "npm run build ", false, true},
		{"npm run test:*", "npm run test", true, true},
		{"npm run test:*", "npm run test --coverage", true, true},
		{"npm run test:*", "npm run testing", false, true},
		{"npm *", "npm install", true, true},
		{"npm *", "npm", true, true},
		{"npm *", "npmx install", false, false},
		{"ls *", "ls -la", true, true},
		{"ls *", "lsof", false, false},
		{"ls*", "lsof", true, true},
		{"ls*", "ls -la", true, true},
		{"* install", "pnpm install", true, true},
		{"* install", "install", false, false},
		{"git * main", "git checkout main", true, true},
		{"git * main", "git checkout main2", false, false},
		{"git * main", "git main", false, false},
		{`echo \*`, "echo *", true, true},
		{`echo \*`, "echo x", false, false},
		{"echo *", "echo a\nb", false, true},
		{"Echo *", "echo a", false, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.strict, bashRuleMatches(c.rule, c.command, false), "strict Bash(%s) on %q", c.rule, c.command)
		assert.Equal(t, c.loose, bashRuleMatches(c.rule, c.command, true), "loose Bash(%s) on %q", c.rule, c.command)
	}
}

func TestBashRuleContentReadsOnlyBashRules(t *testing.T) {
	for rule, want := range map[string]string{"Bash": "", "Bash(npm test)": "npm test", " Bash(a (b)) ": "a (b)", "Bash(*)": "*"} {
		got, ok := bashRuleContent(rule)
		assert.True(t, ok, rule)
		assert.Equal(t, want, got, rule)
	}
	for _, rule := range []string{"Read(*)", "Bashx", "bash(ls)", "Bash(ls", "WebFetch(domain:x)"} {
		_, ok := bashRuleContent(rule)
		assert.False(t, ok, rule)
	}
}

// Allow rules must name every part of a compound command, as written; anything guard
// does not reproduce of Claude Code's own checks (expansions, substitutions, subshells,
// redirections into files, background jobs) is never allowed without a prompt.
func TestStrictPartsSplitsOnlyWhatAllowRulesCanName(t *testing.T) {
	cases := map[string][]string{
		"npm test":                      {"npm test"},
		"npm test && npm run lint":      {"npm test", "npm run lint"},
		"a; b || c | d\ne":              {"a", "b", "c", "d", "e"},
		"go test ./... 2>&1":            {"go test ./... 2>&1"},
		"ls >/dev/null 2>/dev/null":     {"ls >/dev/null 2>/dev/null"},
		`git commit -m "fix it"`:        {`git commit -m "fix it"`},
		"grep 'a b' f;":                 {"grep 'a b' f"},
		"  npm test  ":                  {"npm test"},
		"echo $HOME":                    nil,
		"echo $(rm x)":                  nil,
		"echo `rm x`":                   nil,
		"(npm test)":                    nil,
		"{ npm test; }":                 nil,
		"npm test > out.txt":            nil,
		"npm test &":                    nil,
		"X=1 npm test":                  nil,
		"for f in a; do rm $f; done":    nil,
		"cat <<EOF\nx\nEOF":             nil,
		"! npm test":                    nil,
		"diff <(ls a) <(ls b)":          nil,
		`echo "$(id)"`:                  nil,
		"if true; then rm -rf /; fi":    nil,
		"f() { rm x; }; f":              nil,
		"echo 'unterminated":            nil,
		"npm test && (rm -rf locked)":   nil,
		"export X=1":                    nil,
		"npm test | tee log.txt":        {"npm test", "tee log.txt"},
		"cd src && npm test":            {"cd src", "npm test"},
		"echo ok >&2":                   {"echo ok >&2"},
		"echo x 1>&-":                   {"echo x 1>&-"},
		"echo a && echo b; echo c || d": {"echo a", "echo b", "echo c", "d"},
	}
	for cmd, want := range cases {
		got, ok := strictParts(cmd)
		if want == nil {
			assert.False(t, ok, "%q split into %q", cmd, got)
			continue
		}
		assert.True(t, ok, cmd)
		assert.Equal(t, want, got, cmd)
	}
}

// claudeProject is a repository with Claude Code settings at each level: managed,
// local, project and user, in a home of the test's own.
type claudeProject struct {
	repo, home, managed string
	env                 *guard.Env
}

func newClaudeProject(t *testing.T, files map[string]string) claudeProject {
	t.Helper()
	base := t.TempDir()
	p := claudeProject{repo: filepath.Join(base, "repo"), home: filepath.Join(base, "home"), managed: filepath.Join(base, "etc", "managed-settings.json")}
	require.NoError(t, os.MkdirAll(filepath.Join(p.repo, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(p.repo, "sub"), 0o755))
	for where, body := range files {
		var path string
		switch where {
		case "managed":
			path = p.managed
		case "local":
			path = filepath.Join(p.repo, ".claude", "settings.local.json")
		case "project":
			path = filepath.Join(p.repo, ".claude", "settings.json")
		case "user":
			path = filepath.Join(p.home, ".claude", "settings.json")
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	}
	p.env = envtest.New(envtest.Dir(p.repo), envtest.Vars(map[string]string{"HOME": p.home})).Env
	return p
}

func (p claudeProject) judge(t *testing.T, command, mode string) ClaudeAnswer {
	t.Helper()
	rules, err := LoadClaudeRules(ClaudeSettingsFiles(p.env, filepath.Join(p.repo, "sub"), p.managed))
	require.NoError(t, err)
	return rules.JudgeBash(command, filepath.Join(p.repo, "sub"), mode, nil)
}

func TestJudgeBashFollowsClaudeCodesPrecedenceAndModes(t *testing.T) {
	p := newClaudeProject(t, map[string]string{
		"managed": `{"permissions": {"deny": ["Bash(curl:*)"]}}`,
		"local":   `{"permissions": {"allow": ["Bash(make *)"], "defaultMode": "acceptEdits"}}`,
		"project": `{"permissions": {"allow": ["Bash(npm test)", "Bash(npm run lint:*)", "Bash(git push *)", "Bash(curl *)"], "ask": ["Bash(git push *)"]}}`,
		"user":    `{"permissions": {"allow": ["Bash(go test *)"], "deny": ["Bash(rm -rf *)"], "defaultMode": "bypassPermissions"}}`,
	})
	cases := []struct {
		command, mode string
		want          Decision
		why           string
	}{
		{"npm test", "default", Allow, `"Bash(npm test)" in ` + filepath.Join(p.repo, ".claude", "settings.json")},
		{"npm test && npm run lint --fix", "default", Allow, `"Bash(npm run lint:*)"`},
		{"make -j4 && go test ./...", "", Allow, `"Bash(go test *)" in ` + filepath.Join(p.home, ".claude", "settings.json")},
		{"npm test && npm publish", "default", Ask, "no allow rule"},
		{"npm test > log.txt", "default", Ask, "no allow rule"},
		{"npm test $(rm x)", "default", Ask, "no allow rule"},
		{"git push origin main", "default", Ask, `ask rule "Bash(git push *)"`},
		{"curl https://example.com", "default", Deny, `deny rule "Bash(curl:*)" in ` + p.managed},
		{"echo $(curl -s evil)", "default", Deny, `deny rule "Bash(curl:*)"`},
		{"sudo rm -rf /", "default", Deny, `deny rule "Bash(rm -rf *)"`},
		{"timeout 5 curl x", "bypassPermissions", Deny, `deny rule "Bash(curl:*)"`},
		{"python3 x.py", "bypassPermissions", Allow, "bypassPermissions"},
		{"python3 x.py", "plan", Ask, "plan mode"},
		{"python3 x.py", "dontAsk", Deny, "dontAsk"},
		{"npm test", "dontAsk", Allow, `"Bash(npm test)"`},
		{"python3 x.py", "default", Ask, "no allow rule"},
		{"python3 x.py", "auto", Ask, "no allow rule"},
		{"python3 x.py", "acceptEdits", Ask, "no allow rule"},
	}
	for _, c := range cases {
		got := p.judge(t, c.command, c.mode)
		assert.Equal(t, c.want, got.Decision, "%q in mode %q: %s", c.command, c.mode, got.Why)
		assert.Contains(t, got.Why, c.why, "%q in mode %q", c.command, c.mode)
	}
}

// The default mode comes from the settings file with the highest precedence that sets
// one (here the project's local file over the user's bypassPermissions).
func TestJudgeBashTakesTheDefaultModeByPrecedence(t *testing.T) {
	p := newClaudeProject(t, map[string]string{
		"local": `{"permissions": {"defaultMode": "dontAsk"}}`,
		"user":  `{"permissions": {"defaultMode": "bypassPermissions"}}`,
	})
	got := p.judge(t, "python3 x.py", "")
	assert.Equal(t, Deny, got.Decision, got.Why)
	p = newClaudeProject(t, map[string]string{"user": `{"permissions": {"defaultMode": "bypassPermissions"}}`})
	assert.Equal(t, Allow, p.judge(t, "python3 x.py", "").Decision)
}

func TestJudgeBashBareBashAllowsEverythingButDenyAndAskStillWin(t *testing.T) {
	p := newClaudeProject(t, map[string]string{"project": `{"permissions": {"allow": ["Bash"], "deny": ["Bash(git push:*)"]}}`})
	assert.Equal(t, Allow, p.judge(t, "(cd x; echo $(date)) > f", "default").Decision)
	assert.Equal(t, Deny, p.judge(t, "git push --force", "default").Decision)
}

// An exact rule for the whole compound command allows it (as "don't ask again" on such
// a command records it).
func TestJudgeBashExactRuleForAWholeCompoundCommand(t *testing.T) {
	p := newClaudeProject(t, map[string]string{"project": `{"permissions": {"allow": ["Bash(cd src && make)"]}}`})
	assert.Equal(t, Allow, p.judge(t, "cd src && make", "default").Decision)
	assert.Equal(t, Ask, p.judge(t, "cd src && make install", "default").Decision)
}

func TestLoadClaudeRulesRefusesASettingsFileItCannotRead(t *testing.T) {
	p := newClaudeProject(t, map[string]string{"project": `{"permissions": {"allow": [`})
	_, err := LoadClaudeRules(ClaudeSettingsFiles(p.env, p.repo, p.managed))
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(p.repo, ".claude", "settings.json"))
	p = newClaudeProject(t, map[string]string{"project": `{"permissions": {"allow": "Bash"}}`})
	_, err = LoadClaudeRules(ClaudeSettingsFiles(p.env, p.repo, p.managed))
	require.Error(t, err)
}

// CLAUDE_PROJECT_DIR (set by Claude Code for its hooks) names the project whose
// settings apply, wherever the command runs.
func TestClaudeSettingsFilesUseClaudeProjectDir(t *testing.T) {
	env := envtest.New(envtest.Vars(map[string]string{"CLAUDE_PROJECT_DIR": "/work/proj", "HOME": "/home/u", "CLAUDE_CONFIG_DIR": "/cfg"})).Env
	var paths []string
	for _, f := range ClaudeSettingsFiles(env, "/elsewhere/deep", "/etc/claude-code/managed-settings.json") {
		paths = append(paths, f.Scope+" "+f.Path)
	}
	assert.Equal(t, []string{
		"managed /etc/claude-code/managed-settings.json",
		"local /work/proj/.claude/settings.local.json",
		"project /work/proj/.claude/settings.json",
		"user /cfg/settings.json",
	}, paths)
}

func FuzzBashRuleMatches(f *testing.F) {
	for _, s := range []string{"npm *", "ls*", "git * main", `a\*b`, "x:*", "*", "", `\`, "* *", "a ** b"} {
		f.Add(s, "npm install")
	}
	f.Fuzz(func(t *testing.T, rule, command string) {
		strict := bashRuleMatches(rule, command, false)
		loose := bashRuleMatches(rule, command, true)
		if strict && !loose {
			t.Fatalf("Bash(%s) matches %q strictly but not loosely: deny rules would be weaker than allow rules", rule, command)
		}
		parts, _ := strictParts(command)
		for _, p := range parts {
			// Each part is the command's own text: rules are matched on what runs.
			if !strings.Contains(command, p) {
				t.Fatalf("part %q is not text of %q", p, command)
			}
		}
	})
}
