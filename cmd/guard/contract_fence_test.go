package main

// CONTRACT.md section 1, fence: a holder that exported LOCK_FENCE and LOCK_FENCE_FILE is
// refused by check and the hooks once the file no longer grants that fence.

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

func TestContractFenceVariants(t *testing.T) {
	cases := []struct {
		name  string
		body  string // the lock file's body; "" for no file
		fence string // LOCK_FENCE; "-" for unset
		file  string // LOCK_FENCE_FILE relative to the repository; "-" for unset
		code  int
	}{
		{"the current fence is held", "owner: alice\n" + ctLive + "fence: 2000\n", "2000", "LOCK.txt", 0},
		{"the last duplicate fence is the current one", "owner: alice\n" + ctLive + "fence: 1000\nfence: 2000\n", "2000", "LOCK.txt", 0},
		{"a superseded duplicate fence is refused", "owner: alice\n" + ctLive + "fence: 1000\nfence: 2000\n", "1000", "LOCK.txt", 1},
		{"a higher fence in the file means the lease moved on", "owner: alice\n" + ctLive + "fence: 2001\n", "2000", "LOCK.txt", 1},
		{"a lower fence in the file is refused too", "owner: alice\n" + ctLive + "fence: 1999\n", "2000", "LOCK.txt", 1},
		{"a file without a fence is refused", "owner: alice\n" + ctLive, "2000", "LOCK.txt", 1},
		{"a file whose fence is not a number is refused", "owner: alice\n" + ctLive + "fence: broken\n", "2000", "LOCK.txt", 1},
		{"a gone file is refused", "", "2000", "LOCK.txt", 1},
		{"an expired file is refused", "owner: alice\n" + ctDead + "fence: 2000\n", "2000", "LOCK.txt", 1},
		{"LOCK_FENCE without LOCK_FENCE_FILE is refused", "owner: alice\n" + ctLive + "fence: 2000\n", "2000", "-", 1},
		{"a LOCK_FENCE that is not a number is refused", "owner: alice\n" + ctLive + "fence: 2000\n", "x2000", "LOCK.txt", 1},
		{"no LOCK_FENCE at all is the ordinary lock check", "owner: alice\n" + ctLive + "fence: 2000\n", "-", "-", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo := ctRepo(t, map[string]string{"a.txt": "a\n"})
			if c.body != "" {
				ctWrite(t, repo, "LOCK.txt", c.body)
			}
			env := []string{"GUARD_OWNER=alice"}
			if c.fence != "-" {
				env = append(env, "LOCK_FENCE="+c.fence)
			}
			if c.file != "-" {
				env = append(env, "LOCK_FENCE_FILE="+filepath.Join(repo, c.file))
			}
			_, errOut, code := ctRun(t, repo, env, "", "check", "a.txt")
			assert.Equal(t, c.code, code, errOut)

			ctWrite(t, repo, "a.txt", "changed\n")
			guardtest.Git(t, repo, "add", "a.txt")
			_, errOut, code = ctRun(t, repo, env, "", "hook", "pre-commit")
			assert.Equal(t, c.code, code, "the pre-commit hook agrees: %s", errOut)
		})
	}
}

func TestContractLockRespectsEveryKindOfForeignLock(t *testing.T) {
	for _, c := range []struct{ name, file, body string }{
		{"a user lock", "LOCK.user.txt", "owner: alice\n" + ctDead},
		{"a condition lock", "LOCK.condition.txt", "owner: alice\nrelease_condition: ci\n" + ctDead},
		{"a legacy lock", "TEST.txt", "owner: alice\n" + ctDead},
		{"an ambiguous lock of an overlapping scope", "LOCK.docs.user.txt", "owner: alice\n" + ctDead},
		{"a team lock without a host", "LOCK.team.txt", "owner: alice\n" + ctLive},
	} {
		t.Run(c.name+" of another owner refuses guard lock", func(t *testing.T) {
			dir := t.TempDir()
			held := ctWrite(t, dir, c.file, c.body)
			out, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "lock", "--scope", "docs")
			assert.Equal(t, 1, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, held)
			assert.NoFileExists(t, filepath.Join(dir, "LOCK.docs.txt"))
		})
	}
}

