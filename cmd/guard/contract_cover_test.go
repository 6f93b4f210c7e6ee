package main

// CONTRACT.md section 2 (what a lock covers, and who it stops), through `guard check`
// and `guard status`.

import (
	"os"
	"os/user"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

func TestContractWhoALockStops(t *testing.T) {
	cases := []struct {
		name  string
		file  string
		body  string
		env   []string
		args  []string
		code  int
		warns bool
	}{
		{"another owner is refused", "src/LOCK.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=bob"}, []string{"src/a.go"}, 1, false},
		{"the owner is not stopped by its own lock", "src/LOCK.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=alice"}, []string{"src/a.go"}, 0, false},
		{"--owner wins over GUARD_OWNER", "src/LOCK.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=bob"}, []string{"--owner", "alice", "src/a.go"}, 0, false},
		{"owners compare exactly", "src/LOCK.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=Alice"}, []string{"src/a.go"}, 1, false},
		{"a path outside the locked folder is free", "src/LOCK.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=bob"}, []string{"docs/a.md"}, 0, false},
		{"a path that does not exist yet is covered", "src/LOCK.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=bob"}, []string{"src/new/deep/file.go"}, 1, false},
		{"the locked folder itself is covered", "src/LOCK.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=bob"}, []string{"src"}, 1, false},
		{"a lock in a directory above covers the subtree", "LOCK.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=bob"}, []string{"src/deep/a.go"}, 1, false},
		{"an expired lock stops nobody", "src/LOCK.txt", "owner: alice\n" + ctDead, []string{"GUARD_OWNER=bob"}, []string{"src/a.go"}, 0, false},
		{"a soft lock only warns", "src/LOCK.txt", "owner: alice\nmode: soft\n" + ctLive, []string{"GUARD_OWNER=bob"}, []string{"src/a.go"}, 0, true},
		{"a lock with operations blocks a listed operation", "src/LOCK.txt", "owner: alice\noperations: push, commit\n" + ctLive, []string{"GUARD_OWNER=bob"}, []string{"--op", "commit", "src/a.go"}, 1, false},
		{"a lock with operations lets other operations through", "src/LOCK.txt", "owner: alice\noperations: push, commit\n" + ctLive, []string{"GUARD_OWNER=bob"}, []string{"src/a.go"}, 0, false},
		{"any word can be an operation", "src/LOCK.txt", "owner: alice\noperations: deploy-prod\n" + ctLive, []string{"GUARD_OWNER=bob"}, []string{"--op", "deploy-prod", "src/a.go"}, 1, false},
		{"a lock without operations blocks every operation", "src/LOCK.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=bob"}, []string{"--op", "anything", "src/a.go"}, 1, false},
		{"a team lock does not stop its own host", "src/LOCK.team.h1.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=bob", "GUARD_HOST=h1"}, []string{"src/a.go"}, 0, false},
		{"a team lock stops every other host", "src/LOCK.team.h1.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=bob", "GUARD_HOST=h2"}, []string{"src/a.go"}, 1, false},
		{"--host wins over GUARD_HOST", "src/LOCK.team.h1.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=bob", "GUARD_HOST=h2"}, []string{"--host", "h1", "src/a.go"}, 0, false},
		{"a community lock is a team lock", "src/LOCK.community.h1.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=bob", "GUARD_HOST=h2"}, []string{"src/a.go"}, 1, false},
		{"a team lock without a host stops every host", "src/LOCK.team.txt", "owner: alice\n" + ctLive, []string{"GUARD_OWNER=bob", "GUARD_HOST=h1"}, []string{"src/a.go"}, 1, false},
		{"a legacy lock stops others", "src/TEST.txt", "owner: alice\n" + ctDead, []string{"GUARD_OWNER=bob"}, []string{"src/a.go"}, 1, false},
		{"a user lock stops others", "src/LOCK.user.txt", "owner: alice\n" + ctDead, []string{"GUARD_OWNER=bob"}, []string{"src/a.go"}, 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ctMkdir(t, dir, "docs")
			ctWrite(t, dir, c.file, c.body)
			out, errOut, code := ctRun(t, dir, c.env, "", append([]string{"check"}, c.args...)...)
			assert.Equal(t, c.code, code, errOut)
			assert.Empty(t, out, "text mode prints nothing on stdout")
			if c.code == 1 {
				lockPath := filepath.Join(dir, filepath.FromSlash(c.file))
				assert.Contains(t, errOut, lockPath, "the refusal names the file")
				assert.Contains(t, errOut, "alice", "the refusal names the owner")
			}
			if c.warns {
				assert.Contains(t, errOut, "soft")
			} else if c.code == 0 {
				assert.Empty(t, errOut)
			}
		})
	}
}

