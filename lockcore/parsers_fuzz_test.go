package lockcore

import (
	"strings"
	"testing"
)

// FuzzParseRootsConfig: no lock_roots.json makes the loader panic, and an error names
// the file.
func FuzzParseRootsConfig(f *testing.F) {
	f.Add([]byte(`{"default_max_depth": 4, "shallow_depth": 2, "skip_dirs": [".git"], "roots": [{"path": "$HOME/x", "shallow": true}], "caches": [{"name": "a", "path": "~/c.md", "filter_prefix": "${HOME}"}]}`))
	f.Add([]byte(`{"roots": [{"path": 5}]}`))
	f.Add([]byte("{\n  \"roots\": [\n"))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseRootsConfig("lock_roots.json", data, Expander{})
		if err != nil {
			if !strings.Contains(err.Error(), "lock_roots.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, r := range cfg.Roots {
			if d := cfg.DepthOf(r); d < 0 {
				t.Fatalf("negative depth %d for %+v", d, r)
			}
		}
	})
}

// FuzzParsePermissions: no permissions file makes the parser or the evaluator panic,
// and every answer is allow, deny or ask.
func FuzzParsePermissions(f *testing.F) {
	f.Add([]byte(`{"format": "lock-permissions-v1", "default": "allow", "rules": {"allow": ["Read(**)"], "deny": ["Bash(rm:*)", "Write(**/CREDENTIALS/**)", "mcp__*__delete*"], "ask": ["Write(**)"]}, "applies_to_agents": ["claude", "*"]}`), "claude", "Bash(rm -rf /)")
	f.Add([]byte(`{"default": "ask", "rules": {"deny": ["*"]}}`), "codex", "Read(x)")
	f.Add([]byte(`{"rules": {"allow": [1]}}`), "x", "y")
	f.Fuzz(func(t *testing.T, data []byte, agent, action string) {
		p, err := ParsePermissions(data)
		if err != nil {
			return
		}
		switch d := p.Evaluate(agent, action); d {
		case "allow", "deny", "ask":
		default:
			t.Fatalf("Evaluate answered %q", d)
		}
	})
}
