package agente2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// The agents' executables as .ci/setup-agent-clis installs them (node_modules/.bin).
const (
	Claude = "claude"
	Gemini = "gemini"
	Codex  = "codex"
)

// InstallDir is where .ci/setup-agent-clis installs the CLIs: GUARD_AGENT_CLIS, else
// $XDG_CACHE_HOME/guard-ci/agents, else ~/.cache/guard-ci/agents. It is only ever
// looked up there, never on PATH, so that a test runs the versions the script pins.
func InstallDir() string {
	if d := os.Getenv("GUARD_AGENT_CLIS"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "guard-ci", "agents")
}

// CLI returns the path of an installed agent CLI (Claude, Gemini or Codex), or skips
// the test saying how to install it.
func CLI(t testing.TB, name string) string {
	t.Helper()
	bin := filepath.Join(InstallDir(), "node_modules", ".bin", name)
	st, err := os.Stat(bin) // follows the link: a dangling one is absent too
	if err == nil && st.IsDir() {
		err = errors.New("a directory")
	}
	if err != nil {
		t.Skipf("the %s CLI is not installed (%v): run .ci/setup-agent-clis, or set GUARD_AGENT_CLIS to its folder", name, err)
	}
	if _, err := exec.LookPath("node"); err != nil && name != Claude {
		t.Skipf("the %s CLI needs node, which is not on PATH (%v)", name, err)
	}
	return bin
}

// Version is the CLI's own --version line (for a test's log: which version was driven).
func Version(t testing.TB, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "unknown version (" + err.Error() + ")"
	}
	return strings.TrimSpace(string(out))
}

// Run is one non-interactive agent session.
type Run struct {
	// Dir is the project folder the agent starts in.
	Dir string
	// Home is the session's HOME (the test's own, never the user's): the agents keep
	// their user settings, trust records and logs under it.
	Home string
	// Prompt is the user's message; the fake model does not read it.
	Prompt string
	// Env is added to the environment (after the defaults, so it wins).
	Env []string
	// Timeout bounds the session (default two minutes).
	Timeout time.Duration
	// Allow adds Claude Code permission rules to --allowedTools (Bash is always
	// there): mcp__guard lets guard mcp's tools run without a prompt, which -p has not.
	Allow []string
	// Model, for Codex, replaces CodexModel for this session (CodexToolModel lets the
	// fake model call guard mcp's tools).
	Model string
}

// Result is what the agent's process did.
type Result struct {
	Stdout, Stderr string
	Code           int
	Err            error // set when the process could not run or timed out
}

