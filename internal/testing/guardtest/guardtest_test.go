package guardtest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGitIsHermeticAndItsCommitsArePinned(t *testing.T) {
	// A user configuration where the test's HOME would be is still never read.
	require.NoError(t, os.WriteFile(filepath.Join(Home(t), ".gitconfig"), []byte("[user]\n\tname = someone else\n"), 0o644))
	dir := InitRepo(t, filepath.Join(t.TempDir(), "repo"))
	head := Commit(t, dir, "first", map[string]string{"a/b.txt": "x\n"})
	assert.Equal(t, "guard tests <tests@example.com> 2026-03-01T10:00:00+00:00 | guard tests <tests@example.com> 2026-03-01T10:00:00+00:00",
		Git(t, dir, "log", "-1", "--format=%an <%ae> %aI | %cn <%ce> %cI"))
	assert.Equal(t, "main", Git(t, dir, "branch", "--show-current"))
	again := InitRepo(t, filepath.Join(t.TempDir(), "repo"))
	assert.Equal(t, head, Commit(t, again, "first", map[string]string{"a/b.txt": "x\n"}), "the same tree and message make the same commit anywhere")
	out, code := GitCode(t, dir, nil, "rev-parse", "--verify", "--quiet", "nope")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
}

func TestClockMovesOnlyWhenAdvanced(t *testing.T) {
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	c := NewClock(start)
	assert.Equal(t, start, c.Now())
	assert.Equal(t, start.Add(1100*time.Millisecond), c.Advance(1100*time.Millisecond))
	assert.Equal(t, start.Add(1100*time.Millisecond), c.Now())
}

func TestStartTimeTellsAReusedPIDApart(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	assert.NotEqual(t, "0", startTime(os.Getpid()))
	assert.Equal(t, startTime(os.Getpid()), startTime(os.Getpid()))
}
