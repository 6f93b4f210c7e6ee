package main

// CONTRACT.md section 1 (lock files), observed through `guard scan --json` and `guard check`.

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContractLockNamesAreClassifiedAsSection1Says(t *testing.T) {
	cases := []struct {
		name, file, kind, scope, host string
	}{
		{"LOCK.txt is an exclusive project lock", "LOCK.txt", "exclusive", "project", ""},
		{"lower-case lock.txt is a lock too", "lock.txt", "exclusive", "project", ""},
		{"upper-case LOCK.TXT is a lock too", "LOCK.TXT", "exclusive", "project", ""},
		{"a dotted scope keeps its dots and case", "LOCK.Api.v2.txt", "exclusive", "Api.v2", ""},
		{"a team lock names its host last", "LOCK.team.h1.txt", "team", "project", "h1"},
		{"a team lock with a scope has it between marker and host", "LOCK.team.web.h1.txt", "team", "web", "h1"},
		{"community is an alias of team", "LOCK.community.web.h2.txt", "team", "web", "h2"},
		{"the marker compares case-insensitively", "LOCK.TEAM.h1.txt", "team", "project", "h1"},
		{"LOCK.team.txt is a team lock with no host", "LOCK.team.txt", "team", "project", ""},
		{"LOCK.user.txt is a user lock of the project", "LOCK.user.txt", "user", "project", ""},
		{"LOCK.user.s.txt is a user lock of scope s", "LOCK.user.s.txt", "user", "s", ""},
		{"LOCK.condition.txt is a condition lock", "LOCK.condition.txt", "condition", "project", ""},
		{"LOCK.condition.s.txt is a condition lock of scope s", "LOCK.condition.s.txt", "condition", "s", ""},
		{"LOCK.until.txt is an until lock", "LOCK.until.txt", "until", "project", ""},
		{"LOCK.until.s.txt is an until lock of scope s", "LOCK.until.s.txt", "until", "s", ""},
		{"LOCK.conditioner.txt is a plain exclusive lock", "LOCK.conditioner.txt", "exclusive", "conditioner", ""},
		{"TEST.txt is a legacy lock", "TEST.txt", "legacy", "project", ""},
		{"TESTS.txt is a legacy lock", "TESTS.txt", "legacy", "project", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := ctWrite(t, dir, c.file, "owner: alice\n"+ctLive)
			l := ctScanOne(t, dir)
			assert.Equal(t, p, l["path"])
			assert.Equal(t, c.file, l["name"])
			assert.Equal(t, c.kind, l["kind"])
			assert.Equal(t, c.scope, l["scope"])
			assert.Equal(t, c.host, l["host"])
		})
	}
}

func TestContractNamesThatAreNotLocksAreNotReported(t *testing.T) {
	for _, name := range []string{"LOCK.txt.bak", "LOCK..txt", "LOCK-CACHE.md", "LOCK_TEMPLATE.txt",
		"LOCK.permissions.txt", "test.txt", "Tests.txt", "LOCK.a b.txt", "LOCKS.txt", "MYLOCK.txt"} {
		t.Run(name+" is not a lock", func(t *testing.T) {
			dir := t.TempDir()
			ctWrite(t, dir, name, "owner: alice\n"+ctDead)
			out, errOut, code := ctRun(t, dir, nil, "", "scan", "--all", "--json", dir)
			require.Equal(t, 0, code, errOut)
			assert.JSONEq(t, `[]`, out)
			_, _, code = ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "x")
			assert.Equal(t, 0, code)
			out, _, code = ctRun(t, dir, nil, "", "prune", dir)
			assert.Equal(t, 0, code)
			assert.Empty(t, out)
			assert.FileExists(t, filepath.Join(dir, name))
		})
	}
}

