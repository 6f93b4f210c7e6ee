package lockcore

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func spec(dir string) Spec {
	return Spec{Dir: dir, Kind: Exclusive, Owner: "alice", Host: "box1", Expires: "1h"}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

func TestSpecFileNameAndBody(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		file string
		body string
	}{
		{"a plain lock is LOCK.txt with expires_after",
			Spec{Kind: Exclusive, Owner: "a", Host: "h"}, "LOCK.txt",
			"owner: a\ncreated: 2026-11-29T10:00:00\nhost: h\nfence: 7\nexpires_after: 24h\nmode: hard\nscope: project\n"},
		{"a scoped lock carries its scope in name and body",
			Spec{Kind: Exclusive, Scope: "web", Owner: "a", Host: "h", Expires: "2h", Mode: "soft", Purpose: "deploy", ReleaseCondition: "tests green", Operations: []string{"commit", "push"}}, "LOCK.web.txt",
			"owner: a\ncreated: 2026-11-29T10:00:00\nhost: h\nfence: 7\nexpires_after: 2h\nrelease_condition: tests green\noperations: commit, push\nmode: soft\npurpose: deploy\nscope: web\n"},
		{"a user lock is removable by the user and has no lifetime",
			Spec{Kind: User, Owner: "a", Host: "h"}, "LOCK.user.txt",
			"owner: a\ncreated: 2026-11-29T10:00:00\nhost: h\nfence: 7\nremovable_by: user\nmode: hard\nscope: project\n"},
		{"a condition lock has no lifetime",
			Spec{Kind: Condition, Scope: "db", Owner: "a", Host: "h", ReleaseCondition: "migration done"}, "LOCK.condition.db.txt",
			"owner: a\ncreated: 2026-11-29T10:00:00\nhost: h\nfence: 7\nrelease_condition: migration done\nmode: hard\nscope: db\n"},
		{"an until lock carries not_before",
			Spec{Kind: Until, Owner: "a", Host: "h", NotBefore: "2026-12-24T18:00"}, "LOCK.until.txt",
			"owner: a\ncreated: 2026-11-29T10:00:00\nhost: h\nfence: 7\nnot_before: 2026-12-24T18:00\nmode: hard\nscope: project\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.Dir = "/x"
			require.NoError(t, tc.spec.Validate())
			assert.Equal(t, tc.file, tc.spec.FileName())
			assert.Equal(t, tc.body, string(tc.spec.Body(t0, 7)))
		})
	}
}

func TestSpecTeamLockHasTheFourSections(t *testing.T) {
	s := Spec{Dir: "/x", Kind: Team, Scope: "s", TeamHost: "LAPTOP", Owner: "a", Host: "LAPTOP"}
	require.NoError(t, s.Validate())
	assert.Equal(t, "LOCK.team.s.LAPTOP.txt", s.FileName())
	body := string(s.Body(t0, 7))
	assert.Contains(t, body, "host: LAPTOP\n")
	assert.Contains(t, body, "order=000001")
	last := -1
	for _, m := range []string{"# PRESENCE:", "# FILE-CLAIMS:", "# TOOL-CLAIMS:", "# MESSAGES:"} {
		assert.Equal(t, 1, strings.Count(body, m), m)
		i := strings.Index(body, m)
		assert.Greater(t, i, last, m)
		last = i
	}
	l, err := ParseLock("/x/"+s.FileName(), []byte(body), t0, time.UTC)
	require.NoError(t, err)
	assert.Equal(t, Team, l.Kind)
	assert.Equal(t, "LAPTOP", l.Name.Host)
	f, ok := l.Fence()
	assert.True(t, ok)
	assert.Equal(t, int64(7), f)
}

