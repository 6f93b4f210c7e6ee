package guard

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheWayOutOfALockThatNeverExpiresDoesNotSayWaitForIt(t *testing.T) {
	tests := []struct {
		name, file, body, want string
	}{
		{"a legacy lock is removed by hand", "TEST.txt", "owner: alice\n",
			"a legacy lock never expires: ask alice to remove %s when the work it marks is done"},
		{"an until lock without a usable not_before holds until removed", "LOCK.until.txt", "owner: alice\nnot_before: someday\n",
			"it has no usable not_before, so it never expires: ask alice to run `guard unlock %s` when done"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, lock, dec := refusedBy(t, tc.file, tc.body)
			var b bytes.Buffer
			dec.Explain(&b)
			assert.NotContains(t, b.String(), "wait until it expires")
			assert.Contains(t, b.String(), "  what now: "+sprintf(tc.want, lock)+"\n")
		})
	}
}

// refusedBy is bob's refused edit in a folder holding one lock file.
func refusedBy(t *testing.T, file, body string) (root, lock string, dec *Decision) {
	t.Helper()
	root = t.TempDir()
	lock = filepath.Join(root, file)
	write(t, lock, body)
	dec, err := NewPolicy(testEnv(root), Identity{Owner: "bob", Host: "hostA"}).Check(Request{Paths: []string{filepath.Join(root, "f")}})
	require.NoError(t, err)
	require.False(t, dec.Allowed)
	return root, lock, dec
}

func sprintf(format, path string) string { return fmt.Sprintf(format, path) }

// The text a refusal sends to a coding agent offers guard's MCP tools and guard lock
// --wait first, and never forcing, removing the lock or impersonating its owner
// (CONTRACT.md section 4, issue 21): an agent that reads "--force" uses it. People
// keep WayOut's text.
func TestTheWayOutForAnAgentNeverSuggestsForcing(t *testing.T) {
	tests := []struct{ name, file, body, want string }{
		{"an exclusive lock that expires is waited for or worked around", "LOCK.txt", "owner: alice\nexpires_after: 2h\n",
			"call guard's MCP tool `wait` with path %s (it returns when alice releases it or it expires), or claim another area with the `lock` tool and work there; from a shell, `guard lock --wait 30m %s` waits and then claims; or ask the person you work for. Do not remove, replace or work around alice's lock"},
		{"a user lock is for the user to remove", "LOCK.user.txt", "owner: alice\n",
			"only the user removes a user lock: work in another area (claim it with guard's MCP tool `lock`), or ask the person you work for"},
		{"a condition lock waits for its condition", "LOCK.condition.txt", "owner: alice\nrelease_condition: the release is out\n",
			"it holds until its release condition is met: work in another area (claim it with guard's MCP tool `lock`), or ask the person you work for whether the condition is met"},
		{"a legacy lock never expires", "TEST.txt", "owner: alice\n",
			"it never expires: work in another area (claim it with guard's MCP tool `lock`), or ask the person you work for"},
		{"a team lock of another host is waited for too", "LOCK.team.hostB.txt", "owner: carol\nexpires_after: 2h\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, lock, dec := refusedBy(t, tc.file, tc.body)
			var agent, person bytes.Buffer
			dec.ExplainRefusalWith(&agent, AgentWayOut)
			dec.ExplainRefusal(&person)
			for _, banned := range []string{"--force", "GUARD_OWNER", "--owner", "rm "} {
				assert.NotContains(t, agent.String(), banned)
			}
			assert.Contains(t, agent.String(), "lock: "+lock, "the lock is named")
			if tc.want != "" {
				assert.Contains(t, agent.String(), "  what now: "+strings.ReplaceAll(tc.want, "%s", root)+"\n")
			}
			assert.NotEqual(t, agent.String(), person.String(), "people keep WayOut's text")
		})
	}
}