func TestContractLockObjectHasEveryPromisedKey(t *testing.T) {
	dir := t.TempDir()
	ctWrite(t, dir, "LOCK.web.txt", "owner: alice\n"+ctLive+"expires_after: 2h\nmode: soft\npurpose: deploy\n"+
		"operations: push, commit\nrelease_condition: tests green\n")
	l := ctScanOne(t, dir)
	for _, k := range ctLockObjectKeys {
		assert.Contains(t, l, k)
	}
	assert.Equal(t, "exclusive", l["kind"])
	assert.Equal(t, "web", l["scope"])
	assert.Equal(t, "alice", l["owner"])
	assert.Equal(t, "2099-01-01T00:00:00Z", l["created"])
	assert.Equal(t, "header", l["created_source"])
	assert.Equal(t, "2099-01-01T02:00:00Z", l["expires_at"])
	assert.Equal(t, false, l["expired"])
	assert.Equal(t, "soft", l["mode"])
	assert.Equal(t, []any{"push", "commit"}, l["operations"])
	assert.Equal(t, "tests green", l["release_condition"])
	assert.Equal(t, "deploy", l["purpose"])
}

func TestContractLockBodyParsing(t *testing.T) {
	cases := []struct {
		name, body string
		check      func(t *testing.T, l map[string]any)
	}{
		{"comments, blank lines and lines without a colon are skipped", "# owner: nobody\n\nowner alice\nowner: carol\n" + ctLive,
			func(t *testing.T, l map[string]any) { assert.Equal(t, "carol", l["owner"]) }},
		{"keys are trimmed and lower-cased and values trimmed", "  OWNER  :   dave  \n" + ctLive,
			func(t *testing.T, l map[string]any) { assert.Equal(t, "dave", l["owner"]) }},
		{"a value is split at the first colon only", "owner: x\n" + ctLive + "purpose: fix: the build\n",
			func(t *testing.T, l map[string]any) { assert.Equal(t, "fix: the build", l["purpose"]) }},
		{"the last duplicate wins", "owner: first\nowner: last\n" + ctLive,
			func(t *testing.T, l map[string]any) { assert.Equal(t, "last", l["owner"]) }},
		{"operations is a comma list without empty items", "owner: x\n" + ctLive + "operations: push, ,commit ,\n",
			func(t *testing.T, l map[string]any) { assert.Equal(t, []any{"push", "commit"}, l["operations"]) }},
		{"mode defaults to hard", "owner: x\n" + ctLive,
			func(t *testing.T, l map[string]any) { assert.Equal(t, "hard", l["mode"]) }},
		{"a missing operations field is an empty array", "owner: x\n" + ctLive,
			func(t *testing.T, l map[string]any) { assert.Equal(t, []any{}, l["operations"]) }},
		{"the scope field is informational; the name decides", "owner: x\n" + ctLive + "scope: other\n",
			func(t *testing.T, l map[string]any) { assert.Equal(t, "project", l["scope"]) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ctWrite(t, dir, "LOCK.txt", c.body)
			c.check(t, ctScanOne(t, dir))
		})
	}
	t.Run("unknown keys are kept, never an error", func(t *testing.T) {
		dir := t.TempDir()
		ctWrite(t, dir, "LOCK.txt", "owner: x\n"+ctLive+"ticket: JIRA-1\n")
		out, errOut, code := ctRun(t, dir, nil, "", "scan", "--json", dir)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "JIRA-1")
		assert.Empty(t, errOut)
	})
}

