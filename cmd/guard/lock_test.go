package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/lockcore"
)

func lockEnv(owner string) []string {
	return []string{"GUARD_OWNER=" + owner, "GUARD_HOST=box1"}
}

func TestLockCommandExitCodesAndOutput(t *testing.T) {
	t.Run("lock prints the absolute path and the fence hints, and the file parses", func(t *testing.T) {
		dir := t.TempDir()
		out, errOut, code := runGuard(t, dir, lockEnv("alice"), "lock", "--scope", "web", "--expires", "2h", "--purpose", "deploy")
		require.Equal(t, 0, code, errOut)
		p := filepath.Join(dir, "LOCK.web.txt")
		assert.Equal(t, p+"\n", out)
		l, err := lockcore.ReadLock(p, time.Local)
		require.NoError(t, err)
		f, ok := l.Fence()
		require.True(t, ok)
		assert.Contains(t, errOut, "LOCK_FENCE="+strconv.FormatInt(f, 10)+"\n")
		assert.Contains(t, errOut, "LOCK_FENCE_FILE="+p+"\n")
		assert.Equal(t, []string{"owner", "created", "host", "fence", "expires_after", "mode", "purpose", "scope"}, l.Fields.Keys)
		assert.Equal(t, "alice", l.Owner)
		assert.Equal(t, "header", l.CreatedSource)
		assert.Equal(t, 2*time.Hour, l.ExpiresAfter)
	})
	t.Run("the same owner locking again renews and exits 0", func(t *testing.T) {
		dir := t.TempDir()
		_, _, code := runGuard(t, dir, lockEnv("alice"), "lock")
		require.Equal(t, 0, code)
		out, errOut, code := runGuard(t, dir, lockEnv("alice"), "lock")
		assert.Equal(t, 0, code)
		assert.Equal(t, filepath.Join(dir, "LOCK.txt")+"\n", out)
		assert.Contains(t, errOut, "renewed")
	})
	t.Run("another owner is refused with 1, naming the lock, and nothing is written", func(t *testing.T) {
		dir := t.TempDir()
		_, _, code := runGuard(t, dir, lockEnv("alice"), "lock")
		require.Equal(t, 0, code)
		out, errOut, code := runGuard(t, dir, lockEnv("bob"), "lock", "--scope", "web")
		assert.Equal(t, 1, code)
		assert.Empty(t, out)
		assert.Contains(t, errOut, filepath.Join(dir, "LOCK.txt"))
		assert.Contains(t, errOut, "alice")
		assert.NoFileExists(t, filepath.Join(dir, "LOCK.web.txt"))
	})
	t.Run("a lock above the directory refuses too", func(t *testing.T) {
		dir := t.TempDir()
		sub := filepath.Join(dir, "a", "b")
		require.NoError(t, os.MkdirAll(sub, 0o755))
		_, _, code := runGuard(t, dir, lockEnv("alice"), "lock")
		require.Equal(t, 0, code)
		_, errOut, code := runGuard(t, sub, lockEnv("bob"), "lock")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, filepath.Join(dir, "LOCK.txt"))
	})
	t.Run("json prints one object with path, action and fence", func(t *testing.T) {
		dir := t.TempDir()
		out, _, code := runGuard(t, dir, lockEnv("alice"), "lock", "--json", "--user")
		require.Equal(t, 0, code)
		assert.True(t, strings.HasPrefix(out, "{"))
		assert.Contains(t, out, `"path": "`+filepath.Join(dir, "LOCK.user.txt")+`"`)
		assert.Contains(t, out, `"action": "created"`)
		assert.Contains(t, out, `"fence": `)
	})
	t.Run("a team lock has host equal to the team host and the four sections", func(t *testing.T) {
		dir := t.TempDir()
		out, errOut, code := runGuard(t, dir, lockEnv("agent1"), "lock", "--team", "LAPTOP", "--scope", "s")
		require.Equal(t, 0, code, errOut)
		p := filepath.Join(dir, "LOCK.team.s.LAPTOP.txt")
		assert.Equal(t, p+"\n", out)
		body, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Contains(t, string(body), "host: LAPTOP\n")
		assert.Contains(t, string(body), "# MESSAGES:")
	})
}

func TestLockCommandUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"a scope with a dot", []string{"lock", "--scope", "a.b"}},
		{"a scope that climbs out", []string{"lock", "--scope", "../evil"}},
		{"a team host with a slash", []string{"lock", "--team", "a/b"}},
		{"a condition lock without release condition", []string{"lock", "--condition"}},
		{"team and user together", []string{"lock", "--team", "H", "--user"}},
		{"user and condition together", []string{"lock", "--user", "--condition", "--release-condition", "x"}},
		{"contested and no-contest together", []string{"lock", "--contested", "--no-contest"}},
		{"a mode that is neither hard nor soft", []string{"lock", "--mode", "medium"}},
		{"a lifetime in weeks", []string{"lock", "--expires", "1w"}},
		{"a host that differs from the team host", []string{"lock", "--team", "H", "--host", "other"}},
		{"an until lock without a readable time", []string{"lock", "--until", "next autumn"}},
		{"two directories", []string{"lock", "a", "b"}},
		{"a directory that does not exist", []string{"lock", "nope"}},
	}
	for _, tc := range tests {
		t.Run("refuses "+tc.name+" with 2", func(t *testing.T) {
			dir := t.TempDir()
			out, _, code := runGuard(t, dir, lockEnv("alice"), tc.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, entries)
		})
	}
}

func TestUnlockAndRenewCommands(t *testing.T) {
	t.Run("the owner unlocks by directory and gets the path", func(t *testing.T) {
		dir := t.TempDir()
		_, _, code := runGuard(t, dir, lockEnv("alice"), "lock", "--scope", "web")
		require.Equal(t, 0, code)
		out, errOut, code := runGuard(t, dir, lockEnv("alice"), "unlock", "--scope", "web")
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, filepath.Join(dir, "LOCK.web.txt")+"\n", out)
		assert.NoFileExists(t, filepath.Join(dir, "LOCK.web.txt"))
	})
	t.Run("someone else's lock is refused with 1 and kept, and goes with force", func(t *testing.T) {
		dir := t.TempDir()
		_, _, code := runGuard(t, dir, lockEnv("alice"), "lock")
		require.Equal(t, 0, code)
		p := filepath.Join(dir, "LOCK.txt")
		_, errOut, code := runGuard(t, dir, lockEnv("bob"), "unlock", p)
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "alice")
		assert.FileExists(t, p)
		_, _, code = runGuard(t, dir, lockEnv("bob"), "unlock", "--force", p)
		assert.Equal(t, 0, code)
		assert.NoFileExists(t, p)
	})
	t.Run("a user lock is not removed without a terminal, even with force", func(t *testing.T) {
		dir := t.TempDir()
		_, _, code := runGuard(t, dir, lockEnv("alice"), "lock", "--user")
		require.Equal(t, 0, code)
		_, errOut, code := runGuard(t, dir, lockEnv("alice"), "unlock", "--user", "--force")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "user lock")
		assert.FileExists(t, filepath.Join(dir, "LOCK.user.txt"))
	})
	t.Run("unlocking a lock that does not exist is 1", func(t *testing.T) {
		_, _, code := runGuard(t, t.TempDir(), lockEnv("alice"), "unlock")
		assert.Equal(t, 1, code)
	})
	t.Run("a lock carrying a token needs it", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "LOCK.txt")
		require.NoError(t, os.WriteFile(p, []byte("owner: alice\ntoken: s3cret\n"), 0o644))
		_, _, code := runGuard(t, dir, lockEnv("alice"), "unlock")
		assert.Equal(t, 1, code)
		_, _, code = runGuard(t, dir, lockEnv("alice"), "unlock", "--token", "wrong")
		assert.Equal(t, 1, code)
		_, _, code = runGuard(t, dir, lockEnv("alice"), "unlock", "--token", "s3cret")
		assert.Equal(t, 0, code)
		assert.NoFileExists(t, p)
	})
	t.Run("renew moves created of the own lock and refuses a foreign or expired one", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "LOCK.txt")
		old := time.Now().Add(-30 * time.Minute).Format("2006-01-02T15:04:05")
		require.NoError(t, os.WriteFile(p, []byte("owner: alice\ncreated: "+old+"\nfence: 5\nexpires_after: 1h\ncustom: keep\n"), 0o644))
		_, _, code := runGuard(t, dir, lockEnv("bob"), "renew")
		assert.Equal(t, 1, code)
		out, errOut, code := runGuard(t, dir, lockEnv("alice"), "renew", "--expires", "3h")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, p+"\n", out)
		l, err := lockcore.ReadLock(p, time.Local)
		require.NoError(t, err)
		assert.WithinDuration(t, time.Now(), l.Created, 5*time.Second)
		assert.Equal(t, "3h", l.Fields.Values["expires_after"])
		assert.Equal(t, "keep", l.Fields.Values["custom"])
		assert.Equal(t, "5", l.Fields.Values["fence"])

		expired := time.Now().Add(-3 * time.Hour).Format("2006-01-02T15:04:05")
		require.NoError(t, os.WriteFile(p, []byte("owner: alice\ncreated: "+expired+"\nexpires_after: 1h\n"), 0o644))
		_, errOut, code = runGuard(t, dir, lockEnv("alice"), "renew")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, "expired")
	})
}