func TestContractIdentityFallsBackToGuardTomlThenUserAtHost(t *testing.T) {
	dir := ctRepo(t, map[string]string{".guard.toml": "owner = \"alice\"\nhost = \"h1\"\n", "src/a.go": "a\n"})
	ctWrite(t, dir, "src/LOCK.txt", "owner: alice\n"+ctLive)
	ctWrite(t, dir, "docs/LOCK.team.h1.txt", "owner: carol\n"+ctLive)
	// ctRun pins GUARD_HOST; an empty value must not count, so run without it.
	_, errOut, code := runGuard(t, dir, nil, "check", "src/a.go", "docs/x")
	assert.Equal(t, 0, code, "owner and host come from .guard.toml: %s", errOut)
	_, _, code = runGuard(t, dir, []string{"GUARD_OWNER=bob"}, "check", "src/a.go")
	assert.Equal(t, 1, code, "GUARD_OWNER wins over .guard.toml")

	plain := t.TempDir()
	host, err := os.Hostname()
	require.NoError(t, err)
	me, err := user.Current()
	if err != nil || me.Username == "" {
		t.Skip("no OS user name to build <user>@<host> from")
	}
	ctWrite(t, plain, "LOCK.txt", "owner: "+me.Username+"@"+host+"\n"+ctLive)
	_, errOut, code = runGuard(t, plain, nil, "check", "x")
	assert.Equal(t, 0, code, "the last fallback is <user>@<host>: %s", errOut)
	ctWrite(t, plain, "LOCK.txt", "owner: "+me.Username+"@elsewhere\n"+ctLive)
	_, _, code = runGuard(t, plain, nil, "check", "x")
	assert.Equal(t, 1, code)
}

func TestContractLocksAboveTheRepositoryAndAcrossWorktrees(t *testing.T) {
	outer := t.TempDir()
	main := filepath.Join(outer, "main")
	ctMkdir(t, outer, "main")
	guardtest.Git(t, main, "init", "-q", "-b", "main")
	ctWrite(t, main, "src/a.go", "a\n")
	guardtest.Git(t, main, "add", "-A")
	guardtest.Git(t, main, "commit", "-q", "-m", "i")
	wt := filepath.Join(outer, "wt")
	guardtest.Git(t, main, "worktree", "add", "-q", wt)
	bob := []string{"GUARD_OWNER=bob"}

	t.Run("a lock above the repository root covers it", func(t *testing.T) {
		p := ctWrite(t, outer, "LOCK.txt", "owner: alice\n"+ctLive)
		defer ctRemove(t, p)
		_, errOut, code := ctRun(t, main, bob, "", "check", "src/a.go")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, p)
		_, _, code = ctRun(t, main, bob, "", "status", "src")
		assert.Equal(t, 1, code)
	})
	t.Run("a lock in the main clone stops a linked worktree", func(t *testing.T) {
		p := ctWrite(t, main, "src/LOCK.txt", "owner: alice\n"+ctLive)
		defer ctRemove(t, p)
		_, errOut, code := ctRun(t, wt, bob, "", "check", "src/a.go")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, p)
	})
	t.Run("a lock in a linked worktree stops the main clone", func(t *testing.T) {
		p := ctWrite(t, wt, "src/LOCK.txt", "owner: alice\n"+ctLive)
		defer ctRemove(t, p)
		_, errOut, code := ctRun(t, main, bob, "", "check", "src/a.go")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, p)
	})
	t.Run("guard lock and guard status in a worktree respect a lock in the main clone", func(t *testing.T) {
		p := ctWrite(t, main, "src/LOCK.txt", "owner: alice\n"+ctLive)
		defer ctRemove(t, p)
		_, errOut, code := ctRun(t, wt, bob, "", "lock", "src")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, p)
		assert.NoFileExists(t, filepath.Join(wt, "src", "LOCK.txt"))
		_, _, code = ctRun(t, wt, bob, "", "status", "src")
		assert.Equal(t, 1, code)
	})
	t.Run("without locks both trees are free", func(t *testing.T) {
		_, _, code := ctRun(t, main, bob, "", "check", "src/a.go")
		assert.Equal(t, 0, code)
		_, _, code = ctRun(t, wt, bob, "", "check", "src/a.go")
		assert.Equal(t, 0, code)
	})
}

