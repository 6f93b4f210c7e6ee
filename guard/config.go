package guard

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// ConfigFileName is the name of guard's per-repository configuration file.
const ConfigFileName = ".guard.toml"

// Config is .guard.toml (CONTRACT.md section 6).
type Config struct {
	// Path is the file the configuration was read from ("" for the zero config);
	// Dir is its directory.
	Path string `toml:"-"`
	Dir  string `toml:"-"`

	Owner     string `toml:"owner"`
	Host      string `toml:"host"`
	RootsFile string `toml:"roots_file"`
	// Scopes maps a lock scope to globs, relative to the lock's directory, of the
	// paths that scope covers ("*" within a segment, "**" across segments).
	Scopes  map[string][]string `toml:"scopes"`
	Publish PublishConfig       `toml:"publish"`
	GitHub  GitHubConfig        `toml:"github"`
	// APIURL is also accepted at the top level, as CONTRACT.md section 6 lists it.
	APIURL string      `toml:"api_url"`
	Agent  AgentConfig `toml:"agent"`
	// Resources is the [resources] table.
	Resources ResourcesConfig `toml:"resources"`
	// Backend is the [backend] table (CONTRACT.md section 10); nil without one.
	Backend *BackendConfig `toml:"backend"`
	// Server is the [server] table (CONTRACT.md section 13): read by the server-side
	// hooks from the .guard.toml beside or above a bare repository.
	Server ServerConfig `toml:"server"`
}

// ResourcesConfig is the [resources] table.
type ResourcesConfig struct {
	// Dir is where resource locks live (relative to the .guard.toml's directory).
	Dir string `toml:"dir"`
}

// PublishConfig is the [publish] table.
type PublishConfig struct {
	// Commands maps command words ("make release") to the operation they perform.
	Commands map[string]string `toml:"commands"`
	// RequirePublic refuses publication when no PUBLIC.txt approves it.
	RequirePublic bool `toml:"require_public"`
}

// GitHubConfig is the [github] table.
type GitHubConfig struct {
	Owners []string `toml:"owners"`
	APIURL string   `toml:"api_url"`
	// Strict makes an unknown repository visibility a refusal in the pre-push check.
	Strict bool `toml:"strict"`
}

// AgentConfig is the [agent] table.
type AgentConfig struct {
	// Claim makes an agent's first write into a free area claim it.
	Claim bool `toml:"claim"`
	// ClaimExpires is the lifetime of such a claim (default 30m).
	ClaimExpires string `toml:"claim_expires"`
	// Strict makes the agent hook ask, near a lock that would refuse the agent, before
	// running code guard cannot read (interpreter code, builds, tests, scripts);
	// by default they are allowed with a warning.
	Strict bool `toml:"strict"`
	// Sandbox is whether the agent hook runs the shell commands it lets through under
	// guard sandbox: "auto" (the default, also for ""), true or false (SandboxMode).
	Sandbox SandboxMode `toml:"sandbox"`
}

// SandboxMode is [agent] sandbox (CONTRACT.md section 4).
type SandboxMode string

// The values of [agent] sandbox. "" (the key absent) is SandboxAuto.
const (
	// SandboxAuto rewrites every shell command to run under guard sandbox wherever
	// the exact sandbox is available and the client keeps its prompts; elsewhere
	// what guard cannot judge is asked near a lock.
	SandboxAuto SandboxMode = "auto"
	// SandboxOn requires the exact sandbox: a shell command that cannot run under
	// it is refused.
	SandboxOn SandboxMode = "true"
	// SandboxOff never rewrites (then only [agent] strict asks near a lock).
	SandboxOff SandboxMode = "false"
)

// Mode is m with "" read as SandboxAuto.
func (m SandboxMode) Mode() SandboxMode {
	if m == "" {
		return SandboxAuto
	}
	return m
}

// UnmarshalTOML reads sandbox = true, false or "auto"; anything else is an error
// naming the values it may have.
func (m *SandboxMode) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case bool:
		*m = SandboxOff
		if v {
			*m = SandboxOn
		}
		return nil
	case string:
		switch v {
		case "auto":
			*m = SandboxAuto
			return nil
		case "true", "false":
			*m = SandboxMode(v)
			return nil
		}
	}
	return fmt.Errorf(`[agent] sandbox must be true, false or "auto", not %v`, v)
}

// GitHubAPIURL returns the configured API base URL, [github] first.
func (c *Config) GitHubAPIURL() string {
	if c.GitHub.APIURL != "" {
		return c.GitHub.APIURL
	}
	return c.APIURL
}

// LoadConfig reads the configuration file at path. A malformed file is an error that
// names the file and the line.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if line, what := notText(data); line > 0 {
		return nil, fmt.Errorf("%s:%d: %s: this is not a TOML text file", path, line, what)
	}
	cfg := &Config{Path: path, Dir: filepath.Dir(path)}
	if _, err := toml.Decode(string(data), cfg); err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return nil, fmt.Errorf("%s:%d: %s", path, errorLine(data, perr), perr.Message)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cfg.Backend != nil {
		if err := cfg.Backend.validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: [backend] %w", path, tableLine(data, "backend"), err)
		}
	}
	if err := cfg.Server.validate(); err != nil {
		return nil, fmt.Errorf("%s:%d: [server] %w", path, tableLine(data, "server"), err)
	}
	return cfg, nil
}

// tableLine is the line of the [name] header in data (1 when it is not found, say for
// an inline table), so that a bad value of the table is reported near it.
func tableLine(data []byte, name string) int {
	for i, line := range bytes.Split(data, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if bytes.HasPrefix(t, []byte("[")) && string(bytes.TrimSpace(bytes.Trim(t, "[]"))) == name {
			return i + 1
		}
	}
	return 1
}

// FindConfig returns the .guard.toml that governs dir: the nearest one in dir or above
// it, stopping at the repository root (the first directory holding .git). It returns
// an empty Config (never nil) when there is none.
func FindConfig(dir string) (*Config, error) {
	for d := filepath.Clean(dir); ; {
		p := filepath.Join(d, ConfigFileName)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return LoadConfig(p)
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return &Config{}, nil
}

// notText finds the first byte that cannot be in a TOML file (a control character
// other than tab and line breaks, or invalid UTF-8) and returns its line, so that a
// binary file is named with the line of the problem: the TOML parser reports such
// bytes without a useful position.
func notText(data []byte) (line int, what string) {
	line = 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return line, fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", data[i])
		case r == '\n':
			line++
		case r == '\t' || r == '\r':
		case r < 0x20 || r == 0x7f:
			return line, fmt.Sprintf("control character 0x%02x", r)
		}
		i += size
	}
	return 0, ""
}

// errorLine is the line of a TOML syntax error, counted from the error's byte offset:
// the parser's own line number has already moved past a newline it choked on.
func errorLine(data []byte, perr toml.ParseError) int {
	start := perr.Position.Start
	if start <= 0 || start > len(data) {
		return perr.Position.Line
	}
	return bytes.Count(data[:start], []byte("\n")) + 1
}
