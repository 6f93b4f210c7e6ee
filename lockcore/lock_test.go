package lockcore_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

// now is the pinned moment of these tests.
var now = time.Date(2026, 6, 15, 12, 0, 0, 0, cest)

// stamp formats a time as a created/not_before header value (local, seconds).
func stamp(t time.Time) string { return lockcore.FormatCreated(t) }

// parse builds a lock as if read from /locks/<name> with the given mtime.
func parse(t *testing.T, name, body string, mtime time.Time) *lockcore.Lock {
	t.Helper()
	l, err := lockcore.ParseLock("/locks/"+name, []byte(body), mtime, cest)
	require.NoError(t, err)
	return l
}

func TestLockExpiryByKind(t *testing.T) {
	day := 24 * time.Hour
	cases := []struct {
		name      string
		file      string
		body      string
		expired   bool
		protected bool
		prunable  bool
	}{
		{"a fresh exclusive lock holds", "LOCK.txt", "created: " + stamp(now.Add(-time.Hour)), false, false, false},
		{"an exclusive lock three days old has expired", "LOCK.txt", "created: " + stamp(now.Add(-3*day)), true, false, true},
		{"expiry is strict: exactly at the end it still holds", "LOCK.txt", "created: " + stamp(now.Add(-day)), false, false, false},
		{"one second later it has expired", "LOCK.txt", "created: " + stamp(now.Add(-day-time.Second)), true, false, true},
		{"expires_after 0h holds at its created moment", "LOCK.txt", "created: " + stamp(now) + "\nexpires_after: 0h", false, false, false},
		{"expires_after 0h expires a second later", "LOCK.txt", "created: " + stamp(now.Add(-time.Second)) + "\nexpires_after: 0h", true, false, true},
		{"expires_after is honoured", "LOCK.api.txt", "created: " + stamp(now.Add(-47*time.Hour)) + "\nexpires_after: 2d", false, false, false},
		{"an invalid expires_after means 24h", "LOCK.api.txt", "created: " + stamp(now.Add(-25*time.Hour)) + "\nexpires_after: 1w", true, false, true},
		{"an overflowing lifetime counts as expired", "LOCK.txt", "created: " + stamp(now) + "\nexpires_after: 999999999999999999999d", true, false, true},
		{"a lifetime past year 9999 still holds (now > created + expires_after is false)", "LOCK.txt", "created: " + stamp(now) + "\nexpires_after: 3000000d", false, false, false},
		{"a lifetime of 999999 days holds", "LOCK.txt", "created: " + stamp(now.Add(-100*day)) + "\nexpires_after: 999999d", false, false, false},
		{"a team lock expires like an exclusive one", "LOCK.team.H.txt", "created: " + stamp(now.Add(-3*day)), true, false, true},
		{"a user lock never expires", "LOCK.user.txt", "created: " + stamp(now.Add(-99*day)), false, true, false},
		{"a condition lock never expires", "LOCK.condition.x.txt", "created: " + stamp(now.Add(-99*day)) + "\nexpires_after: 1h\nrelease_condition: done", false, true, false},
		{"a legacy lock never expires and is not pruned", "TEST.txt", "created: " + stamp(now.Add(-99*day)), false, false, false},
		{"an ambiguous name never expires", "LOCK.and.or.txt", "created: " + stamp(now.Add(-99*day)) + "\nexpires_after: 24h", false, true, false},
		{"an ambiguous until lock ignores its deadline", "LOCK.until.and.condition.zenodo.txt", "not_before: " + stamp(now.Add(-time.Hour)) + "\nrelease_condition: x", false, true, false},
		{"an until lock holds before its moment", "LOCK.until.txt", "not_before: " + stamp(now.Add(35*day)), false, true, false},
		{"an until lock expires after its moment", "LOCK.until.deadline.txt", "not_before: " + stamp(now.Add(-time.Hour)), true, true, false},
		{"an until lock holds exactly at its moment", "LOCK.until.txt", "not_before: " + stamp(now), false, true, false},
		{"an until lock ignores created and expires_after", "LOCK.until.txt", "created: " + stamp(now.Add(-30*day)) + "\nexpires_after: 24h\nnot_before: " + stamp(now.Add(35*day)), false, true, false},
		{"an until lock without not_before never expires", "LOCK.until.txt", "created: " + stamp(now.Add(-99*day)), false, true, false},
		{"an until lock with an unreadable not_before never expires", "LOCK.until.txt", "not_before: sometime next autumn", false, true, false},
		{"an expired until lock is still never pruned", "LOCK.until.past.txt", "not_before: " + stamp(now.Add(-5*day)), true, true, false},
		{"a release condition keeps an until lock by default", "LOCK.until.txt", "not_before: " + stamp(now.Add(-time.Hour)) + "\nrelease_condition: review done", false, true, false},
		{"release_mode all keeps it", "LOCK.until.txt", "not_before: " + stamp(now.Add(-time.Hour)) + "\nrelease_condition: r\nrelease_mode: all", false, true, false},
		{"release_mode any releases it at the deadline", "LOCK.until.txt", "not_before: " + stamp(now.Add(-time.Hour)) + "\nrelease_condition: r\nrelease_mode: any", true, true, false},
		{"release_mode ANY is read ignoring case", "LOCK.until.txt", "not_before: " + stamp(now.Add(-time.Hour)) + "\nrelease_condition: r\nrelease_mode:  ANY ", true, true, false},
		{"an invalid release_mode keeps it", "LOCK.until.txt", "not_before: " + stamp(now.Add(-time.Hour)) + "\nrelease_condition: r\nrelease_mode: whenever", false, true, false},
		{"release_mode any does not release before the deadline", "LOCK.until.txt", "not_before: " + stamp(now.Add(day)) + "\nrelease_condition: r\nrelease_mode: any", false, true, false},
		{"an offset not_before is converted", "LOCK.until.txt", "not_before: " + now.Add(-time.Minute).UTC().Format(time.RFC3339), true, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := parse(t, c.file, c.body, now.Add(-1000*day))
			assert.Equal(t, c.expired, l.Expired(now), "expired")
			assert.Equal(t, !c.expired, l.Active(now), "active")
			assert.Equal(t, c.protected, l.Protected(), "protected")
			assert.Equal(t, c.prunable, l.Prunable(now), "prunable")
		})
	}
}