func TestContractTakingOverAnExpiredLockRaisesItsFence(t *testing.T) {
	dir := t.TempDir()
	p := ctWrite(t, dir, "LOCK.txt", "owner: alice\n"+ctDead+"fence: 99999999999999999\n")
	out, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "lock")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, p+"\n", out)
	assert.Equal(t, "bob", ctBodyValue(t, p, "owner"))
	assert.Equal(t, "100000000000000000", ctBodyValue(t, p, "fence"))
}

// ctRace starts n guard lock processes at once; args(i) gives the i-th one's
// arguments and owner. It returns how many exited 0.
func ctRace(t *testing.T, dir string, n int, args func(i int) (owner string, a []string)) int {
	t.Helper()
	cmds := make([]*exec.Cmd, n)
	for i := range cmds {
		owner, a := args(i)
		cmds[i] = exec.Command(guardBin, append([]string{"lock", "--no-contest"}, a...)...)
		cmds[i].Dir = dir
		cmds[i].Env = []string{"PATH=" + testenv.Path(), "HOME=" + dir, "GUARD_OWNER=" + owner, "GUARD_HOST=box1"}
	}
	for _, c := range cmds {
		require.NoError(t, c.Start())
	}
	won := 0
	for _, c := range cmds {
		if c.Wait() == nil {
			won++
		}
	}
	return won
}

func TestContractRacingCreatorsOfOneLockCannotBothSucceed(t *testing.T) {
	for round := 0; round < 3; round++ {
		dir := t.TempDir()
		won := ctRace(t, dir, 8, func(i int) (string, []string) { return fmt.Sprintf("o%d", i), nil })
		assert.Equal(t, 1, won)
		owner := ctBodyValue(t, filepath.Join(dir, "LOCK.txt"), "owner")
		assert.Regexp(t, `^o\d$`, owner)
		assert.Contains(t, ctRead(t, filepath.Join(dir, "LOCK.txt")), "scope: project\n", "never half-written")
	}
}

func TestContractRacingCreatorsOfOverlappingLocks(t *testing.T) {
	for round := 0; round < 3; round++ {
		dir := t.TempDir()
		ctMkdir(t, dir, "web")
		won := ctRace(t, dir, 8, func(i int) (string, []string) {
			if i%2 == 0 {
				return fmt.Sprintf("o%d", i), []string{"--scope", "web"}
			}
			return fmt.Sprintf("o%d", i), nil
		})
		assert.Equal(t, 1, won)
	}
}

func TestContractFenceRefusesASupersededHolderAtPrePush(t *testing.T) {
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	guardtest.Git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	repo := ctRepo(t, map[string]string{"a.txt": "a\n"})
	guardtest.Git(t, repo, "remote", "add", "origin", remote)
	guardtest.Git(t, repo, "push", "-q", "origin", "main")
	ctWrite(t, repo, "a.txt", "b\n")
	guardtest.Git(t, repo, "commit", "-q", "-am", "b")
	head, parent := guardtest.Git(t, repo, "rev-parse", "HEAD"), guardtest.Git(t, repo, "rev-parse", "HEAD~1")
	lock := ctWrite(t, repo, "LOCK.txt", "owner: alice\n"+ctLive+"fence: 2000\n")
	for _, c := range []struct {
		fence string
		code  int
	}{{"2000", 0}, {"1999", 1}} {
		env := []string{"GUARD_OWNER=alice", "LOCK_FENCE=" + c.fence, "LOCK_FENCE_FILE=" + lock}
		_, errOut, code := ctRun(t, repo, env, "refs/heads/main "+head+" refs/heads/main "+parent+"\n", "hook", "pre-push", "origin", remote)
		assert.Equal(t, c.code, code, "fence %s: %s", c.fence, errOut)
	}
}