func TestSpecValidateRefusesBadRequests(t *testing.T) {
	tests := []struct {
		name string
		mut  func(*Spec)
	}{
		{"a scope with a dot", func(s *Spec) { s.Scope = "a.b" }},
		{"a scope climbing out", func(s *Spec) { s.Scope = "../evil" }},
		{"a scope with a slash", func(s *Spec) { s.Scope = "a/b" }},
		{"a scope that is a reserved word", func(s *Spec) { s.Scope = "user" }},
		{"a team host with a dot", func(s *Spec) { s.Kind = Team; s.TeamHost = "h.x" }},
		{"a team without host", func(s *Spec) { s.Kind = Team }},
		{"a condition lock without release condition", func(s *Spec) { s.Kind = Condition }},
		{"an until lock without a readable moment", func(s *Spec) { s.Kind = Until; s.NotBefore = "next autumn" }},
		{"a lifetime in weeks", func(s *Spec) { s.Expires = "1w" }},
		{"a mode that is neither hard nor soft", func(s *Spec) { s.Mode = "medium" }},
		{"a purpose spanning two lines", func(s *Spec) { s.Purpose = "a\nowner: mallory" }},
		{"no owner", func(s *Spec) { s.Owner = "" }},
	}
	for _, tc := range tests {
		t.Run("refuses "+tc.name, func(t *testing.T) {
			s := spec("/x")
			tc.mut(&s)
			assert.ErrorIs(t, s.Validate(), ErrInvalid)
		})
	}
}

