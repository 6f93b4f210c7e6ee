// Package action_test runs the GitHub Action (action.yml at the repository root and its
// script, run.sh) on real repositories: the script builds guard from this source tree
// and gates a range exactly as `guard ci` does.
package action_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

type actionFile struct {
	Name   string `yaml:"name"`
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			ID   string            `yaml:"id"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// Every input of action.yml reaches the script, which reads each one.
func TestActionPassesEveryInputToTheScript(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "action.yml"))
	require.NoError(t, err)
	var a actionFile
	require.NoError(t, yaml.Unmarshal(data, &a))
	assert.Equal(t, "composite", a.Runs.Using)
	script, err := os.ReadFile("run.sh")
	require.NoError(t, err)

	var run map[string]string
	for _, s := range a.Runs.Steps {
		if s.ID == "run" {
			run = s.Env
			assert.Equal(t, `bash "$GUARD_ACTION_PATH/action/run.sh"`, s.Run)
		}
	}
	require.NotNil(t, run, "action.yml has no step with id run")
	assert.Equal(t, "${{ github.action_path }}", run["GUARD_ACTION_PATH"])
	for name := range a.Inputs {
		if name == "working-directory" || name == "go-version" {
			continue // used by action.yml itself
		}
		v := "GUARD_INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		assert.Equal(t, "${{ inputs."+name+" }}", run[v], "input %s", name)
		assert.Contains(t, string(script), v, "run.sh never reads input %s", name)
	}
}

type repo struct {
	t    *testing.T
	home string
}

func (r repo) git(dir string, args ...string) string {
	r.t.Helper()
	return guardtest.Git(r.t, dir, args...)
}

func (r repo) commit(dir, msg string, files map[string]string) {
	r.t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(r.t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(r.t, os.WriteFile(p, []byte(content), 0o644))
		r.git(dir, "add", "--", rel)
	}
	r.git(dir, "commit", "-q", "-m", msg)
}

// goEnv is what the script's go build needs from the test's Go: the build and module
// caches (HOME is a temp dir, so the defaults would start cold) and no downloads.
func goEnv(t *testing.T) []string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	require.NoError(t, err)
	f := strings.Fields(string(out))
	require.Len(t, f, 2)
	return []string{"GOCACHE=" + f[0], "GOMODCACHE=" + f[1], "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false"}
}

// The action's script on a real clone, with from-source (guard built from this tree
// by go build): a pull request whose commit edits a folder under
// bob's committed lock fails the job with a workflow annotation; one that stays out of
// it passes; the built guard is put on PATH and in the step's outputs.
func TestActionScriptGatesARealRepository(t *testing.T) {
	src, err := filepath.Abs("..")
	require.NoError(t, err)
	top := t.TempDir()
	r := repo{t: t, home: filepath.Join(top, "home")}
	require.NoError(t, os.MkdirAll(r.home, 0o755))
	origin, seed := filepath.Join(top, "origin.git"), filepath.Join(top, "seed")
	r.git(top, "init", "-q", "--bare", origin)
	r.git(top, "clone", "-q", "file://"+origin, seed)
	r.git(seed, "checkout", "-q", "-b", "main")
	// The lock is committed: a fresh CI clone sees only committed lock files.
	created := time.Now().Add(-time.Hour).Format("2006-01-02 15:04")
	r.commit(seed, "base", map[string]string{
		"src/app.go": "package app\n", "vendor/lib.go": "package lib\n",
		"vendor/LOCK.txt": "owner: bob\ncreated: " + created + "\nexpires_after: 24h\npurpose: vendor upgrade\n",
	})
	r.git(seed, "push", "-q", "origin", "main")
	r.git(seed, "checkout", "-q", "-b", "into-vendor")
	r.commit(seed, "touch vendor", map[string]string{"vendor/lib.go": "package lib // changed\n"})
	r.git(seed, "push", "-q", "origin", "into-vendor")
	r.git(seed, "checkout", "-q", "-b", "into-src", "main")
	r.commit(seed, "touch src", map[string]string{"src/app.go": "package app // changed\n"})
	r.git(seed, "push", "-q", "origin", "into-src")

	run := func(branch string) (code int, stdout, stderr, ghPath, ghOutput string) {
		ci := filepath.Join(t.TempDir(), "ci")
		r.git(filepath.Dir(ci), "clone", "-q", "-b", branch, "file://"+origin, ci)
		runner := t.TempDir()
		ghPathFile, ghOutFile := filepath.Join(runner, "path"), filepath.Join(runner, "output")
		cmd := exec.Command("bash", filepath.Join(src, "action", "run.sh"))
		cmd.Dir = ci
		cmd.Env = append([]string{"PATH=" + testenv.Path(), "HOME=" + r.home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"RUNNER_TEMP=" + runner, "GITHUB_PATH=" + ghPathFile, "GITHUB_OUTPUT=" + ghOutFile,
			"GITHUB_STEP_SUMMARY=" + filepath.Join(runner, "summary"), "GITHUB_BASE_REF=main",
			"GUARD_ACTION_PATH=" + src, "GUARD_INPUT_FROM_SOURCE=true", "GUARD_INPUT_FORMAT=github", "GUARD_INPUT_OPS=", "GUARD_OWNER=alice", "GUARD_HOST=runner"},
			goEnv(t)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err, "stderr: %s", errb.String())
		}
		p, _ := os.ReadFile(ghPathFile)
		o, _ := os.ReadFile(ghOutFile)
		return code, out.String(), errb.String(), string(p), string(o)
	}

	code, stdout, stderr, ghPath, ghOutput := run("into-vendor")
	assert.Equal(t, 1, code, "stdout: %s\nstderr: %s", stdout, stderr)
	assert.Contains(t, stdout, "::error file=vendor/lib.go::")
	assert.Contains(t, stdout, "held by bob")
	assert.Regexp(t, `guard-action-bin\n$`, ghPath)
	assert.Regexp(t, `^guard=.*guard-action-bin/guard\n$`, ghOutput)

	code, stdout, stderr, _, _ = run("into-src")
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", stdout, stderr)
	assert.NotContains(t, stdout, "::error")
}
