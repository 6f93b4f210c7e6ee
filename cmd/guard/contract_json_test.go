package main

// CONTRACT.md section 4: every command that reports takes --json and prints one JSON
// document on stdout, nothing else there.

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ctOneJSONDocument asserts that s is exactly one JSON value (plus white space).
func ctOneJSONDocument(t *testing.T, s string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	var v any
	require.NoError(t, dec.Decode(&v), "stdout: %q", s)
	_, err := dec.Token()
	assert.ErrorIs(t, err, io.EOF, "nothing after the JSON document: %q", s)
}

func TestContractEveryReportingCommandPrintsOneJSONDocument(t *testing.T) {
	// docs/ and crew/ give the scoped locks below their own areas: a scope without a
	// folder would cover all of the repository, alice's src/LOCK.txt included, and be
	// refused (CONTRACT.md section 4, RESPECT below DIR).
	repo := ctRepo(t, map[string]string{"src/a.go": "a\n", "docs/index.md": "d\n", "crew/notes.md": "c\n"})
	state := t.TempDir()
	ctWrite(t, repo, "src/LOCK.txt", "owner: alice\n"+ctLive)
	ctWrite(t, repo, "old/LOCK.txt", "owner: alice\n"+ctDead)
	ctWrite(t, repo, "LOCK.permissions.json", `{"format": "lock-permissions-v1", "rules": {"deny": ["Bash(rm:*)"]}}`)
	env := []string{"GUARD_OWNER=bob", "XDG_STATE_HOME=" + state, "HOME=" + state}
	steps := []struct {
		name string
		args []string
		code int // -1: any exit code
	}{
		{"scan", []string{"scan", "--json", "--all"}, 0},
		{"scan writing the cache", []string{"scan", "--json", "--write-cache"}, 0},
		{"status", []string{"status", "--json", "src"}, 1},
		{"check refused", []string{"check", "--json", "src/a.go"}, 1},
		{"check allowed", []string{"check", "--json", "README"}, 0},
		{"lock", []string{"lock", "--json", "--scope", "docs"}, 0},
		{"renew", []string{"renew", "--json", "--scope", "docs"}, 0},
		{"unlock", []string{"unlock", "--json", "--scope", "docs"}, 0},
		{"prune dry run", []string{"prune", "--json", "--dry-run"}, 0},
		{"prune", []string{"prune", "--json"}, 0},
		{"lockdown", []string{"lockdown", "--json", filepath.Join(repo, "old")}, 0},
		{"permissions", []string{"permissions", "--json", "--agent", "claude", "Bash(rm -rf x)"}, 1},
		{"preflight", []string{"preflight", "--json"}, -1},
		{"ci", []string{"ci", "--format", "json", "--base", "HEAD"}, 0},
		{"install", []string{"install", "--json"}, 0},
		{"doctor", []string{"doctor", "--json"}, -1},
		{"uninstall", []string{"uninstall", "--json"}, 0},
		{"agent-install", []string{"agent-install", "claude", "--project", "--json"}, 0},
		{"agent-uninstall", []string{"agent-uninstall", "claude", "--project", "--json"}, 0},
		{"lock a team lock", []string{"lock", "--json", "--team", "box1", "--scope", "crew", "--no-contest"}, 0},
		{"team show", []string{"team", "show", "--json", "--lock-name", "LOCK.team.crew.box1.txt"}, 0},
		{"team claim", []string{"team", "claim", "--json", "--lock-name", "LOCK.team.crew.box1.txt", "--agent", "a1", "--resource", "src"}, 0},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			out, errOut, code := ctRun(t, repo, env, "", s.args...)
			if s.code >= 0 {
				assert.Equal(t, s.code, code, errOut)
			}
			ctOneJSONDocument(t, out)
		})
	}
}
