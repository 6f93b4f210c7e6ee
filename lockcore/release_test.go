package lockcore

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRelease(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		body    string
		opt     ReleaseOptions
		err     error
		removed bool
	}{
		{"the owner releases its lock", "LOCK.txt", "owner: alice\n", ReleaseOptions{Owner: "alice"}, nil, true},
		{"someone else is refused", "LOCK.txt", "owner: alice\n", ReleaseOptions{Owner: "bob"}, ErrNotOwner, false},
		{"someone else with force releases it", "LOCK.txt", "owner: alice\n", ReleaseOptions{Owner: "bob", Force: true}, nil, true},
		{"the owner without the lock's token is refused", "LOCK.txt", "owner: alice\ntoken: t1\n", ReleaseOptions{Owner: "alice"}, ErrNotOwner, false},
		{"the owner with a wrong token is refused", "LOCK.txt", "owner: alice\ntoken: t1\n", ReleaseOptions{Owner: "alice", Token: "t2"}, ErrNotOwner, false},
		{"the owner with the token releases it", "LOCK.txt", "owner: alice\ntoken: t1\n", ReleaseOptions{Owner: "alice", Token: "t1"}, nil, true},
		{"a user lock needs force even for its owner", "LOCK.user.txt", "owner: alice\n", ReleaseOptions{Owner: "alice", Interactive: true}, ErrUserLock, false},
		{"a user lock with force but no terminal stays", "LOCK.user.txt", "owner: alice\n", ReleaseOptions{Owner: "alice", Force: true}, ErrUserLock, false},
		{"a user lock by its body with force but no terminal stays", "LOCK.txt", "owner: alice\nremovable_by: user\n", ReleaseOptions{Owner: "alice", Force: true}, ErrUserLock, false},
		{"a user lock with force from a terminal goes", "LOCK.user.txt", "owner: alice\n", ReleaseOptions{Owner: "bob", Force: true, Interactive: true}, nil, true},
		{"a missing lock is ErrNoLock", "", "", ReleaseOptions{Owner: "alice"}, ErrNoLock, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			name := tc.file
			if name == "" {
				name = "LOCK.txt"
			} else {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(tc.body), 0o644))
			}
			p := filepath.Join(dir, name)
			tc.opt.Now = t0
			_, err := Release(p, tc.opt)
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
			} else {
				assert.NoError(t, err)
			}
			_, serr := os.Lstat(p)
			assert.Equal(t, tc.removed, os.IsNotExist(serr))
			assertNoScratch(t, dir)
		})
	}
}

func TestReleaseRefusesASymlinkWithoutForce(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	require.NoError(t, os.WriteFile(target, []byte("owner: alice\n"), 0o644))
	p := filepath.Join(dir, "LOCK.txt")
	require.NoError(t, os.Symlink(target, p))
	_, err := Release(p, ReleaseOptions{Owner: "alice", Now: t0})
	assert.ErrorIs(t, err, ErrNotRegular)
	_, err = Release(p, ReleaseOptions{Owner: "alice", Now: t0, Force: true})
	require.NoError(t, err)
	assert.NoFileExists(t, p)
	assert.FileExists(t, target)
}

func TestRemoveIfNeverDeletesALockThatReplacedTheJudgedOne(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "LOCK.txt")
	judged := []byte("owner: old\ncreated: 2000-01-01T00:00\n")
	require.NoError(t, os.WriteFile(p, []byte("owner: fresh\n"), 0o644))
	ok, err := RemoveIf(p, judged)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Equal(t, "owner: fresh\n", read(t, p))
	require.NoError(t, os.WriteFile(p, judged, 0o644))
	ok, err = RemoveIf(p, judged)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.NoFileExists(t, p)
}

func TestRenew(t *testing.T) {
	dir := t.TempDir()
	res, err := Acquire(spec(dir), AcquireOptions{Now: t0})
	require.NoError(t, err)

	t.Run("the owner's live lock moves created and keeps its fence", func(t *testing.T) {
		l, err := Renew(res.Path, "alice", "", t0.Add(50*time.Minute), time.UTC)
		require.NoError(t, err)
		assert.Equal(t, t0.Add(50*time.Minute), l.Created)
		f, _ := l.Fence()
		assert.Equal(t, res.Fence, f)
		assert.Equal(t, time.Hour, l.ExpiresAfter)
	})
	t.Run("someone else's lock is ErrNotOwner", func(t *testing.T) {
		_, err := Renew(res.Path, "bob", "", t0.Add(time.Hour), time.UTC)
		assert.ErrorIs(t, err, ErrNotOwner)
	})
	t.Run("an expired lock is ErrExpired", func(t *testing.T) {
		_, err := Renew(res.Path, "alice", "", t0.Add(3*time.Hour), time.UTC)
		assert.ErrorIs(t, err, ErrExpired)
	})
	t.Run("a missing lock is ErrNoLock", func(t *testing.T) {
		_, err := Renew(filepath.Join(dir, "LOCK.x.txt"), "alice", "", t0, time.UTC)
		assert.ErrorIs(t, err, ErrNoLock)
	})
}

func TestFencesGrowOverSuccessiveHolders(t *testing.T) {
	t.Run("A, B and C acquiring one after another with deletion in between get increasing fences", func(t *testing.T) {
		dir := t.TempDir()
		var last int64
		for i, owner := range []string{"a", "b", "c"} {
			s := spec(dir)
			s.Owner = owner
			res, err := Acquire(s, AcquireOptions{Now: t0.Add(time.Duration(i) * time.Microsecond)})
			require.NoError(t, err)
			assert.Greater(t, res.Fence, last)
			last = res.Fence
			_, err = Release(res.Path, ReleaseOptions{Owner: owner, Now: t0})
			require.NoError(t, err)
		}
	})
	t.Run("a takeover by a clock that went backwards still raises the fence", func(t *testing.T) {
		dir := t.TempDir()
		a, err := Acquire(spec(dir), AcquireOptions{Now: t0})
		require.NoError(t, err)
		// Backdate the lock so that it is expired at an earlier wall clock.
		require.NoError(t, os.WriteFile(a.Path, spec(dir).Body(t0.Add(-5*time.Hour), a.Fence), 0o644))
		s := spec(dir)
		s.Owner = "b"
		b, err := Acquire(s, AcquireOptions{Now: t0.Add(-time.Hour)})
		require.NoError(t, err)
		assert.Equal(t, TookOver, b.Action)
		assert.Equal(t, a.Fence+1, b.Fence)
	})
}

func TestLockdownUnit(t *testing.T) {
	base := t.TempDir()
	r := filepath.Join(base, "r")
	require.NoError(t, os.Mkdir(r, 0o755))
	res, err := Lockdown([]string{r, r}, LockdownOptions{Host: "h", Now: t0, Commit: true})
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(r, "LOCK.txt")}, res.Locked)
	l, err := ReadLock(filepath.Join(r, "LOCK.txt"), time.UTC)
	require.NoError(t, err)
	assert.True(t, l.BulkCreated())
	assert.Equal(t, "user", l.Owner)
	assert.False(t, l.ContentUser, "a bulk lock is never a user lock")
	_, ok := l.Fence()
	assert.True(t, ok)

	undo, err := UndoLockdown(res.Locked, true, time.UTC)
	require.NoError(t, err)
	assert.Equal(t, res.Locked, undo.Unlocked)
	assert.NoFileExists(t, filepath.Join(r, "LOCK.txt"))
}
