package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

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

func formatTime(t time.Time) string { return t.Format(time.RFC3339) }

// RecordBypass appends to repo's bypass log a refusal that GUARD_BYPASS let through
// in a check outside the lock checks (the pre-push visibility check): who, why, and
// the refusal at the repository's top. It returns the log's path.
func RecordBypass(env *guard.Env, repo gitrun.Repo, hook, remote, url, reason string, ops []string, refusal error) (string, error) {
	// A broken .guard.toml must not stop the record of a bypass: the identity is then
	// resolved without it.
	subject, _ := guard.ResolveSubject(env, repo.Top, guard.Identity{})
	id := subject.Identity
	p := repo.BypassLogPath()
	return p, AppendBypass(p, BypassEntry{
		Time: formatTime(env.Clock.Now()), Owner: id.Owner, Host: id.Host, User: env.User,
		Reason: reason, Hook: hook, Remote: remote, URL: url, Ops: ops, Refused: true,
		Blocking: []BypassBlock{{Path: repo.Top, Reason: refusal.Error()}},
	})
}