func TestFencingAcrossPruneAndTakeover(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "LOCK.work.txt")
	_, _, code := runGuard(t, dir, lockEnv("alice"), "lock", "--scope", "work", "--expires", "1h", "--no-contest")
	require.Equal(t, 0, code)
	a, err := lockcore.ReadLock(p, time.Local)
	require.NoError(t, err)
	fa, ok := a.Fence()
	require.True(t, ok)
	st, _ := lockcore.FenceStatus(p, strconv.FormatInt(fa, 10), time.Now(), time.Local)
	assert.Equal(t, lockcore.FenceHeld, st)

	// Backdate created by two hours: the grant has expired, before and after prune.
	body, err := os.ReadFile(p)
	require.NoError(t, err)
	old := time.Now().Add(-2 * time.Hour).Format("2006-01-02T15:04:05")
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(body), "created: "+a.Fields.Values["created"], "created: "+old, 1)), 0o644))
	st, reason := lockcore.FenceStatus(p, strconv.FormatInt(fa, 10), time.Now(), time.Local)
	assert.Equal(t, lockcore.FenceLost, st)
	assert.Contains(t, reason, "expired")
	out, _, code := runGuard(t, dir, nil, "prune", dir)
	require.Equal(t, 0, code)
	assert.Equal(t, "removed "+p+"\n", out)

	_, errOut, code := runGuard(t, dir, lockEnv("bob"), "lock", "--scope", "work", "--expires", "1h", "--no-contest")
	require.Equal(t, 0, code, errOut)
	b, err := lockcore.ReadLock(p, time.Local)
	require.NoError(t, err)
	fb, _ := b.Fence()
	assert.Greater(t, fb, fa)
	st, reason = lockcore.FenceStatus(p, strconv.FormatInt(fa, 10), time.Now(), time.Local)
	assert.Equal(t, lockcore.FenceLost, st)
	assert.Contains(t, reason, strconv.FormatInt(fb, 10))
	st, _ = lockcore.FenceStatus(p, strconv.FormatInt(fb, 10), time.Now(), time.Local)
	assert.Equal(t, lockcore.FenceHeld, st)

	// --force by carol displaces bob with a larger fence.
	_, _, code = runGuard(t, dir, lockEnv("carol"), "lock", "--scope", "work", "--force")
	require.Equal(t, 0, code)
	c, err := lockcore.ReadLock(p, time.Local)
	require.NoError(t, err)
	fc, _ := c.Fence()
	assert.Greater(t, fc, fb)
	st, _ = lockcore.FenceStatus(p, strconv.FormatInt(fb, 10), time.Now(), time.Local)
	assert.Equal(t, lockcore.FenceLost, st)
}

func TestLockRespectSeesWhatCheckSees(t *testing.T) {
	t.Run("a lock in the main clone refuses a claim in a linked worktree", func(t *testing.T) {
		base := t.TempDir()
		main := filepath.Join(base, "main")
		require.NoError(t, os.Mkdir(main, 0o755))
		guardtest.InitRepo(t, main)
		guardtest.Commit(t, main, "c", map[string]string{"f.txt": "x"})
		wt := filepath.Join(base, "wt")
		guardtest.Git(t, main, "worktree", "add", "-q", wt)
		_, errOut, code := runGuard(t, main, lockEnv("alice"), "lock")
		require.Equal(t, 0, code, errOut)
		_, errOut, code = runGuard(t, wt, lockEnv("bob"), "lock")
		assert.Equal(t, 1, code, errOut)
		assert.Contains(t, errOut, filepath.Join(main, "LOCK.txt"))
		assert.NoFileExists(t, filepath.Join(wt, "LOCK.txt"))
	})
	t.Run("a scope mapped in .guard.toml covers only its globs", func(t *testing.T) {
		dir := t.TempDir()
		for _, d := range []string{"frontend", "backend"} {
			require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o755))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".guard.toml"), []byte("[scopes]\nweb = [\"frontend/**\"]\n"), 0o644))
		_, errOut, code := runGuard(t, dir, lockEnv("alice"), "lock", "--scope", "web")
		require.Equal(t, 0, code, errOut)
		_, errOut, code = runGuard(t, filepath.Join(dir, "backend"), lockEnv("bob"), "lock")
		assert.Equal(t, 0, code, errOut)
		_, errOut, code = runGuard(t, filepath.Join(dir, "frontend"), lockEnv("bob"), "lock")
		assert.Equal(t, 1, code, errOut)
		assert.Contains(t, errOut, filepath.Join(dir, "LOCK.web.txt"))
	})
}
