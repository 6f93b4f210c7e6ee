package lockcore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFnmatchCaseFollowsPythonFnmatch(t *testing.T) {
	cases := []struct {
		name, s, pat string
		want         bool
	}{
		{"a star matches anything, slashes included", "src/a/b.go", "src*", true},
		{"a star matches the empty string", "", "*", true},
		{"a question mark matches exactly one rune", "ab", "a?", true},
		{"a question mark does not match nothing", "a", "a?", false},
		{"a set matches one of its runes", "b", "[abc]", true},
		{"a negated set excludes its runes", "b", "[!abc]", false},
		{"a range matches inside it", "m", "[a-z]", true},
		{"a reversed range matches nothing", "m", "[z-a]", false},
		{"a bracket right after the opening is part of the set", "]", "[]]", true},
		{"an unclosed bracket is a literal", "[a", "[a", true},
		{"a trailing hyphen in a set is literal", "-", "[a-]", true},
		{"a backslash is an ordinary character", `a\b`, `a\b`, true},
		{"matching is case-sensitive", "A", "a", false},
		{"the whole string must match", "abc", "ab", false},
		{"stars between literals backtrack correctly", "mcp__github__delete_repo", "mcp__*__delete*", true},
		{"a star does not invent missing literals", "mcp__github__create", "mcp__*__delete*", false},
		{"a star matches across newlines", "a\nb", "a*b", true},
		{"a question mark matches a newline", "\n", "?", true},
		{"multi-byte runes count as one", "é", "?", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, fnmatchCase(c.s, c.pat))
		})
	}
}

func TestFnmatchCaseStaysFastOnManyStars(t *testing.T) {
	s := strings.Repeat("a", 5000)
	pat := strings.Repeat("*a", 2000) + "b"
	start := time.Now()
	assert.False(t, fnmatchCase(s, pat))
	assert.Less(t, time.Since(start), 2*time.Second, "matching must not backtrack exponentially")
}

func TestRuleMatchesAsTheReferenceDoes(t *testing.T) {
	cases := []struct {
		name, action, rule string
		want               bool
	}{
		{"a bare tool rule matches any argument", "Bash(rm -rf /)", "Bash", true},
		{"tool names compare case-folded", "bash(ls)", "BASH", true},
		{"a tool glob matches mcp tools", "mcp__github__delete_repo", "mcp__*__delete*", true},
		{"a tool glob rejects other tools", "mcp__github__list_repos", "mcp__*__delete*", false},
		{"a prefix rule matches the bare word", "Bash(rm)", "Bash(rm:*)", true},
		{"a prefix rule matches the word with arguments", "Bash(rm -rf x)", "Bash(rm:*)", true},
		{"a prefix rule does not match a longer word", "Bash(rmdir x)", "Bash(rm:*)", false},
		{"a prefix rule folds case and strips spaces", "Bash(  RM -rf x )", "Bash( rm :*)", true},
		{"a double star argument matches everything", "Edit(a/b/c)", "Edit(**)", true},
		{"a single star argument matches everything", "Edit()", "Edit(*)", true},
		{"an argument glob crosses slashes", "Edit(src/deep/file.go)", "Edit(src/*.go)", true},
		{"a double star inside an argument acts as a star", "Edit(src/a/b.go)", "Edit(src/**.go)", true},
		{"an argument glob must match the whole argument", "Edit(src/a.go.bak)", "Edit(src/*.go)", false},
		{"an action without argument counts as empty", "Edit", "Edit(src/*)", false},
		{"an action without argument matches an empty-matching glob", "Edit", "Edit(*x*)", false},
		{"arguments compare case-folded", "Edit(SRC/A.GO)", "Edit(src/*.go)", true},
		{"a malformed token is all tool", "Bash (x", "Bash (x", true},
		{"a malformed token does not match another tool", "Bash (x", "Bash", false},
		{"the sharp s folds to ss", "Edit(STRASSE)", "Edit(straße)", true},
		{"a final sigma folds like sigma", "Edit(ΟΔΟΣ)", "Edit(οδος)", true},
		{"a long s folds to s", "Edit(ſ)", "Edit(S)", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, RuleMatches(c.action, c.rule))
		})
	}
}

func TestEvaluatePrecedenceAndAgents(t *testing.T) {
	p, err := ParsePermissions([]byte(`{
  "format": "lock-permissions-v1",
  "default": "allow",
  "rules": {
    "allow": ["Bash(git status)", "Bash(rm:*)"],
    "ask":   ["Bash(git push:*)", "Bash(rm -rf build)"],
    "deny":  ["Bash(rm -rf:*)", "mcp__*__delete*"]
  },
  "applies_to_agents": ["agent-1", "claude"]
}`))
	require.NoError(t, err)
	cases := []struct {
		name, agent, action string
		want                Decision
		rule                string
	}{
		{"deny wins over ask and allow", "agent-1", "Bash(rm -rf build)", Deny, "Bash(rm -rf:*)"},
		{"ask wins over allow", "agent-1", "Bash(git push origin main)", Ask, "Bash(git push:*)"},
		{"allow applies when nothing stronger matches", "agent-1", "Bash(rm x)", Allow, "Bash(rm:*)"},
		{"an unmatched action gets the default", "agent-1", "Read(x)", Allow, ""},
		{"a tool glob denies mcp deletions", "claude", "mcp__github__delete_repo", Deny, "mcp__*__delete*"},
		{"an agent the file does not name gets the default", "other", "mcp__github__delete_repo", Allow, ""},
		{"agent names compare exactly", "Agent-1", "Bash(rm -rf x)", Allow, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := p.Explain(c.agent, c.action)
			assert.Equal(t, c.want, m.Decision)
			assert.Equal(t, c.rule, m.Rule)
			assert.Equal(t, c.want, p.Evaluate(c.agent, c.action))
		})
	}
}