func TestContractCreatedAndExpiresAfter(t *testing.T) {
	cases := []struct {
		name, body               string
		created, source, expires string
	}{
		{"created with T and seconds", "created: 2099-03-04T05:06:07\n", "2099-03-04T05:06:07Z", "header", "2099-03-05T05:06:07Z"},
		{"created with a space and minutes", "created: 2099-03-04 05:06\n", "2099-03-04T05:06:00Z", "header", "2099-03-05T05:06:00Z"},
		{"created as a bare date", "created: 2099-03-04\n", "2099-03-04T00:00:00Z", "header", "2099-03-05T00:00:00Z"},
		{"created in RFC 3339 with an offset is read as written", "created: 2099-03-04T05:00:00+02:00\n", "2099-03-04T03:00:00Z", "header", "2099-03-05T03:00:00Z"},
		{"expires_after in hours", "created: 2099-03-04T00:00:00\nexpires_after: 2h\n", "2099-03-04T00:00:00Z", "header", "2099-03-04T02:00:00Z"},
		{"expires_after in seconds", "created: 2099-03-04T00:00:00\nexpires_after: 90s\n", "2099-03-04T00:00:00Z", "header", "2099-03-04T00:01:30Z"},
		{"expires_after in minutes", "created: 2099-03-04T00:00:00\nexpires_after: 30m\n", "2099-03-04T00:00:00Z", "header", "2099-03-04T00:30:00Z"},
		{"expires_after in days", "created: 2099-03-04T00:00:00\nexpires_after: 2d\n", "2099-03-04T00:00:00Z", "header", "2099-03-06T00:00:00Z"},
		{"expires_after in any case with spaces", "created: 2099-03-04T00:00:00\nexpires_after:  5 H \n", "2099-03-04T00:00:00Z", "header", "2099-03-04T05:00:00Z"},
		{"expires_after 0h expires at created", "created: 2099-03-04T00:00:00\nexpires_after: 0h\n", "2099-03-04T00:00:00Z", "header", "2099-03-04T00:00:00Z"},
		{"an invalid expires_after (weeks) means 24h", "created: 2099-03-04T00:00:00\nexpires_after: 1w\n", "2099-03-04T00:00:00Z", "header", "2099-03-05T00:00:00Z"},
		{"a fractional expires_after means 24h", "created: 2099-03-04T00:00:00\nexpires_after: 1.5h\n", "2099-03-04T00:00:00Z", "header", "2099-03-05T00:00:00Z"},
		{"a negative expires_after means 24h", "created: 2099-03-04T00:00:00\nexpires_after: -1h\n", "2099-03-04T00:00:00Z", "header", "2099-03-05T00:00:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ctWrite(t, dir, "LOCK.txt", "owner: x\n"+c.body)
			l := ctScanOne(t, dir)
			assert.Equal(t, c.created, l["created"])
			assert.Equal(t, c.source, l["created_source"])
			assert.Equal(t, c.expires, l["expires_at"])
		})
	}
	for _, created := range []string{"", "created: YYYY-MM-DDTHH:MM\n", "created: yesterday\n"} {
		t.Run("a missing or unparseable created "+created+"falls back to the file's mtime", func(t *testing.T) {
			dir := t.TempDir()
			p := ctWrite(t, dir, "LOCK.txt", "owner: x\n"+created)
			mtime := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
			require.NoError(t, os.Chtimes(p, mtime, mtime))
			l := ctScanOne(t, dir)
			assert.Equal(t, "2001-02-03T04:05:06Z", l["created"])
			assert.Equal(t, "mtime", l["created_source"])
			assert.Equal(t, true, l["expired"])
		})
	}
}

func TestContractExpiredLocksAreHiddenFromScanUnlessAll(t *testing.T) {
	dir := t.TempDir()
	live := ctWrite(t, dir, "a/LOCK.txt", "owner: x\n"+ctLive)
	dead := ctWrite(t, dir, "b/LOCK.txt", "owner: x\n"+ctDead)
	out, _, code := ctRun(t, dir, nil, "", "scan", "--json", dir)
	require.Equal(t, 0, code)
	locks := ctLocks(t, out)
	require.Len(t, locks, 1)
	assert.Equal(t, live, locks[0]["path"])

	out, _, code = ctRun(t, dir, nil, "", "scan", "--all", "--json", dir)
	require.Equal(t, 0, code)
	locks = ctLocks(t, out)
	require.Len(t, locks, 2)
	assert.Equal(t, live, locks[0]["path"], "sorted by path")
	assert.Equal(t, dead, locks[1]["path"])
	assert.Equal(t, true, locks[1]["expired"])
	assert.Equal(t, "2000-01-02T00:00:00Z", locks[1]["expires_at"])

	_, _, code = ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "b/x")
	assert.Equal(t, 0, code, "an expired lock stops nobody")
}

