package lockcore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

func TestClassifyReadsKindScopeAndHostFromTheName(t *testing.T) {
	cases := []struct {
		name, file string
		kind       lockcore.Kind
		scope      string
		host       string
	}{
		{"a bare LOCK.txt is an exclusive project lock", "LOCK.txt", lockcore.Exclusive, "project", ""},
		{"lower-case lock.txt is a lock", "lock.txt", lockcore.Exclusive, "project", ""},
		{"upper-case LOCK.TXT is a lock", "LOCK.TXT", lockcore.Exclusive, "project", ""},
		{"mixed case keeps the scope's case", "Lock.Api.Txt", lockcore.Exclusive, "Api", ""},
		{"one segment is the scope", "LOCK.api.txt", lockcore.Exclusive, "api", ""},
		{"dotted scopes are kept whole", "LOCK.a.b.txt", lockcore.Exclusive, "a.b", ""},
		{"a team lock's last segment is its host", "LOCK.team.H.txt", lockcore.Team, "project", "H"},
		{"a team lock's middle segments are its scope", "LOCK.team.a.b.H.txt", lockcore.Team, "a.b", "H"},
		{"a team lock without host stops every host", "LOCK.team.txt", lockcore.Team, "project", ""},
		{"community is an alias of team", "LOCK.community.H.txt", lockcore.Team, "project", "H"},
		{"the community marker is case-insensitive", "LOCK.COMMUNITY.x.H.txt", lockcore.Team, "x", "H"},
		{"the team marker is case-insensitive", "LOCK.Team.assets.ASUS-GEI.txt", lockcore.Team, "assets", "ASUS-GEI"},
		{"a user lock covers the project", "LOCK.user.txt", lockcore.User, "project", ""},
		{"a scoped user lock keeps its scope's case", "LOCK.USER.Api.txt", lockcore.User, "Api", ""},
		{"a condition lock covers the project", "LOCK.condition.txt", lockcore.Condition, "project", ""},
		{"a scoped condition lock", "LOCK.condition.publish-release.txt", lockcore.Condition, "publish-release", ""},
		{"conditioner is only a scope", "LOCK.conditioner.txt", lockcore.Exclusive, "conditioner", ""},
		{"an until lock covers the project", "LOCK.until.txt", lockcore.Until, "project", ""},
		{"the until marker is not part of the scope", "LOCK.until.zenodo.txt", lockcore.Until, "zenodo", ""},
		{"TEST.txt is a legacy lock", "TEST.txt", lockcore.Legacy, "project", ""},
		{"TESTS.txt is a legacy lock", "TESTS.txt", lockcore.Legacy, "project", ""},
		{"a permissions-like scope with more segments is a lock", "LOCK.permissions.x.txt", lockcore.Exclusive, "permissions.x", ""},
		{"underscores and dashes are scope characters", "LOCK.my_area-2.txt", lockcore.Exclusive, "my_area-2", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, ok := lockcore.Classify(c.file)
			require.True(t, ok)
			assert.Equal(t, c.file, n.File)
			assert.Equal(t, c.kind, n.Kind)
			assert.Equal(t, c.scope, n.Scope)
			assert.Equal(t, c.host, n.Host)
			assert.True(t, lockcore.IsLockName(c.file))
		})
	}
}

func TestClassifyRejectsWhatIsNotALock(t *testing.T) {
	for _, name := range []string{
		"LOCK.txt.bak", "LOCK..txt", "LOCK.a..b.txt", "LOCK.a b.txt", "LOCK-CACHE.md",
		"LOCK_TEMPLATE.txt", "LOCK.permissions.txt", "lock.PERMISSIONS.TXT", "LOCKS.txt",
		".LOCK.txt", "LOCK.txt ", " LOCK.txt", "LOCK.", "LOCK", "LOCK.txt.txt.bak",
		"LOCK.é.txt", "LOCK.a/b.txt", "test.txt", "TEST.TXT", "Tests.txt", "TESTS.TXT",
		"PRIVATE.txt", "PUBLIC.txt", "README.md", "", "LOCK.a.txt\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, ok := lockcore.Classify(name)
			assert.False(t, ok)
			assert.False(t, lockcore.IsLockName(name))
		})
	}
}