func TestCreatedFallsBackToTheMtime(t *testing.T) {
	mtime := time.Date(2026, 6, 14, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name, body, source string
		want               time.Time
	}{
		{"a missing created uses the mtime", "owner: a", "mtime", mtime},
		{"the template placeholder uses the mtime", "created: YYYY-MM-DDTHH:MM", "mtime", mtime},
		{"a readable created is used", "created: 2026-06-01T10:00", "header", time.Date(2026, 6, 1, 10, 0, 0, 0, cest)},
		{"an RFC 3339 created is read with its offset", "created: 2026-06-01T10:00:00-04:00", "header", time.Date(2026, 6, 1, 14, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := parse(t, "LOCK.txt", c.body, mtime)
			assert.Equal(t, c.source, l.CreatedSource)
			assert.True(t, c.want.Equal(l.Created), "created %v, want %v", l.Created, c.want)
			assert.Equal(t, cest, l.Created.Location(), "times are shown in local time")
		})
	}
}

func TestExpiresAt(t *testing.T) {
	l := parse(t, "LOCK.txt", "created: 2026-06-15T10:00\nexpires_after: 90m", now)
	at, ok := l.ExpiresAt()
	require.True(t, ok)
	assert.True(t, time.Date(2026, 6, 15, 11, 30, 0, 0, cest).Equal(at))

	l = parse(t, "LOCK.txt", "created: 2026-06-15T10:00\nexpires_after: 999999d", now)
	at, ok = l.ExpiresAt()
	require.True(t, ok)
	assert.Equal(t, time.Date(2026, 6, 15, 10, 0, 0, 0, cest).AddDate(0, 0, 999999), at, "lifetimes beyond a Duration are exact")

	for _, name := range []string{"LOCK.user.txt", "LOCK.condition.txt", "TEST.txt", "LOCK.x.user.txt", "LOCK.until.txt"} {
		_, ok := parse(t, name, "created: 2026-06-15T10:00", now).ExpiresAt()
		assert.False(t, ok, name)
	}
	nb := parse(t, "LOCK.until.txt", "not_before: 2026-07-01T00:00", now)
	at, ok = nb.ExpiresAt()
	require.True(t, ok)
	assert.True(t, time.Date(2026, 7, 1, 0, 0, 0, 0, cest).Equal(at))
}