func TestContractProtectedKindsNeverExpire(t *testing.T) {
	cases := []struct {
		name, file, body string
		expired          bool
		expiresAt        any
		pruned           bool
	}{
		{"an old user lock never expires and is never pruned", "LOCK.user.txt", ctDead, false, nil, false},
		{"an old condition lock never expires and is never pruned", "LOCK.condition.txt", ctDead + "release_condition: ci\n", false, nil, false},
		{"a legacy lock never expires and is never pruned", "TEST.txt", ctDead, false, nil, false},
		{"an until lock without not_before never expires", "LOCK.until.txt", ctDead, false, nil, false},
		{"an until lock with an invalid not_before never expires", "LOCK.until.txt", ctDead + "not_before: soon\n", false, nil, false},
		{"an until lock expires at not_before but is never pruned", "LOCK.until.txt", ctLive + "not_before: 2000-01-01T00:00:00\n", true, "2000-01-01T00:00:00Z", false},
		{"an until lock's not_before in the future keeps it", "LOCK.until.txt", ctDead + "not_before: 2099-05-06T07:08:09\n", false, "2099-05-06T07:08:09Z", false},
		{"an until lock's not_before with an offset is converted", "LOCK.until.txt", ctDead + "not_before: 2099-05-06T07:08:09+02:00\n", false, "2099-05-06T05:08:09Z", false},
		{"an until lock with a release_condition is kept past its deadline by default", "LOCK.until.txt",
			ctDead + "not_before: 2000-01-01T00:00:00\nrelease_condition: ci\n", false, nil, false},
		{"an until lock with release_mode all is kept past its deadline", "LOCK.until.txt",
			ctDead + "not_before: 2000-01-01T00:00:00\nrelease_condition: ci\nrelease_mode: all\n", false, nil, false},
		{"an until lock with an invalid release_mode is kept past its deadline", "LOCK.until.txt",
			ctDead + "not_before: 2000-01-01T00:00:00\nrelease_condition: ci\nrelease_mode: whenever\n", false, nil, false},
		{"an until lock with release_mode any is released by its deadline", "LOCK.until.txt",
			ctDead + "not_before: 2000-01-01T00:00:00\nrelease_condition: ci\nrelease_mode: any\n", true, "2000-01-01T00:00:00Z", false},
		{"a body that says removable_by user makes any name a user lock", "LOCK.txt", ctDead + "removable_by: user\n", false, nil, false},
		{"a body that says type user makes any name a user lock", "LOCK.web.txt", ctDead + "type: user\n", false, nil, false},
		{"a bulk lock that says removable_by user stays an ordinary lock", "LOCK.txt", ctDead + "removable_by: user\ncreated_by: bulk\n", true, "2000-01-02T00:00:00Z", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := ctWrite(t, dir, c.file, "owner: alice\n"+c.body)
			l := ctScanOne(t, dir)
			assert.Equal(t, c.expired, l["expired"])
			assert.Equal(t, c.expiresAt, l["expires_at"])
			_, _, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "x")
			if c.expired {
				assert.Equal(t, 0, code, "an expired lock stops nobody")
			} else {
				assert.Equal(t, 1, code, "a live lock stops another owner")
			}
			out, _, code := ctRun(t, dir, nil, "", "prune", dir)
			require.Equal(t, 0, code)
			if c.pruned {
				assert.Equal(t, "removed "+p+"\n", out)
				assert.NoFileExists(t, p)
			} else {
				assert.Empty(t, out)
				assert.FileExists(t, p)
			}
		})
	}
	t.Run("a content-aware user lock is reported with kind user", func(t *testing.T) {
		dir := t.TempDir()
		ctWrite(t, dir, "LOCK.txt", "owner: alice\n"+ctDead+"removable_by: user\n")
		assert.Equal(t, "user", ctScanOne(t, dir)["kind"])
	})
}

func TestContractAmbiguousNamesFailClosed(t *testing.T) {
	ambiguous := []string{
		"LOCK.frontend.user.txt", "LOCK.frontend.team.txt", "LOCK.a.community.txt", "LOCK.a.condition.txt",
		"LOCK.a.until.txt", "LOCK.a.AND.txt", "LOCK.a.or.txt", "LOCK.a.not.txt", "LOCK.a.not-user.txt",
		"LOCK.a.not-until.txt", "LOCK.team.user.h1.txt", "LOCK.user.team.txt", "LOCK.condition.or.txt",
		"LOCK.until.x.not.txt",
	}
	for _, name := range ambiguous {
		t.Run(name+" is ambiguous: active, never expiring, never pruned", func(t *testing.T) {
			dir := t.TempDir()
			p := ctWrite(t, dir, name, "owner: alice\n"+ctDead)
			l := ctScanOne(t, dir)
			assert.Equal(t, true, l["ambiguous"])
			assert.Equal(t, false, l["expired"])
			assert.Nil(t, l["expires_at"])
			_, _, code := ctRun(t, dir, []string{"GUARD_OWNER=bob", "GUARD_HOST=elsewhere"}, "", "check", "x")
			assert.Equal(t, 1, code)
			out, _, _ := ctRun(t, dir, nil, "", "prune", dir)
			assert.Empty(t, out)
			assert.FileExists(t, p)
		})
	}
	for _, name := range []string{"LOCK.user.txt", "LOCK.a.userx.txt", "LOCK.a.b.not-and.txt", "LOCK.Users.txt", "LOCK.team.user.txt"} {
		t.Run(name+" is not ambiguous", func(t *testing.T) {
			dir := t.TempDir()
			ctWrite(t, dir, name, "owner: alice\n"+ctLive)
			assert.Equal(t, false, ctScanOne(t, dir)["ambiguous"])
		})
	}
}