// baseEnv is the environment of every agent process: nothing of the user's besides
// PATH without guard (node, sh and git stay reachable).
func baseEnv(r Run) []string {
	return []string{
		"PATH=" + testenv.Path(),
		"HOME=" + r.Home,
		"USERPROFILE=" + r.Home,
		"XDG_CONFIG_HOME=" + filepath.Join(r.Home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(r.Home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(r.Home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(r.Home, ".local", "state"),
		"TMPDIR=" + os.TempDir(),
		"GIT_CONFIG_GLOBAL=/dev/null",
		"NO_COLOR=1",
		"TERM=dumb",
		"CI=true",
		"LANG=C.UTF-8",
	}
}

func prompt(r Run) string {
	if r.Prompt == "" {
		return "Do the task."
	}
	return r.Prompt
}

func run(t testing.TB, r Run, env []string, bin string, args ...string) Result {
	t.Helper()
	if r.Timeout == 0 {
		r.Timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = r.Dir
	cmd.Env = append(append(baseEnv(r), env...), r.Env...)
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := Result{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		res.Err = ctx.Err()
		res.Code = -1
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
	case err != nil:
		res.Err = err
		res.Code = -1
	}
	return res
}

// RunClaude runs `claude -p` against the fake model s: a dummy API key, no
// non-essential traffic, JSON output, and the Bash tool allowed without a prompt (so
// that only a hook can stop a command). Hooks come from the settings in r.Dir and
// r.Home, as a person's would.
func RunClaude(t testing.TB, s *Server, r Run, extraArgs ...string) Result {
	t.Helper()
	bin := CLI(t, Claude)
	env := []string{
		"ANTHROPIC_BASE_URL=" + s.URL,
		"ANTHROPIC_API_KEY=sk-ant-guard-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_ENTRYPOINT=cli",
	}
	args := append([]string{"-p", prompt(r), "--output-format", "json", "--model", "claude-sonnet-4-5",
		"--allowedTools", strings.Join(append([]string{"Bash"}, r.Allow...), ","), "--max-turns", "10"}, extraArgs...)
	return run(t, r, env, bin, args...)
}

// RunGemini runs `gemini -p` against the fake model s: API-key auth chosen in the
// user's settings (written into r.Home/.gemini/settings.json unless a test wrote its
// own), a trusted workspace, and --approval-mode yolo (so that only a hook can stop a
// command). Hooks come from the settings in r.Dir and r.Home, as a person's would.
func RunGemini(t testing.TB, s *Server, r Run, extraArgs ...string) Result {
	t.Helper()
	bin := CLI(t, Gemini)
	settings := filepath.Join(r.Home, ".gemini", "settings.json")
	if _, err := os.Stat(settings); errors.Is(err, os.ErrNotExist) {
		WriteFile(t, settings, GeminiUserSettings)
	}
	env := []string{
		"GOOGLE_GEMINI_BASE_URL=" + s.URL,
		"GEMINI_API_KEY=guard-test-key",
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_CLI_NO_RELAUNCH=true",
	}
	args := append([]string{"-p", prompt(r), "--approval-mode", "yolo", "--output-format", "json", "-m", "gemini-2.5-pro"}, extraArgs...)
	return run(t, r, env, bin, args...)
}

// GeminiUserSettings is the user settings RunGemini writes: API-key auth, and nothing
// sent anywhere but the model server.
const GeminiUserSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}
}
`

// WriteFile writes a file, creating its folder, or fails the test.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// CodexModel is a model name Codex knows (its tool set and prompts depend on it).
const CodexModel = "gpt-5.5"

// CodexToolModel is a model name Codex does not know. Codex offers MCP tools to the
// models of its catalog only through its tool_search, which the fake model does not
// play; to a model it does not know (fallback metadata, no tool search) it offers them
// directly, in a namespace tool named mcp__<server>, and the fake model calls them.
// Codex warns that the metadata is missing; its shell tool is the same.
const CodexToolModel = "guard-fake-model"

// CodexHome is the CODEX_HOME of a session in home.
func CodexHome(home string) string { return filepath.Join(home, ".codex") }

// CodexConfig is the config.toml RunCodex needs: the fake model as the provider (the
// Responses API, base_url ending in /v1). A test that writes its own config.toml (to
// trust a project, say) starts from this text.
func CodexConfig(s *Server) string {
	return `model = "` + CodexModel + `"
model_provider = "guardfake"
check_for_update_on_startup = false

[model_providers.guardfake]
name = "guard fake model"
base_url = "` + s.URL + `/v1"
wire_api = "responses"
env_key = "GUARD_FAKE_OPENAI_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false
`
}

// RunCodex runs `codex exec` against the fake model s, in CODEX_HOME r.Home/.codex
// (config.toml there is CodexConfig(s) unless the test wrote its own), with Codex's own
// sandbox off (danger-full-access: the machine's sandboxing is not what is tested, and
// only a hook may stop a command). Hooks come from hooks.json in r.Dir/.codex and the
// CODEX_HOME, and Codex runs them only where it trusts them.
func RunCodex(t testing.TB, s *Server, r Run, extraArgs ...string) Result {
	t.Helper()
	bin := CLI(t, Codex)
	config := filepath.Join(CodexHome(r.Home), "config.toml")
	if _, err := os.Stat(config); errors.Is(err, os.ErrNotExist) {
		WriteFile(t, config, CodexConfig(s))
	}
	env := []string{
		"CODEX_HOME=" + CodexHome(r.Home),
		"GUARD_FAKE_OPENAI_KEY=sk-guard-test",
		"OPENAI_API_KEY=sk-guard-test",
		"RUST_LOG=warn",
	}
	// The provider's address and the model are given per session, so that sessions
	// with one CODEX_HOME can talk to different fake models at once.
	model := r.Model
	if model == "" {
		model = CodexModel
	}
	args := []string{"exec", "--skip-git-repo-check", "--sandbox", "danger-full-access", "--color", "never",
		"-c", `model_providers.guardfake.base_url="` + s.URL + `/v1"`, "-c", `model="` + model + `"`}
	args = append(args, extraArgs...)
	args = append(args, prompt(r))
	return run(t, r, env, bin, args...)
}
