package agente2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each CLI, driven by the fake model with no hook at all, runs the command it is told
// to and reports its output back: the ground the end-to-end tests of guard's hooks
// stand on (a refused write there means the hook refused it).
func TestFakeModelDrivesTheRealCLIs(t *testing.T) {
	for _, name := range []string{Claude, Gemini, Codex} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bin := CLI(t, name)
			t.Logf("%s: %s", name, Version(t, bin))
			dir, home := t.TempDir(), t.TempDir()
			s := NewServer(t, "echo made-by-the-agent > out.txt && cat out.txt")
			var res Result
			switch name {
			case Claude:
				res = RunClaude(t, s, Run{Dir: dir, Home: home})
			case Gemini:
				res = RunGemini(t, s, Run{Dir: dir, Home: home})
			case Codex:
				res = RunCodex(t, s, Run{Dir: dir, Home: home})
			}
			data, err := os.ReadFile(filepath.Join(dir, "out.txt"))
			if err != nil || string(data) != "made-by-the-agent\n" {
				t.Fatalf("the agent did not run the command (%v, %q)\nexit %d %v\nstdout: %s\nstderr: %s\nrequests:\n%s", err, data, res.Code, res.Err, res.Stdout, res.Stderr, s.Log())
			}
			results := s.ToolResults()
			if len(results) != 1 || !strings.Contains(results[0], "made-by-the-agent") {
				t.Fatalf("tool results = %q, want the command's output\nrequests:\n%s", results, s.Log())
			}
			if res.Code != 0 || res.Err != nil {
				t.Fatalf("exit %d %v\nstdout: %s\nstderr: %s", res.Code, res.Err, res.Stdout, res.Stderr)
			}
		})
	}
}