func TestContractFenceRefusesASupersededHolder(t *testing.T) {
	dir := ctRepo(t, map[string]string{"a.txt": "a\n"})
	env := []string{"GUARD_OWNER=alice"}
	_, errOut, code := ctRun(t, dir, env, "", "lock")
	require.Equal(t, 0, code, errOut)
	lockPath := filepath.Join(dir, "LOCK.txt")
	l := ctScanOne(t, dir)
	fields := l["fields"].(map[string]any)
	fence := fields["fence"].(string)
	require.Regexp(t, `^\d{16}$`, fence, "a fresh fence is now in Unix microseconds")
	assert.Contains(t, errOut, "LOCK_FENCE="+fence+"\n")
	assert.Contains(t, errOut, "LOCK_FENCE_FILE="+lockPath+"\n")

	fenced := func(f, file string) int {
		_, _, code := ctRun(t, dir, append(env, "LOCK_FENCE="+f, "LOCK_FENCE_FILE="+file), "", "check", "a.txt")
		return code
	}
	assert.Equal(t, 0, fenced(fence, lockPath), "the holder of the current fence may write")

	outside := ctWrite(t, t.TempDir(), "LOCK.txt", ctRead(t, lockPath))
	assert.Equal(t, 1, fenced(fence, outside), "a fence file outside the repository is refused")

	_, errOut, code = ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "lock", "--force")
	require.Equal(t, 0, code, errOut)
	newFence := ctScanOne(t, dir)["fields"].(map[string]any)["fence"].(string)
	assert.Greater(t, newFence, fence, "a takeover raises the fence")
	assert.Equal(t, 1, fenced(fence, lockPath), "the superseded holder is refused")

	require.NoError(t, os.WriteFile(lockPath, []byte("owner: alice\n"+ctDead+"fence: "+fence+"\n"), 0o644))
	assert.Equal(t, 1, fenced(fence, lockPath), "an expired lock no longer grants its fence")
}

func TestContractScopeOverlapForLockCreation(t *testing.T) {
	cases := []struct {
		name, held, want string
		code             int
	}{
		{"an equal scope overlaps", "LOCK.assets.txt", "assets", 1},
		{"scopes compare case-insensitively", "LOCK.assets.txt", "ASSETS", 1},
		{"a project lock overlaps every scope", "LOCK.txt", "docs", 1},
		{"a scoped lock overlaps a project claim", "LOCK.assets.txt", "", 1},
		{"assets does not overlap assets-backup", "LOCK.assets.txt", "assets-backup", 0},
		{"assets does not overlap docs", "LOCK.assets.txt", "docs", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range []string{"assets", "assets-backup", "docs"} {
				ctMkdir(t, dir, d)
			}
			held := ctWrite(t, dir, c.held, "owner: alice\n"+ctLive)
			args := []string{"lock"}
			if c.want != "" {
				args = append(args, "--scope", c.want)
			}
			out, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", args...)
			assert.Equal(t, c.code, code, errOut)
			if c.code == 1 {
				assert.Empty(t, out)
				assert.Contains(t, errOut, held)
				entries, _ := os.ReadDir(dir)
				assert.Len(t, entries, 4, "nothing is created")
			}
		})
	}
	t.Run("assets overlaps assets.images for check", func(t *testing.T) {
		dir := t.TempDir()
		ctMkdir(t, dir, "assets/images")
		ctMkdir(t, dir, "assets-backup")
		ctWrite(t, dir, "LOCK.assets.txt", "owner: alice\n"+ctLive)
		_, _, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "assets/images/a.png")
		assert.Equal(t, 1, code)
		_, _, code = ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "assets-backup/a.png")
		assert.Equal(t, 0, code)
	})
}
