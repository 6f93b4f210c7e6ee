package main

// CONTRACT.md section 4: guard lock, unlock, renew, prune and lockdown.

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/testenv"
)

// ctBodyKeys lists the keys of a lock body in file order.
func ctBodyKeys(t *testing.T, p string) []string {
	t.Helper()
	var keys []string
	sc := bufio.NewScanner(strings.NewReader(ctRead(t, p)))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, _, ok := strings.Cut(line, ":")
		require.True(t, ok, line)
		keys = append(keys, k)
	}
	return keys
}

// ctBodyValue returns the value of key in a lock body ("" when absent).
func ctBodyValue(t *testing.T, p, key string) string {
	t.Helper()
	for _, line := range strings.Split(ctRead(t, p), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func TestContractLockWritesTheReferenceBody(t *testing.T) {
	created := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$`)
	cases := []struct {
		name string
		args []string
		file string
		keys []string
		vals map[string]string
	}{
		{"a project lock", []string{"--purpose", "deploy"}, "LOCK.txt",
			[]string{"owner", "created", "host", "fence", "expires_after", "mode", "purpose", "scope"},
			map[string]string{"owner": "alice", "host": "box1", "expires_after": "24h", "mode": "hard", "purpose": "deploy", "scope": "project"}},
		{"a scoped lock with every option", []string{"--scope", "web", "--expires", "2h", "--mode", "soft", "--release-condition", "ci green", "--operations", "push,commit"}, "LOCK.web.txt",
			nil, map[string]string{"expires_after": "2h", "mode": "soft", "release_condition": "ci green", "scope": "web"}},
		{"a team lock", []string{"--team", "box1", "--scope", "web"}, "LOCK.team.web.box1.txt",
			[]string{"owner", "created", "host", "fence", "expires_after", "mode", "scope"},
			map[string]string{"host": "box1", "scope": "web"}},
		{"a user lock writes removable_by and no expires_after", []string{"--user"}, "LOCK.user.txt",
			[]string{"owner", "created", "host", "fence", "removable_by", "mode", "scope"},
			map[string]string{"removable_by": "user", "expires_after": ""}},
		{"a condition lock writes its release_condition and no expires_after", []string{"--condition", "--release-condition", "PR merged", "--scope", "db"}, "LOCK.condition.db.txt",
			[]string{"owner", "created", "host", "fence", "release_condition", "mode", "scope"},
			map[string]string{"release_condition": "PR merged", "scope": "db"}},
		{"an until lock writes not_before", []string{"--until", "2099-01-01T00:00", "--scope", "rel"}, "LOCK.until.rel.txt",
			nil, map[string]string{"not_before": "2099-01-01T00:00", "scope": "rel"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=alice"}, "", append([]string{"lock"}, c.args...)...)
			require.Equal(t, 0, code, errOut)
			p := filepath.Join(dir, c.file)
			assert.Equal(t, p+"\n", out, "stdout is the lock's absolute path")
			if c.keys != nil {
				assert.Equal(t, c.keys, ctBodyKeys(t, p), "the reference's field order, fence after host")
			}
			for k, v := range c.vals {
				assert.Equal(t, v, ctBodyValue(t, p, k), k)
			}
			assert.Regexp(t, created, ctBodyValue(t, p, "created"))
		})
	}
}

func TestContractLockRefusesBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"--condition without --release-condition", []string{"--condition"}},
		{"a scope with a dot", []string{"--scope", "a.b"}},
		{"a scope with ..", []string{"--scope", ".."}},
		{"a scope with a slash", []string{"--scope", "a/b"}},
		{"a scope with a backslash", []string{"--scope", `a\b`}},
		{"a team host with a dot", []string{"--team", "h.1"}},
		{"a team host with a slash", []string{"--team", "h/1"}},
		{"--team with --user", []string{"--team", "h1", "--user"}},
		{"--user with --condition", []string{"--user", "--condition", "--release-condition", "x"}},
		{"--team with --until", []string{"--team", "h1", "--until", "2099-01-01"}},
		{"--contested with --no-contest", []string{"--contested", "--no-contest"}},
		{"an unknown mode", []string{"--mode", "medium"}},
		{"an until time that is no time", []string{"--until", "later"}},
		{"a reserved word as the scope (it would make an ambiguous name)", []string{"--scope", "user"}},
		{"a not-reserved word as the scope", []string{"--scope", "NOT-TEAM"}},
		{"a reserved word as the team host", []string{"--team", "until"}},
	}
	for _, c := range cases {
		t.Run(c.name+" is a usage error and writes nothing", func(t *testing.T) {
			dir := t.TempDir()
			out, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=alice"}, "", append([]string{"lock"}, c.args...)...)
			assert.Equal(t, 2, code, errOut)
			assert.Empty(t, out)
			assert.NotEmpty(t, errOut)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, entries)
		})
	}
}

func TestContractLockRespectsAndRenews(t *testing.T) {
	t.Run("another owner's live lock refuses with 1 and creates nothing", func(t *testing.T) {
		dir := t.TempDir()
		held := ctWrite(t, dir, "LOCK.txt", "owner: alice\n"+ctLive)
		out, errOut, code := ctRun(t, ctMkdir(t, dir, "sub"), []string{"GUARD_OWNER=bob"}, "", "lock")
		assert.Equal(t, 1, code)
		assert.Empty(t, out)
		assert.Contains(t, errOut, held)
		assert.NoFileExists(t, filepath.Join(dir, "sub", "LOCK.txt"))
	})
	t.Run("another host's team lock refuses", func(t *testing.T) {
		dir := t.TempDir()
		held := ctWrite(t, dir, "LOCK.team.h1.txt", "owner: alice\n"+ctLive)
		_, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=bob", "GUARD_HOST=h2"}, "", "lock", "--team", "h2")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, held)
		assert.NoFileExists(t, filepath.Join(dir, "LOCK.team.h2.txt"))
	})
	t.Run("a team lock of another host does not refuse its own owner, as check lets her edit there", func(t *testing.T) {
		// CONTRACT section 2: "A lock does not stop its own owner"; the lead decided that
		// this exemption wins over "stops every other host" in lock as in check.
		dir := t.TempDir()
		ctWrite(t, dir, "LOCK.team.h1.txt", "owner: alice\n"+ctLive)
		_, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=alice", "GUARD_HOST=h2"}, "", "check", filepath.Join(dir, "f"))
		assert.Equal(t, 0, code, errOut)
		_, errOut, code = ctRun(t, dir, []string{"GUARD_OWNER=alice", "GUARD_HOST=h2"}, "", "lock", "--team", "h2")
		assert.Equal(t, 0, code, errOut)
		assert.FileExists(t, filepath.Join(dir, "LOCK.team.h2.txt"))
	})
	t.Run("an expired lock of another owner does not refuse", func(t *testing.T) {
		dir := t.TempDir()
		ctWrite(t, dir, "LOCK.txt", "owner: alice\n"+ctDead)
		_, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "lock", "--scope", "web")
		assert.Equal(t, 0, code, errOut)
	})
	t.Run("an existing file of another owner is replaced only with --force", func(t *testing.T) {
		dir := t.TempDir()
		p := ctWrite(t, dir, "LOCK.txt", "owner: alice\n"+ctLive+"fence: 5\n")
		_, _, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "lock")
		assert.Equal(t, 1, code)
		assert.Equal(t, "alice", ctBodyValue(t, p, "owner"))
		_, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "lock", "--force")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, "bob", ctBodyValue(t, p, "owner"))
	})
	t.Run("the same owner locking again renews: created moves to now", func(t *testing.T) {
		dir := t.TempDir()
		old := time.Now().UTC().Add(-2 * time.Hour).Format("2006-01-02T15:04:05")
		p := ctWrite(t, dir, "LOCK.txt", "owner: alice\ncreated: "+old+"\nhost: box1\nexpires_after: 24h\nmode: hard\nscope: project\n")
		out, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=alice"}, "", "lock")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, p+"\n", out)
		now, err := time.ParseInLocation("2006-01-02T15:04:05", ctBodyValue(t, p, "created"), time.UTC)
		require.NoError(t, err)
		assert.WithinDuration(t, time.Now(), now, time.Minute)
	})
}

func TestContractLockFenceRisesOnEveryTakeover(t *testing.T) {
	dir := t.TempDir()
	p := ctWrite(t, dir, "LOCK.txt", "owner: alice\n"+ctLive+"fence: 9999999999999999\n")
	_, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "lock", "--force")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "10000000000000000", ctBodyValue(t, p, "fence"), "previous fence + 1 when it is above the clock")

	dir = t.TempDir()
	before := time.Now().UnixMicro()
	_, _, code = ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "lock")
	require.Equal(t, 0, code)
	fence, err := strconv.ParseInt(ctBodyValue(t, filepath.Join(dir, "LOCK.txt"), "fence"), 10, 64)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, fence, before, "now in Unix microseconds")
	assert.LessOrEqual(t, fence, time.Now().UnixMicro())
}

func TestContractLockContest(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a two-second quarantine")
	}
	// contest starts a contested team claim with a two-second quarantine and,
	// as soon as the claim exists, lets rival() write a rival claim of another host.
	contest := func(t *testing.T, rival func(dir, created string)) (string, string, int) {
		dir := t.TempDir()
		cmd := exec.Command(guardBin, "lock", "--team", "hb", "--contested", "--quarantine", "2")
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + testenv.Path(), "HOME=" + dir, "TZ=UTC", "GUARD_OWNER=a", "GUARD_HOST=hb"}
		var errb strings.Builder
		cmd.Stderr = &errb
		require.NoError(t, cmd.Start())
		own := filepath.Join(dir, "LOCK.team.hb.txt")
		deadline := time.Now().Add(5 * time.Second)
		for {
			if b, err := os.ReadFile(own); err == nil && strings.Contains(string(b), "scope:") {
				break
			}
			require.True(t, time.Now().Before(deadline), "the claim never appeared")
			time.Sleep(10 * time.Millisecond)
		}
		rival(dir, ctBodyValue(t, own, "created"))
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return own, errb.String(), code
	}
	t.Run("an earlier rival wins: the claim removes its own lock and exits 3", func(t *testing.T) {
		t.Parallel()
		own, errOut, code := contest(t, func(dir, _ string) {
			ctWrite(t, dir, "LOCK.team.ha.txt", "owner: r\ncreated: 2000-01-01T00:00:00\nexpires_after: 999999d\n")
		})
		assert.Equal(t, 3, code, errOut)
		assert.NoFileExists(t, own)
	})
	t.Run("a later rival loses: the claim stays and exits 0", func(t *testing.T) {
		t.Parallel()
		own, errOut, code := contest(t, func(dir, _ string) {
			ctWrite(t, dir, "LOCK.team.hc.txt", "owner: r\n"+ctLive)
		})
		assert.Equal(t, 0, code, errOut)
		assert.FileExists(t, own)
	})
	t.Run("a claim that expires while it waits loses", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		_, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=a", "GUARD_HOST=hb"}, "", "lock", "--team", "hb", "--contested", "--quarantine", "2", "--expires", "1s")
		assert.Equal(t, 3, code, errOut)
		assert.NoFileExists(t, filepath.Join(dir, "LOCK.team.hb.txt"))
	})
	t.Run("a tie goes to the smaller host", func(t *testing.T) {
		t.Parallel()
		own, errOut, code := contest(t, func(dir, created string) {
			ctWrite(t, dir, "LOCK.team.ha.txt", "owner: r\ncreated: "+created+"\n")
		})
		assert.Equal(t, 3, code, errOut)
		assert.NoFileExists(t, own)
	})
	t.Run("a tie against a larger host is won", func(t *testing.T) {
		t.Parallel()
		own, errOut, code := contest(t, func(dir, created string) {
			ctWrite(t, dir, "LOCK.team.hz.txt", "owner: r\ncreated: "+created+"\n")
		})
		assert.Equal(t, 0, code, errOut)
		assert.FileExists(t, own)
	})
}

func TestContractUnlock(t *testing.T) {
	cases := []struct {
		name    string
		file    string
		body    string
		owner   string
		args    []string
		code    int
		removed bool
	}{
		{"the owner removes its lock", "LOCK.txt", "owner: alice\n" + ctLive, "alice", nil, 0, true},
		{"someone else's lock is refused", "LOCK.txt", "owner: alice\n" + ctLive, "bob", nil, 1, false},
		{"someone else's lock goes with --force", "LOCK.txt", "owner: alice\n" + ctLive, "bob", []string{"--force"}, 0, true},
		{"a lock file can be named directly", "LOCK.web.txt", "owner: alice\n" + ctLive, "alice", []string{"LOCK.web.txt"}, 0, true},
		{"naming flags find a scoped lock", "LOCK.web.txt", "owner: alice\n" + ctLive, "alice", []string{"--scope", "web"}, 0, true},
		{"naming flags find a team lock", "LOCK.team.h1.txt", "owner: alice\n" + ctLive, "alice", []string{"--team", "h1"}, 0, true},
		{"a user lock is kept without a terminal, even with --force", "LOCK.user.txt", "owner: alice\n" + ctLive, "alice", []string{"--user", "--force"}, 1, false},
		{"a content-aware user lock is kept without a terminal", "LOCK.txt", "owner: alice\nremovable_by: user\n" + ctLive, "alice", []string{"--force"}, 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := ctWrite(t, dir, c.file, c.body)
			out, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=" + c.owner}, "", append([]string{"unlock"}, c.args...)...)
			assert.Equal(t, c.code, code, errOut)
			if c.removed {
				assert.NoFileExists(t, p)
				assert.Contains(t, out, p)
			} else {
				assert.FileExists(t, p)
				assert.Empty(t, out)
				assert.Contains(t, errOut, p)
			}
		})
	}
	t.Run("a person at a terminal removes a user lock with --force", func(t *testing.T) {
		script, err := exec.LookPath("script")
		if err != nil {
			t.Skip("no script(1) to give guard a terminal")
		}
		dir := t.TempDir()
		p := ctWrite(t, dir, "LOCK.user.txt", "owner: alice\n"+ctLive)
		atTerminal := func(args string) (string, error) {
			cmd := exec.Command(script, "-qec", guardBin+" "+args, "/dev/null")
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + testenv.Path(), "HOME=" + dir, "GUARD_OWNER=alice"}
			out, err := cmd.CombinedOutput()
			return string(out), err
		}
		out, err := atTerminal("unlock --user")
		require.Error(t, err, "without --force a user lock stays, even at a terminal: %s", out)
		assert.FileExists(t, p)
		out, err = atTerminal("unlock --user --force")
		require.NoError(t, err, out)
		assert.NoFileExists(t, p)
	})
}

func TestContractRenew(t *testing.T) {
	old := time.Now().UTC().Add(-2 * time.Hour).Format("2006-01-02T15:04:05")
	cases := []struct {
		name, file, body, owner string
		args                    []string
		code                    int
	}{
		{"the owner's live lock is renewed", "LOCK.txt", "owner: alice\ncreated: " + old + "\n", "alice", nil, 0},
		{"a lock file can be named", "LOCK.web.txt", "owner: alice\ncreated: " + old + "\n", "alice", []string{"LOCK.web.txt"}, 0},
		{"naming flags find the lock", "LOCK.web.txt", "owner: alice\ncreated: " + old + "\n", "alice", []string{"--scope", "web"}, 0},
		{"someone else's lock is refused", "LOCK.txt", "owner: alice\ncreated: " + old + "\n", "bob", nil, 1},
		{"an expired lock is refused", "LOCK.txt", "owner: alice\n" + ctDead, "alice", nil, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := ctWrite(t, dir, c.file, c.body+"purpose: keep me\n")
			before := ctRead(t, p)
			_, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=" + c.owner}, "", append([]string{"renew"}, c.args...)...)
			assert.Equal(t, c.code, code, errOut)
			if c.code != 0 {
				assert.Equal(t, before, ctRead(t, p), "nothing written")
				return
			}
			created, err := time.ParseInLocation("2006-01-02T15:04:05", ctBodyValue(t, p, "created"), time.UTC)
			require.NoError(t, err)
			assert.WithinDuration(t, time.Now(), created, time.Minute)
			assert.Equal(t, "keep me", ctBodyValue(t, p, "purpose"))
		})
	}
	t.Run("renewing a team lock keeps its sections and claims", func(t *testing.T) {
		dir := t.TempDir()
		env := []string{"GUARD_OWNER=alice", "GUARD_HOST=h1"}
		_, errOut, code := ctRun(t, dir, env, "", "lock", "--team", "h1", "--no-contest")
		require.Equal(t, 0, code, errOut)
		_, errOut, code = ctRun(t, dir, env, "", "team", "claim", "--agent", "a1", "--resource", "src")
		require.Equal(t, 0, code, errOut)
		p := filepath.Join(dir, "LOCK.team.h1.txt")
		before := ctRead(t, p)
		_, errOut, code = ctRun(t, dir, env, "", "renew", "--team", "h1")
		require.Equal(t, 0, code, errOut)
		after := ctRead(t, p)
		assert.Contains(t, after, "[a1] EDITING  order=000001 | src\n")
		_, beforeSections, _ := strings.Cut(before, "\n\n")
		_, afterSections, _ := strings.Cut(after, "\n\n")
		assert.Equal(t, beforeSections, afterSections)
	})
	t.Run("--expires sets a new duration", func(t *testing.T) {
		dir := t.TempDir()
		p := ctWrite(t, dir, "LOCK.txt", "owner: alice\ncreated: "+old+"\nexpires_after: 3h\n")
		_, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=alice"}, "", "renew", "--expires", "5h")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, "5h", ctBodyValue(t, p, "expires_after"))
	})
}

func TestContractPrune(t *testing.T) {
	root := t.TempDir()
	expired := ctWrite(t, root, "a/LOCK.txt", "owner: x\n"+ctDead)
	expiredTeam := ctWrite(t, root, "b/LOCK.team.s.h2.txt", "owner: x\n"+ctDead)
	kept := []string{
		ctWrite(t, root, "c/LOCK.txt", "owner: x\n"+ctLive),
		ctWrite(t, root, "d/LOCK.user.txt", "owner: x\n"+ctDead),
		ctWrite(t, root, "e/LOCK.condition.txt", "owner: x\n"+ctDead),
		ctWrite(t, root, "f/TEST.txt", "owner: x\n"+ctDead),
		ctWrite(t, root, "g/LOCK.until.txt", "owner: x\n"+ctDead+"not_before: 2000-01-01\n"),
		ctWrite(t, root, "h/LOCK.frontend.user.txt", "owner: x\n"+ctDead),
		ctWrite(t, root, "i/LOCK.permissions.txt", "{}\n"),
		ctWrite(t, root, "j/LOCK.txt", "owner: x\nremovable_by: user\n"+ctDead),
	}
	out, errOut, code := ctRun(t, root, nil, "", "prune", "--dry-run")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "would remove "+expired+"\nwould remove "+expiredTeam+"\n", out)
	assert.FileExists(t, expired)

	out, errOut, code = ctRun(t, root, nil, "", "prune", "--dry-run", "--json")
	require.Equal(t, 0, code, errOut)
	ctObject(t, out)

	out, errOut, code = ctRun(t, t.TempDir(), nil, "", "prune", root)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "removed "+expired+"\nremoved "+expiredTeam+"\n", out)
	assert.NoFileExists(t, expired)
	assert.NoFileExists(t, expiredTeam)
	for _, p := range kept {
		assert.FileExists(t, p)
	}
	out, _, code = ctRun(t, root, nil, "", "prune")
	assert.Equal(t, 0, code)
	assert.Empty(t, out)
}

func TestContractLockdown(t *testing.T) {
	base := t.TempDir()
	state := t.TempDir()
	r1, r2, r3, r4 := ctMkdir(t, base, "r1"), ctMkdir(t, base, "r2"), ctMkdir(t, base, "r3"), ctMkdir(t, base, "r4")
	active := ctWrite(t, r2, "LOCK.txt", "owner: x\n"+ctLive)
	protected := ctWrite(t, r3, "LOCK.user.txt", "owner: x\n"+ctDead)
	env := []string{"XDG_STATE_HOME=" + state}
	manifest := filepath.Join(state, "guard", "lockdown.json")

	out, errOut, code := ctRun(t, base, env, "", "lockdown", r1, r2, r3, r4, "--reason", "incident")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, filepath.Join(r1, "LOCK.txt"))
	assert.NoFileExists(t, filepath.Join(r1, "LOCK.txt"), "a dry run without --commit")
	assert.NoFileExists(t, manifest)

	_, errOut, code = ctRun(t, base, env, "", "lockdown", r1, r2, r3, r4, "--reason", "incident", "--owner", "ops", "--commit")
	require.Equal(t, 0, code, errOut)
	for _, r := range []string{r1, r4} {
		p := filepath.Join(r, "LOCK.txt")
		require.FileExists(t, p)
		assert.Equal(t, "bulk", ctBodyValue(t, p, "created_by"))
		assert.Equal(t, []string{"owner", "created", "host", "fence", "created_by", "expires_after", "mode", "purpose", "scope"},
			ctBodyKeys(t, p), "the reference's bulk body, fence after host")
		assert.True(t, strings.HasPrefix(ctRead(t, p), "#"), "a comment line first")
		assert.Equal(t, "24h", ctBodyValue(t, p, "expires_after"))
		assert.Equal(t, "project", ctBodyValue(t, p, "scope"))
		assert.Equal(t, "ops", ctBodyValue(t, p, "owner"))
		assert.Equal(t, "incident", ctBodyValue(t, p, "purpose"))
	}
	assert.Equal(t, "owner: x\n"+ctLive, ctRead(t, active), "a root with an active lock is skipped")
	assert.NoFileExists(t, filepath.Join(r3, "LOCK.txt"), "a root with a protected lock is skipped")
	m := ctObject(t, ctRead(t, manifest))
	assert.ElementsMatch(t, []any{filepath.Join(r1, "LOCK.txt"), filepath.Join(r4, "LOCK.txt")}, m["locks"])

	// A bulk lock someone replaced by a hand-written one is kept by the undo.
	handmade := ctWrite(t, r4, "LOCK.txt", "owner: ops\n"+ctLive)
	_, errOut, code = ctRun(t, base, env, "", "lockdown", "--undo")
	require.Equal(t, 0, code, errOut)
	assert.FileExists(t, filepath.Join(r1, "LOCK.txt"), "--undo without --commit is a dry run")

	_, errOut, code = ctRun(t, base, env, "", "lockdown", "--undo", "--commit")
	require.Equal(t, 0, code, errOut)
	assert.NoFileExists(t, filepath.Join(r1, "LOCK.txt"))
	assert.FileExists(t, handmade, "only created_by: bulk is undone")
	assert.FileExists(t, active)
	assert.FileExists(t, protected)

	t.Run("the manifest defaults to ~/.local/state/guard/lockdown.json", func(t *testing.T) {
		home := t.TempDir()
		r := ctMkdir(t, t.TempDir(), "root")
		cmd := exec.Command(guardBin, "lockdown", r, "--commit")
		cmd.Env = []string{"PATH=" + testenv.Path(), "HOME=" + home}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		assert.FileExists(t, filepath.Join(home, ".local", "state", "guard", "lockdown.json"))
	})
}