func TestClassifyFlagsReservedWordsWhereAScopeBelongs(t *testing.T) {
	cases := []struct {
		file      string
		ambiguous bool
		kind      lockcore.Kind
	}{
		// From the reference's tests.
		{"LOCK.until.and.condition.zenodo.txt", true, lockcore.Until},
		{"LOCK.until.or.condition.zenodo.txt", true, lockcore.Until},
		{"LOCK.until.and.not-condition.zenodo.txt", true, lockcore.Until},
		{"LOCK.condition.and.until.zenodo.txt", true, lockcore.Condition},
		{"LOCK.user.condition.publish.txt", true, lockcore.User},
		{"LOCK.and.or.txt", true, lockcore.Exclusive},
		{"LOCK.txt", false, lockcore.Exclusive},
		{"LOCK.until.winners-announcement.txt", false, lockcore.Until},
		{"LOCK.user.zenodo-upload.txt", false, lockcore.User},
		{"LOCK.condition.publish-release.txt", false, lockcore.Condition},
		{"LOCK.team.assets.ASUS-GEI.txt", false, lockcore.Team},
		{"LOCK.software.txt", false, lockcore.Exclusive},
		{"LOCK.user.publication-and-claim-edits.txt", false, lockcore.User},
		// Derived from the rule.
		{"LOCK.and.txt", false, lockcore.Exclusive},
		{"LOCK.x.user.txt", true, lockcore.Exclusive},
		{"LOCK.frontend.user.txt", true, lockcore.Exclusive},
		{"LOCK.team.until.H.txt", true, lockcore.Team},
		{"LOCK.team.and.txt", false, lockcore.Team},
		{"LOCK.team.a.H.user.txt", false, lockcore.Team}, // "user" is the host here
		{"LOCK.team.user.H.txt", true, lockcore.Team},
		{"LOCK.community.x.user.txt", false, lockcore.Team},
		{"LOCK.x.NOT.txt", true, lockcore.Exclusive},
		{"LOCK.x.not-user.txt", true, lockcore.Exclusive},
		{"LOCK.x.NOT-Team.txt", true, lockcore.Exclusive},
		{"LOCK.x.not-community.txt", true, lockcore.Exclusive},
		{"LOCK.x.not-foo.txt", false, lockcore.Exclusive},
		{"LOCK.x.not-and.txt", false, lockcore.Exclusive},
		{"LOCK.not-user.x.txt", false, lockcore.Exclusive},
		{"LOCK.x.community.txt", true, lockcore.Exclusive},
		{"LOCK.user.txt", false, lockcore.User},
		{"LOCK.until.user.txt", true, lockcore.Until},
		{"TEST.txt", false, lockcore.Legacy},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			n, ok := lockcore.Classify(c.file)
			require.True(t, ok)
			assert.Equal(t, c.ambiguous, n.Ambiguous)
			assert.Equal(t, c.kind, n.Kind)
		})
	}
	n, _ := lockcore.Classify("LOCK.user.publication-and-claim-edits.txt")
	assert.Equal(t, "publication-and-claim-edits", n.Scope, "a reserved word inside a segment is just text")
}

func TestIsLegacyNameIsExactCase(t *testing.T) {
	assert.True(t, lockcore.IsLegacyName("TEST.txt"))
	assert.True(t, lockcore.IsLegacyName("TESTS.txt"))
	assert.False(t, lockcore.IsLegacyName("test.txt"))
	assert.False(t, lockcore.IsLegacyName("TEST.TXT"))
	assert.False(t, lockcore.IsLegacyName("LOCK.txt"))
}

func TestScopesOverlapFollowsTheReference(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"assets", "assets.images", true},
		{"assets.images", "assets", true},
		{"assets", "assets-backup", false},
		{"assets", "docs", false},
		{"A", "a", true},
		{"a.b", "a.c", false},
		{"", "x", false},
		{"project", "anything", true},
		{"anything", "PROJECT", true},
		{" api ", "API", true},
		{"a.b.c", "a", true},
		{"ab", "a", false},
	}
	for _, c := range cases {
		t.Run(c.a+" vs "+c.b, func(t *testing.T) {
			assert.Equal(t, c.want, lockcore.ScopesOverlap(c.a, c.b))
		})
	}
}