func TestContentMakesAUserLock(t *testing.T) {
	old := "created: " + stamp(now.Add(-99*24*time.Hour)) + "\n"
	cases := []struct {
		name, file, body string
		user             bool
	}{
		{"a first line LOCK.user... makes a user lock", "LOCK.assets.txt", "LOCK.user.claude-code@ASUS-GEI\nGrund: x\nGesetzt: 2026-09-20\n", true},
		{"a bare LOCK.user line makes a user lock", "LOCK.txt", "LOCK.user.claude-code\n", true},
		{"type: user makes a user lock", "LOCK.txt", old + "type: user\n", true},
		{"removable_by: user makes a user lock", "LOCK.api.txt", old + "removable_by: user\n", true},
		{"removable_by is read ignoring case", "LOCK.api.txt", old + "Removable_By: USER\n", true},
		{"owner: user with created_by: bulk is a bulk lock", "LOCK.txt", old + "owner: user\ncreated_by: bulk\n", false},
		{"removable_by: user on a bulk lock does not count", "LOCK.txt", old + "removable_by: user\ncreated_by: bulk\n", false},
		{"owner: user alone is not a user lock", "LOCK.txt", old + "owner: user\n", false},
		{"a team lock can be declared a user lock", "LOCK.team.H.txt", old + "removable_by: user\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := parse(t, c.file, c.body, now.Add(-99*24*time.Hour))
			assert.Equal(t, c.user, l.Kind == lockcore.User)
			assert.Equal(t, c.user, l.ContentUser)
			assert.Equal(t, c.user, l.Protected())
			assert.Equal(t, !c.user, l.Expired(now))
			assert.Equal(t, !c.user, l.Prunable(now))
		})
	}
	l := parse(t, "LOCK.assets.txt", "LOCK.user.me\n", now)
	assert.Equal(t, "assets", l.Scope, "the name still gives the scope")
	assert.False(t, parse(t, "LOCK.user.txt", "removable_by: user", now).ContentUser, "a user lock by name is not one by content")
}

func TestLockFields(t *testing.T) {
	body := "owner: alice\nhost: box1\ntask: migrate\nrelease_condition: CI green\nmode: SOFT\n" +
		"operations: Commit, push\nfence: 42\ntoken: t-1\ncreated_by: Bulk\n"
	l := parse(t, "LOCK.team.api.box2.txt", body, now)
	assert.Equal(t, "alice", l.Owner)
	assert.Equal(t, "box1", l.Host, "the body's host")
	assert.Equal(t, "box2", l.Name.Host, "the name's host")
	assert.Equal(t, "migrate", l.Purpose, "task stands in for a missing purpose")
	assert.Equal(t, "CI green", l.ReleaseCondition)
	assert.True(t, l.Soft())
	assert.Equal(t, "soft", l.Mode)
	assert.Equal(t, []string{"Commit", "push"}, l.Operations)
	assert.True(t, l.CoversOperation("commit"), "operations compare ignoring case")
	assert.True(t, l.CoversOperation("PUSH"))
	assert.False(t, l.CoversOperation("edit"))
	f, ok := l.Fence()
	assert.True(t, ok)
	assert.Equal(t, int64(42), f)
	assert.Equal(t, "t-1", l.Token())
	assert.True(t, l.BulkCreated())
	assert.Equal(t, "/locks", l.Dir)
	assert.Equal(t, "/locks/LOCK.team.api.box2.txt", l.Path)

	plain := parse(t, "LOCK.txt", "purpose: p\ntask: t\nmode: firm\n", now)
	assert.Equal(t, "p", plain.Purpose, "purpose wins over task")
	assert.Equal(t, "hard", plain.Mode, "anything but soft is hard")
	assert.False(t, plain.Soft())
	assert.True(t, plain.CoversOperation("anything"), "no operations field blocks everything")
	assert.False(t, plain.BulkCreated())
	assert.Empty(t, plain.Token())
}