func TestAcquire(t *testing.T) {
	t.Run("creates a lock that reads back with every field", func(t *testing.T) {
		dir := t.TempDir()
		res, err := Acquire(spec(dir), AcquireOptions{Now: t0})
		require.NoError(t, err)
		assert.Equal(t, Created, res.Action)
		assert.Equal(t, filepath.Join(dir, "LOCK.txt"), res.Path)
		assert.Equal(t, t0.UnixMicro(), res.Fence)
		assert.Equal(t, "owner: alice\ncreated: 2026-11-29T10:00:00\nhost: box1\nfence: "+itoa(t0.UnixMicro())+"\nexpires_after: 1h\nmode: hard\nscope: project\n", read(t, res.Path))
		assert.Equal(t, "header", res.Lock.CreatedSource)
		assert.Equal(t, "alice", res.Lock.Owner)
		assertNoScratch(t, dir)
	})
	t.Run("the same owner acquiring again renews in place and keeps the fence", func(t *testing.T) {
		dir := t.TempDir()
		a, err := Acquire(spec(dir), AcquireOptions{Now: t0})
		require.NoError(t, err)
		b, err := Acquire(spec(dir), AcquireOptions{Now: t0.Add(30 * time.Minute)})
		require.NoError(t, err)
		assert.Equal(t, Renewed, b.Action)
		assert.Equal(t, a.Fence, b.Fence)
		assert.Contains(t, read(t, b.Path), "created: 2026-11-29T10:30:00\n")
		assertNoScratch(t, dir)
	})
	t.Run("another owner's live lock refuses with a conflict naming it", func(t *testing.T) {
		dir := t.TempDir()
		_, err := Acquire(spec(dir), AcquireOptions{Now: t0})
		require.NoError(t, err)
		s := spec(dir)
		s.Owner = "bob"
		_, err = Acquire(s, AcquireOptions{Now: t0.Add(time.Minute)})
		var ce *ConflictError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, "alice", ce.Lock.Owner)
		assert.Contains(t, err.Error(), filepath.Join(dir, "LOCK.txt"))
		assert.Contains(t, read(t, filepath.Join(dir, "LOCK.txt")), "owner: alice\n")
	})
	t.Run("an expired lock is taken over with a larger fence", func(t *testing.T) {
		dir := t.TempDir()
		a, err := Acquire(spec(dir), AcquireOptions{Now: t0})
		require.NoError(t, err)
		s := spec(dir)
		s.Owner = "bob"
		b, err := Acquire(s, AcquireOptions{Now: t0.Add(2 * time.Hour)})
		require.NoError(t, err)
		assert.Equal(t, TookOver, b.Action)
		assert.Greater(t, b.Fence, a.Fence)
		assert.Equal(t, "alice", b.Previous.Owner)
		st, reason := FenceStatus(a.Path, itoa(a.Fence), t0.Add(2*time.Hour), time.UTC)
		assert.Equal(t, FenceLost, st)
		assert.Contains(t, reason, itoa(b.Fence))
		st, _ = FenceStatus(b.Path, itoa(b.Fence), t0.Add(2*time.Hour), time.UTC)
		assert.Equal(t, FenceHeld, st)
	})
	t.Run("force replaces a live lock with a fence above the displaced one even if the clock went back", func(t *testing.T) {
		dir := t.TempDir()
		a, err := Acquire(spec(dir), AcquireOptions{Now: t0})
		require.NoError(t, err)
		s := spec(dir)
		s.Owner = "bob"
		b, err := Acquire(s, AcquireOptions{Now: t0.Add(-time.Hour), Force: true})
		require.NoError(t, err)
		assert.Equal(t, Replaced, b.Action)
		assert.Equal(t, a.Fence+1, b.Fence)
	})
	t.Run("a second agent of the same host joins the team lock without writing", func(t *testing.T) {
		dir := t.TempDir()
		tm := Spec{Dir: dir, Kind: Team, TeamHost: "LAPTOP", Owner: "agent1"}
		a, err := Acquire(tm, AcquireOptions{Now: t0})
		require.NoError(t, err)
		before := read(t, a.Path)
		tm.Owner = "agent2"
		b, err := Acquire(tm, AcquireOptions{Now: t0.Add(time.Minute)})
		require.NoError(t, err)
		assert.Equal(t, Joined, b.Action)
		assert.Equal(t, before, read(t, a.Path))
	})
	t.Run("a symlink at the lock path is refused and not followed", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "target")
		require.NoError(t, os.Symlink(target, filepath.Join(dir, "LOCK.txt")))
		_, err := Acquire(spec(dir), AcquireOptions{Now: t0})
		assert.ErrorIs(t, err, ErrNotRegular)
		assert.NoFileExists(t, target)
	})
	t.Run("force replaces a symlink at the lock path by a lock file without touching the target", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "target")
		require.NoError(t, os.WriteFile(target, []byte("keep"), 0o644))
		require.NoError(t, os.Symlink(target, filepath.Join(dir, "LOCK.txt")))
		res, err := Acquire(spec(dir), AcquireOptions{Now: t0, Force: true})
		require.NoError(t, err)
		assert.Equal(t, Replaced, res.Action)
		st, err := os.Lstat(res.Path)
		require.NoError(t, err)
		assert.True(t, st.Mode().IsRegular())
		assert.Equal(t, "keep", read(t, target))
	})
	t.Run("a missing directory is an error", func(t *testing.T) {
		_, err := Acquire(spec(filepath.Join(t.TempDir(), "nope")), AcquireOptions{Now: t0})
		assert.True(t, errors.Is(err, os.ErrNotExist), err)
	})
	t.Run("stale scratch files of a killed writer are cleaned by the next creation", func(t *testing.T) {
		dir := t.TempDir()
		for _, n := range []string{".LOCK.txt.0123456789abcdef.tmp", ".LOCK.web.txt.fedcba9876543210.tmp", ".LOCK.txt.mutex"} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte("owner: x\n"), 0o644))
			_, ok := Classify(n)
			assert.False(t, ok, "%s must never classify as a lock", n)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".other.tmp"), nil, 0o644))
		_, err := Acquire(spec(dir), AcquireOptions{Now: t0})
		require.NoError(t, err)
		assertNoScratch(t, dir)
		assert.FileExists(t, filepath.Join(dir, ".other.tmp"))
	})
}

func assertNoScratch(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, isScratch(e.Name()), "scratch file left: %s", e.Name())
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestAcquireMatchesTheLockNameIgnoringCase(t *testing.T) {
	tests := []struct {
		name   string
		onDisk string
		owner  string
		force  bool
		action Action
	}{
		{"the owner claiming again renews lock.txt instead of writing LOCK.txt beside it", "lock.txt", "alice", false, Renewed},
		{"--force replaces someone else's LOCK.TXT instead of being refused by it", "LOCK.TXT", "bob", true, Replaced},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			other := spec(dir)
			other.Owner = tc.owner
			p := filepath.Join(dir, tc.onDisk)
			require.NoError(t, os.WriteFile(p, other.Body(t0, 7), 0o644))

			res, err := Acquire(spec(dir), AcquireOptions{Now: t0.Add(time.Minute), Force: tc.force})
			require.NoError(t, err)
			assert.Equal(t, tc.action, res.Action)
			assert.Equal(t, p, res.Path)
			names, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Len(t, names, 1, "one lock of that name, not two")
			assert.Equal(t, tc.onDisk, names[0].Name())
		})
	}
}
