package install

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

func TestFindGuardCall(t *testing.T) {
	cases := []struct {
		name     string
		src      string
		hook     string
		args     []string
		lastOnly bool
		line     int // 0: no call counts
		why      string
	}{
		{name: "a line of its own counts", src: "guard hook pre-commit\n", hook: "pre-commit", line: 1},
		{name: "after other commands, under sh -e, counts", src: "npm test\n\nguard hook pre-commit\nnpm run lint\n", hook: "pre-commit", line: 3},
		{name: "an absolute path to guard counts", src: "/opt/bin/guard hook pre-commit\n", hook: "pre-commit", line: 1},
		{name: "exec guard counts", src: "exec guard hook pre-commit\n", hook: "pre-commit", line: 1},
		{name: "a refusal swallowed by || does not", src: "guard hook pre-commit || true\n", hook: "pre-commit", why: "has no command `guard hook pre-commit` of its own"},
		{name: "a negated call does not", src: "! guard hook pre-commit\n", hook: "pre-commit", why: "of its own"},
		{name: "a call in a function does not", src: "f() { guard hook pre-commit; }\n", hook: "pre-commit", why: "of its own"},
		{name: "a background call does not", src: "guard hook pre-commit &\n", hook: "pre-commit", why: "of its own"},
		{name: "a call after exit does not", src: "exit 0\nguard hook pre-commit\n", hook: "pre-commit", why: "exits on line 1"},
		{name: "another hook's call does not", src: "guard hook pre-push \"$@\"\n", hook: "pre-commit", why: "of its own"},
		{name: "a commented call does not", src: "# guard hook pre-commit\nnpm test\n", hook: "pre-commit", why: "of its own"},
		{name: "pre-push with git's arguments counts", src: "guard hook pre-push \"$@\"\n", hook: "pre-push", args: pushArgs, line: 1},
		{name: "pre-push without git's arguments does not", src: "guard hook pre-push\n", hook: "pre-push", args: pushArgs, why: "without git's arguments"},
		{name: "after set +e only the last command counts", src: "set +e\nguard hook pre-commit\necho done\n", hook: "pre-commit", why: "goes on after it fails"},
		{name: "after set +e the last command counts", src: "set +e\necho start\nguard hook pre-commit\n", hook: "pre-commit", line: 3},
		{name: "set -e again restores it", src: "set +e\nset -eu\nguard hook pre-commit\necho done\n", hook: "pre-commit", line: 3},
		{name: "in lefthook's run it must be the last command", src: "guard hook pre-commit; echo ok", hook: "pre-commit", lastOnly: true, why: "goes on after it fails"},
		{name: "lefthook's argument templates are words", src: "guard hook pre-push {1} {2}", hook: "pre-push", args: []string{"{1} {2}"}, lastOnly: true, line: 1},
		{name: "a script that does not parse does not", src: "if then fi (\n", hook: "pre-commit", why: "cannot be read as a shell script"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			call, why, _ := findGuardCall(tc.src, tc.hook, tc.args, tc.lastOnly)
			if tc.line == 0 {
				assert.Contains(t, why, tc.why)
				return
			}
			assert.Equal(t, "", why)
			assert.Equal(t, tc.line, call.Line)
		})
	}
}

func testEnv(t *testing.T, vars map[string]string) *guard.Env {
	t.Helper()
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "guard"), []byte("#!/bin/sh\n"), 0o755))
	seen := map[string]string{"PATH": bin}
	for k, v := range vars {
		if k != "PATH" {
			seen[k] = v
		}
	}
	return envtest.New(envtest.Vars(seen)).Env
}