func TestFenceMustBeADecimalThatFits(t *testing.T) {
	cases := []struct {
		value string
		want  int64
		ok    bool
	}{
		{"123", 123, true},
		{" 42 ", 42, true},
		{"0", 0, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"9223372036854775808", 0, false},
		{"99999999999999999999", 0, false},
		{"-1", 0, false},
		{"abc", 0, false},
		{"1e6", 0, false},
		{"", 0, false},
	}
	for _, c := range cases {
		t.Run("fence "+c.value, func(t *testing.T) {
			f, ok := parse(t, "LOCK.txt", "fence: "+c.value, now).Fence()
			assert.Equal(t, c.ok, ok)
			assert.Equal(t, c.want, f)
		})
	}
	_, ok := parse(t, "LOCK.txt", "owner: a", now).Fence()
	assert.False(t, ok, "a lock without fence predates fencing")
}

func TestParseLockRefusesNonLockNames(t *testing.T) {
	for _, name := range []string{"README.txt", "LOCK.permissions.txt", "LOCK.txt.bak"} {
		_, err := lockcore.ParseLock("/x/"+name, nil, now, cest)
		assert.ErrorContains(t, err, "not a lock file name", name)
	}
}

func TestToJSONHasTheContractKeys(t *testing.T) {
	l := parse(t, "LOCK.api.txt", "owner: bob\ncreated: 2026-06-15T10:00\nexpires_after: 1h\noperations: commit\npurpose: p\nfence: 7\n", now)
	j := l.ToJSON(now)
	assert.Equal(t, "/locks/LOCK.api.txt", j.Path)
	assert.Equal(t, "LOCK.api.txt", j.Name)
	assert.Equal(t, lockcore.Exclusive, j.Kind)
	assert.Equal(t, "api", j.Scope)
	assert.Equal(t, "2026-06-15T10:00:00+02:00", j.Created)
	assert.Equal(t, "header", j.CreatedSource)
	require.NotNil(t, j.ExpiresAt)
	assert.Equal(t, "2026-06-15T11:00:00+02:00", *j.ExpiresAt)
	assert.True(t, j.Expired)
	assert.Equal(t, []string{"commit"}, j.Operations)
	assert.Equal(t, "expired", j.Remaining)
	require.NotNil(t, j.Fence)
	assert.Equal(t, int64(7), *j.Fence)

	data, err := json.Marshal(parse(t, "LOCK.user.txt", "", now).ToJSON(now))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	for _, k := range []string{"path", "name", "kind", "scope", "host", "owner", "created", "created_source", "expires_at", "expired", "mode", "operations", "release_condition", "purpose"} {
		assert.Contains(t, m, k)
	}
	assert.Nil(t, m["expires_at"], "a user lock has no expiry")
	assert.Equal(t, []any{}, m["operations"], "operations is an array, never null")
	assert.Equal(t, "user", m["kind"])
	assert.Equal(t, "mtime", m["created_source"])

	team := parse(t, "LOCK.team.H1.txt", "host: other", now).ToJSON(now)
	assert.Equal(t, "H1", team.Host, "a team lock's host is its name's")
	assert.Equal(t, "other", parse(t, "LOCK.txt", "host: other", now).ToJSON(now).Host)
}