func TestParsePermissionsDefaults(t *testing.T) {
	p, err := ParsePermissions([]byte(`{"rules": {"deny": ["Bash"]}}`))
	require.NoError(t, err)
	assert.Equal(t, Allow, p.Default)
	assert.Equal(t, []string{"*"}, p.AppliesToAgents)
	assert.Equal(t, Deny, p.Evaluate("anyone", "Bash(ls)"))

	p, err = ParsePermissions([]byte(`{"default": "ask"}`))
	require.NoError(t, err)
	assert.Equal(t, Ask, p.Evaluate("anyone", "Bash(ls)"))
}

func TestParsePermissionsRejectsBadShapes(t *testing.T) {
	cases := []struct {
		name, body, msg string
	}{
		{"a syntax error names line and column", "{\n  \"default\": \"allow\",\n  oops\n}", "line 3, column 3"},
		{"an unknown default is refused", `{"default": "maybe"}`, `default "maybe"`},
		{"a rule list that is not a list is refused", `{"rules": {"deny": "Bash"}}`, "rules.deny is not a list"},
		{"a rule that is not a string is refused", `{"rules": {"deny": [1]}}`, "rules.deny[0] is not a string"},
		{"agents that are not strings are refused", `{"applies_to_agents": [1]}`, "applies_to_agents"},
		{"a JSON array is refused", `[]`, "line 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePermissions([]byte(c.body))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.msg)
		})
	}
}

func TestLoadPermissionsPrefersJSONFileWithoutFallthrough(t *testing.T) {
	dir := t.TempDir()
	p, path, err := LoadPermissions(dir)
	require.NoError(t, err)
	assert.Nil(t, p)
	assert.Equal(t, "", path)

	txt := filepath.Join(dir, "LOCK.permissions.txt")
	require.NoError(t, os.WriteFile(txt, []byte(`{"default": "deny"}`), 0o644))
	p, path, err = LoadPermissions(dir)
	require.NoError(t, err)
	assert.Equal(t, txt, path)
	assert.Equal(t, Deny, p.Default)

	js := filepath.Join(dir, "LOCK.permissions.json")
	require.NoError(t, os.WriteFile(js, []byte("{not json"), 0o644))
	p, path, err = LoadPermissions(dir)
	require.Error(t, err)
	assert.Nil(t, p)
	assert.Equal(t, js, path)
	assert.Contains(t, err.Error(), js)
	assert.Contains(t, err.Error(), "line 1, column 2")
}

func FuzzRuleMatches(f *testing.F) {
	for _, s := range [][2]string{
		{"Bash(rm -rf x)", "Bash(rm:*)"},
		{"mcp__github__delete_repo", "mcp__*__delete*"},
		{"Edit(src/a.go)", "Edit(src/**.go)"},
		{"Edit([x])", "Edit([!a-z]*)"},
		{"a", "[z-a]"},
		{strings.Repeat("a", 64), strings.Repeat("*a", 30) + "b"},
		{"Bash(\n)", "Bash(\n)\n"},
		{"\xff(\xfe)", "*(?)"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, action, rule string) {
		got := RuleMatches(action, rule)
		// A rule always matches itself when it has no glob or prefix syntax.
		if !strings.ContainsAny(rule, "*?[]:()") && strings.TrimSpace(rule) == rule && rule != "" {
			assert.True(t, RuleMatches(rule, rule), "plain rule %q must match itself", rule)
		}
		_ = got
		// The bare * tool rule matches every action.
		assert.True(t, RuleMatches(action, "*"))
	})
}

func FuzzFnmatchCase(f *testing.F) {
	f.Add("abc", "a*c")
	f.Add("", "[!]")
	f.Add("x]", "[]]*")
	f.Fuzz(func(t *testing.T, s, pat string) {
		start := time.Now()
		got := fnmatchCase(s, pat)
		assert.Less(t, time.Since(start), time.Second)
		// A pattern without special characters matches only itself.
		if !strings.ContainsAny(pat, "*?[") && utf8.ValidString(s) && utf8.ValidString(pat) {
			assert.Equal(t, s == pat, got)
		}
		assert.True(t, fnmatchCase(s, "*"+pat+"*") || !got, "adding stars cannot lose a match")
	})
}