func TestContractScopedLocksCoverWhatTheConfigOrFolderSays(t *testing.T) {
	bob := []string{"GUARD_OWNER=bob"}
	t.Run("globs from .guard.toml: * within one segment, ** across segments", func(t *testing.T) {
		dir := ctRepo(t, map[string]string{".guard.toml": "[scopes]\nfront = [\"web/**/*.js\", \"*.css\"]\n"})
		ctWrite(t, dir, "LOCK.front.txt", "owner: alice\n"+ctLive)
		for path, want := range map[string]int{
			"web/app/x.js": 1, "web/a/b/c/x.js": 1, "site.css": 1, "web/site.css": 0, "web/app/x.go": 0, "README": 0,
		} {
			_, errOut, code := ctRun(t, dir, bob, "", "check", path)
			assert.Equal(t, want, code, "%s: %s", path, errOut)
		}
	})
	t.Run("globs are relative to the lock's directory", func(t *testing.T) {
		dir := ctRepo(t, map[string]string{".guard.toml": "[scopes]\nfront = [\"app/*.js\"]\n"})
		ctWrite(t, dir, "web/LOCK.front.txt", "owner: alice\n"+ctLive)
		for path, want := range map[string]int{"web/app/x.js": 1, "app/x.js": 0, "web/app/x.go": 0} {
			_, errOut, code := ctRun(t, dir, bob, "", "check", path)
			assert.Equal(t, want, code, "%s: %s", path, errOut)
		}
	})
	t.Run("without a mapping the folder named by the scope, dots as slashes", func(t *testing.T) {
		dir := t.TempDir()
		ctMkdir(t, dir, "assets/images")
		ctWrite(t, dir, "LOCK.assets.images.txt", "owner: alice\n"+ctLive)
		_, _, code := ctRun(t, dir, bob, "", "check", "assets/images/a.png")
		assert.Equal(t, 1, code)
		_, errOut, code := ctRun(t, dir, bob, "", "check", "assets/other.png", "src/a.go")
		assert.Equal(t, 0, code)
		assert.Empty(t, errOut)
	})
	t.Run("without a mapping or folder all of D, and guard says it fell back", func(t *testing.T) {
		dir := t.TempDir()
		p := ctWrite(t, dir, "LOCK.nope.txt", "owner: alice\n"+ctLive)
		out, errOut, code := ctRun(t, dir, bob, "", "check", "--json", "src/a.go")
		assert.Equal(t, 1, code)
		obj := ctObject(t, out)
		warnings := obj["warnings"].([]any)
		require.Len(t, warnings, 1)
		assert.Contains(t, warnings[0], p)
		assert.Contains(t, warnings[0], "fail closed")
		assert.Contains(t, errOut, "fail closed")
	})
}

