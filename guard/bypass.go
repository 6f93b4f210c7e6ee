package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// BypassVar is the variable that lets a refusal through with an audit trail:
// GUARD_BYPASS="<reason>".
const BypassVar = "GUARD_BYPASS"

// Gates: the checks that may be asked to let something through.
const (
	GatePreCommit      = "pre-commit"
	GatePreMergeCommit = "pre-merge-commit"
	GatePrePush        = "pre-push" // its lock, marker and visibility checks alike
	GateAudit          = "audit"    // guard audit github
	GateCI             = "ci"
	GatePublish        = "publish"
	GateAgentHook      = "agent-hook"
	GateCheck          = "check"
)

// bypassable are the gates GUARD_BYPASS can let through. The git hooks and the
// audit are run by a person who can be asked why, and each bypass lands in the
// bypass log of the repository concerned. The others never yield to it: `guard ci`
// is the gate that runs where hooks were skipped, `guard publish` never publishes a
// project under PRIVATE.txt, the agent hook would let an agent switch off its own
// guardrail (it sets its own environment), and `guard check` only answers.
var bypassable = map[string]bool{
	GatePreCommit: true, GatePreMergeCommit: true, GatePrePush: true, GateAudit: true,
}

// Bypass is the one rule for GUARD_BYPASS: it returns the reason given for letting
// gate's refusal (or, for a hook, an internal error) through, and false when the
// variable is unset or blank or the gate does not yield to it. A caller that lets
// something through must first record it with AppendBypass in the bypass log of the
// repository concerned, and refuse (fail closed) when that record cannot be written
// or there is no repository to write it in: a bypass without its trail is none.
func Bypass(env *Env, gate string) (reason string, ok bool) {
	reason = strings.TrimSpace(env.Env(BypassVar))
	if reason == "" || !bypassable[gate] {
		return "", false
	}
	return reason, true
}

// BypassEntry is one line of the bypass log (<git-common-dir>/guard/bypass.log, JSON
// lines): who let what through, when, why, and what guard would have said.
type BypassEntry struct {
	Time   string `json:"time"` // RFC 3339
	Owner  string `json:"owner"`
	Host   string `json:"host"`
	User   string `json:"user"`
	Reason string `json:"reason"`
	Hook   string `json:"hook"`
	Remote string `json:"remote,omitempty"`
	URL    string `json:"url,omitempty"`
	// Refs are the pushed refs ("<local ref> -> <remote ref>"), for pre-push.
	Refs []string `json:"refs,omitempty"`
	Ops  []string `json:"ops"`
	// Paths are the paths that were checked (at most maxLoggedPaths of them).
	Paths          []string `json:"paths"`
	PathsTruncated bool     `json:"paths_truncated,omitempty"`
	// Refused tells whether guard would have refused; Blocking says why.
	Refused  bool          `json:"refused"`
	Blocking []BypassBlock `json:"blocking"`
	// Error is the internal error the bypass skipped over, if any.
	Error string `json:"error,omitempty"`
}

// BypassBlock is a refusal that a bypass skipped over.
type BypassBlock struct {
	Path   string `json:"path"`
	Lock   string `json:"lock,omitempty"`
	Owner  string `json:"owner,omitempty"`
	Reason string `json:"reason"`
}

// maxLoggedPaths bounds a log line: a push of a large history can touch thousands of
// paths, and the blocked ones are listed in full under Blocking anyway.
const maxLoggedPaths = 200

// AppendBypass appends e to the log at path as one JSON line. A single write to a file
// opened for appending keeps concurrent hooks from interleaving lines.
func AppendBypass(path string, e BypassEntry) error {
	if len(e.Paths) > maxLoggedPaths {
		e.Paths, e.PathsTruncated = e.Paths[:maxLoggedPaths], true
	}
	if e.Paths == nil {
		e.Paths = []string{}
	}
	if e.Blocking == nil {
		e.Blocking = []BypassBlock{}
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("bypass log %s: %w", path, err)
	}
	line = append(line, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("bypass log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("bypass log: %w", err)
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("bypass log %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("bypass log %s: %w", path, err)
	}
	return nil
}

// BypassTime formats the moment of a bypass for its log entry.
func BypassTime(t time.Time) string { return t.Format(time.RFC3339) }