func TestLefthookConfigDecides(t *testing.T) {
	recipe := "pre-commit:\n  commands:\n    guard:\n      run: guard hook pre-commit\npre-push:\n  commands:\n    guard:\n      run: guard hook pre-push {1} {2}\n      use_stdin: true\n"
	hookFile := []byte(`call_lefthook run "pre-commit" "$@"`)
	cases := []struct {
		name  string
		files map[string]string
		vars  map[string]string
		hook  string
		via   string
		why   string
	}{
		{name: "the README's recipe runs guard for pre-commit", files: map[string]string{"lefthook.yml": recipe}, hook: "pre-commit", via: "lefthook.yml pre-commit.commands.guard"},
		{name: "and for pre-push", files: map[string]string{"lefthook.yml": recipe}, hook: "pre-push", via: "lefthook.yml pre-push.commands.guard"},
		{name: "a hook without guard does not", files: map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n    lint:\n      run: npm run lint\n"}, hook: "pre-commit", why: "has no command `guard hook pre-commit`"},
		{name: "a config without the hook does not", files: map[string]string{"lefthook.yml": recipe}, hook: "pre-merge-commit", why: "lefthook.yml has no pre-merge-commit hook"},
		{name: "no configuration runs nothing", hook: "pre-commit", why: "there is no lefthook.yml"},
		{name: "jobs count like commands", files: map[string]string{".lefthook.yaml": "pre-commit:\n  jobs:\n    - name: lint\n      run: npm run lint\n    - run: guard hook pre-commit\n"}, hook: "pre-commit", via: ".lefthook.yaml pre-commit.jobs.1"},
		{name: "a job in a group counts", files: map[string]string{"lefthook.yml": "pre-commit:\n  jobs:\n    - name: checks\n      group:\n        parallel: true\n        jobs:\n          - name: guard\n            run: guard hook pre-commit\n"}, hook: "pre-commit", via: "pre-commit.jobs.checks.group.jobs.guard"},
		{name: "TOML is read", files: map[string]string{"lefthook.toml": "[pre-commit.commands.guard]\nrun = \"guard hook pre-commit\"\n"}, hook: "pre-commit", via: "lefthook.toml pre-commit.commands.guard"},
		{name: "JSON is read", files: map[string]string{".config/lefthook.json": `{"pre-commit": {"commands": {"guard": {"run": "guard hook pre-commit"}}}}`}, hook: "pre-commit", via: filepath.Join(".config", "lefthook.json")},
		{name: "a glob may skip guard", files: map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n    guard:\n      run: guard hook pre-commit\n      glob: '*.go'\n"}, hook: "pre-commit", why: "with `glob:`, so lefthook may skip it"},
		{name: "a skipped hook runs nothing", files: map[string]string{"lefthook.yml": "pre-commit:\n  skip: merge\n  commands:\n    guard:\n      run: guard hook pre-commit\n"}, hook: "pre-commit", why: "sets `skip:` on the whole pre-commit hook"},
		{name: "pre-push without use_stdin checks nothing", files: map[string]string{"lefthook.yml": "pre-push:\n  commands:\n    guard:\n      run: guard hook pre-push {1} {2}\n"}, hook: "pre-push", why: "without `use_stdin: true`"},
		{name: "pre-push without the arguments does not", files: map[string]string{"lefthook.yml": "pre-push:\n  commands:\n    guard:\n      run: guard hook pre-push\n      use_stdin: true\n"}, hook: "pre-push", why: "without git's arguments"},
		{name: "lefthook-local overrides the main config", files: map[string]string{"lefthook.yml": recipe, "lefthook-local.yml": "pre-commit:\n  commands:\n    guard:\n      skip: true\n"}, hook: "pre-commit", why: "lefthook.yml + lefthook-local.yml runs guard in pre-commit.commands.guard, but with `skip:`"},
		{name: "lefthook-local alone is a configuration", files: map[string]string{"lefthook-local.yml": recipe}, hook: "pre-commit", via: "lefthook-local.yml pre-commit.commands.guard"},
		{name: "LEFTHOOK_EXCLUDE of guard's command turns it off", files: map[string]string{"lefthook.yml": recipe}, vars: map[string]string{"LEFTHOOK_EXCLUDE": "lint,guard"}, hook: "pre-commit", why: "LEFTHOOK_EXCLUDE excludes \"guard\""},
		{name: "LEFTHOOK_CONFIG names the main config", files: map[string]string{"lefthook.yml": "pre-commit:\n  commands: {}\n", "ci/hooks.yml": recipe}, vars: map[string]string{"LEFTHOOK_CONFIG": "ci/hooks.yml"}, hook: "pre-commit", via: filepath.Join("ci", "hooks.yml") + " pre-commit.commands.guard"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			for name, content := range tc.files {
				p := filepath.Join(top, filepath.FromSlash(name))
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
			}
			m := examineLefthook(testEnv(t, tc.vars), top, tc.hook, hookFile)
			assert.Equal(t, "lefthook", m.Manager)
			if tc.via == "" {
				assert.Empty(t, m.Via)
				assert.Contains(t, m.Why, tc.why)
				return
			}
			require.Len(t, m.Via, 1, m.Why)
			assert.Contains(t, m.Via[0], tc.via)
			assert.True(t, m.GuardOK)
		})
	}
}

func TestPreCommitFrameworkConfigDecides(t *testing.T) {
	remote := "repos:\n- repo: https://example.com/guard\n  rev: v1\n  hooks:\n  - id: guard\n  - id: guard-pre-push\n"
	cases := []struct {
		name   string
		config string
		vars   map[string]string
		hook   string
		via    string
		why    string
	}{
		{name: "guard's id runs in the commit stage", config: remote, hook: "pre-commit", via: "hook guard"},
		{name: "and in the merge-commit stage", config: remote, hook: "pre-merge-commit", via: "hook guard"},
		{name: "guard-pre-push runs in the push stage", config: remote, hook: "pre-push", via: "hook guard-pre-push"},
		{name: "without guard-pre-push nothing runs guard on push", config: "repos:\n- repo: https://example.com/guard\n  rev: v1\n  hooks:\n  - id: guard\n", hook: "pre-push", why: "has no guard hook for the push stage"},
		{name: "stages set in the config decide", config: "repos:\n- repo: https://example.com/guard\n  rev: v1\n  hooks:\n  - id: guard\n    stages: [merge-commit]\n", hook: "pre-commit", why: "does not run in the commit stage"},
		{name: "the new stage names count", config: "repos:\n- repo: https://example.com/guard\n  rev: v1\n  hooks:\n  - id: guard\n    stages: [pre-commit]\n", hook: "pre-commit", via: "hook guard"},
		{name: "a local hook needs always_run", config: "repos:\n- repo: local\n  hooks:\n  - id: mine\n    name: guard\n    entry: guard hook pre-commit\n    language: system\n    pass_filenames: false\n", hook: "pre-commit", why: "lacks `always_run: true`"},
		{name: "a local hook with always_run and no file names counts", config: "repos:\n- repo: local\n  hooks:\n  - id: mine\n    name: guard\n    entry: guard hook pre-commit\n    language: system\n    always_run: true\n    pass_filenames: false\n", hook: "pre-commit", via: "hook mine"},
		{name: "SKIP of guard's id turns it off", config: remote, vars: map[string]string{"SKIP": "flake8,guard"}, hook: "pre-commit", why: "SKIP=flake8,guard"},
		{name: "a config without guard does not", config: "repos: []\n", hook: "pre-commit", why: "has no guard hook for the commit stage"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			via, _, why := frameworkGuardHook(testEnv(t, tc.vars), ".pre-commit-config.yaml", []byte(tc.config), tc.hook)
			if tc.via == "" {
				assert.Equal(t, "", via)
				assert.Contains(t, why, tc.why)
				return
			}
			assert.Contains(t, via, tc.via, why)
		})
	}
}

func TestFrameworkArgs(t *testing.T) {
	hook := "#!/usr/bin/env bash\n" + preCommitFrameworkMark + "\nINSTALL_PYTHON=/usr/bin/python3\nARGS=(hook-impl '--config=ci/pre commit.yaml' --hook-type=pre-commit --skip-on-missing-config)\n"
	config, skip := frameworkArgs([]byte(hook))
	assert.Equal(t, "ci/pre commit.yaml", config)
	assert.True(t, skip)
	config, skip = frameworkArgs([]byte(strings.Replace(hook, " --skip-on-missing-config", "", 1)))
	assert.Equal(t, "ci/pre commit.yaml", config)
	assert.False(t, skip)
}