func TestContractCheckJSON(t *testing.T) {
	dir := t.TempDir()
	lockPath := ctWrite(t, dir, "src/LOCK.txt", "owner: alice\npurpose: refactor\n"+ctLive)
	out, errOut, code := ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "--op", "commit", "--json", "src/a.go", "docs/b.md")
	require.Equal(t, 1, code, errOut)
	obj := ctObject(t, out)
	assert.Subset(t, ctKeys(obj), []string{"allowed", "blocking", "op", "warnings"})
	assert.Equal(t, "commit", obj["op"])
	assert.Equal(t, false, obj["allowed"])
	assert.Equal(t, []any{}, obj["warnings"])
	blocking := obj["blocking"].([]any)
	require.Len(t, blocking, 1)
	b := blocking[0].(map[string]any)
	assert.Equal(t, []string{"lock", "marker", "path", "reason"}, ctKeys(b))
	assert.Equal(t, filepath.Join(dir, "src", "a.go"), b["path"])
	assert.NotEmpty(t, b["reason"])
	lock := b["lock"].(map[string]any)
	for _, k := range ctLockObjectKeys {
		assert.Contains(t, lock, k)
	}
	assert.Equal(t, lockPath, lock["path"])
	assert.Equal(t, "alice", lock["owner"])

	out, _, code = ctRun(t, dir, []string{"GUARD_OWNER=bob"}, "", "check", "--json", "docs/b.md")
	require.Equal(t, 0, code)
	obj = ctObject(t, out)
	assert.Equal(t, "edit", obj["op"], "edit is the default operation")
	assert.Equal(t, true, obj["allowed"])
	assert.Equal(t, []any{}, obj["blocking"])

	_, _, code = ctRun(t, dir, nil, "", "check")
	assert.Equal(t, 2, code, "check needs a path")
}

func TestContractStatus(t *testing.T) {
	dir := t.TempDir()
	ctMkdir(t, dir, "docs")
	lockPath := ctWrite(t, dir, "src/LOCK.txt", "owner: alice\n"+ctLive)
	ctMkdir(t, dir, "src/deep")

	out, errOut, code := ctRun(t, dir, nil, "", "status", "--json", "src/deep")
	assert.Equal(t, 1, code, errOut)
	obj := ctObject(t, out)
	assert.Equal(t, []string{"dir", "locked", "locks", "ok"}, ctKeys(obj))
	assert.Equal(t, filepath.Join(dir, "src", "deep"), obj["dir"])
	assert.Equal(t, true, obj["locked"])
	locks := obj["locks"].([]any)
	require.Len(t, locks, 1)
	assert.Equal(t, lockPath, locks[0].(map[string]any)["path"])

	out, _, code = ctRun(t, dir, nil, "", "status", "--json", "docs")
	assert.Equal(t, 0, code)
	assert.JSONEq(t, `{"dir":"`+filepath.Join(dir, "docs")+`","locked":false,"ok":true,"locks":[]}`, out)

	out, _, code = ctRun(t, filepath.Join(dir, "src"), nil, "", "status")
	assert.Equal(t, 1, code, "DIR defaults to the working directory")
	assert.Contains(t, out, lockPath)

	_, _, code = ctRun(t, filepath.Join(dir, "docs"), []string{"GUARD_OWNER=alice"}, "", "status", "../src")
	assert.Equal(t, 1, code, "status reports a lock whoever asks")

	ctWrite(t, dir, "old/LOCK.txt", "owner: alice\n"+ctDead)
	_, _, code = ctRun(t, dir, nil, "", "status", "old")
	assert.Equal(t, 0, code, "an expired lock does not lock")
}

// ctRemove deletes a file a subtest placed, so that the next subtest starts clean.
func ctRemove(t *testing.T, p string) {
	t.Helper()
	require.NoError(t, os.Remove(p))
}
