package main

// CONTRACT.md section 4: guard hook, guard install/uninstall and guard ci, with real git.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

// ctGitEnv runs guardtest's git in dir on host box1 with extra environment
// (GUARD_OWNER for the hooks) and returns its combined output and exit code.
func ctGitEnv(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	return guardtest.GitCode(t, dir, append([]string{"GUARD_HOST=box1"}, env...), args...)
}

func TestContractPreCommitChecksEveryStagedPath(t *testing.T) {
	cases := []struct {
		name  string
		stage func(t *testing.T, repo string)
		code  int
	}{
		{"a modified file in a locked folder is refused", func(t *testing.T, repo string) {
			ctWrite(t, repo, "src/a.go", "changed\n")
			guardtest.Git(t, repo, "add", "src/a.go")
		}, 1},
		{"an added file in a locked folder is refused", func(t *testing.T, repo string) {
			ctWrite(t, repo, "src/new.go", "new\n")
			guardtest.Git(t, repo, "add", "src/new.go")
		}, 1},
		{"a deleted file in a locked folder is refused", func(t *testing.T, repo string) {
			guardtest.Git(t, repo, "rm", "-q", "src/a.go")
		}, 1},
		{"a rename out of a locked folder is refused", func(t *testing.T, repo string) {
			guardtest.Git(t, repo, "mv", "src/a.go", "docs/a.go")
		}, 1},
		{"a rename into a locked folder is refused", func(t *testing.T, repo string) {
			guardtest.Git(t, repo, "mv", "docs/d.md", "src/d.md")
		}, 1},
		{"a change outside the lock is allowed", func(t *testing.T, repo string) {
			ctWrite(t, repo, "docs/d.md", "changed\n")
			guardtest.Git(t, repo, "add", "docs/d.md")
		}, 0},
		{"staging PRIVATE.txt is refused", func(t *testing.T, repo string) {
			ctWrite(t, repo, "PRIVATE.txt", "")
			guardtest.Git(t, repo, "add", "-f", "PRIVATE.txt")
		}, 1},
		{"staging PUBLIC.txt is refused", func(t *testing.T, repo string) {
			ctWrite(t, repo, "docs/PUBLIC.txt", "check: true\n")
			guardtest.Git(t, repo, "add", "-f", "docs/PUBLIC.txt")
		}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			repo := ctRepo(t, map[string]string{"src/a.go": "package a // long enough to be seen as a rename\n", "docs/d.md": "# docs, long enough to be seen as a rename\n"})
			lock := ctWrite(t, repo, "src/LOCK.txt", "owner: alice\n"+ctLive)
			c.stage(t, repo)
			out, errOut, code := ctRun(t, repo, []string{"GUARD_OWNER=bob"}, "", "hook", "pre-commit")
			assert.Equal(t, c.code, code, errOut)
			assert.Empty(t, out)
			if c.code == 1 && !strings.Contains(c.name, ".txt is refused") {
				assert.Contains(t, errOut, lock)
			}
			_, _, code = ctRun(t, repo, []string{"GUARD_OWNER=alice"}, "", "hook", "pre-commit")
			if strings.Contains(c.name, ".txt is refused") {
				assert.Equal(t, 1, code, "markers are refused whoever commits")
			} else {
				assert.Equal(t, 0, code, "the owner commits freely")
			}
		})
	}
	t.Run("the first commit of a repository is checked too", func(t *testing.T) {
		repo := t.TempDir()
		guardtest.Git(t, repo, "init", "-q", "-b", "main")
		ctWrite(t, repo, "src/a.go", "a\n")
		guardtest.Git(t, repo, "add", "src/a.go")
		lock := ctWrite(t, repo, "src/LOCK.txt", "owner: alice\n"+ctLive)
		_, errOut, code := ctRun(t, repo, []string{"GUARD_OWNER=bob"}, "", "hook", "pre-commit")
		assert.Equal(t, 1, code)
		assert.Contains(t, errOut, lock)
	})
	t.Run("a soft lock warns on stderr and lets the commit through", func(t *testing.T) {
		repo := ctRepo(t, map[string]string{"src/a.go": "a\n"})
		lock := ctWrite(t, repo, "src/LOCK.txt", "owner: alice\nmode: soft\n"+ctLive)
		ctWrite(t, repo, "src/a.go", "b\n")
		guardtest.Git(t, repo, "add", "src/a.go")
		out, errOut, code := ctRun(t, repo, []string{"GUARD_OWNER=bob"}, "", "hook", "pre-commit")
		assert.Equal(t, 0, code, errOut)
		assert.Empty(t, out)
		assert.Contains(t, errOut, lock)
	})
	t.Run("removing a committed PRIVATE.txt from the index is allowed", func(t *testing.T) {
		repo := ctRepo(t, map[string]string{"PRIVATE.txt": "committed by mistake\n"})
		guardtest.Git(t, repo, "rm", "-q", "--cached", "PRIVATE.txt")
		_, errOut, code := ctRun(t, repo, nil, "", "hook", "pre-commit")
		assert.Equal(t, 0, code, errOut)
	})
	t.Run("outside a repository the hook fails closed with 2", func(t *testing.T) {
		_, _, code := ctRun(t, t.TempDir(), nil, "", "hook", "pre-commit")
		assert.Equal(t, 2, code)
	})
}

func TestContractInstallUninstall(t *testing.T) {
	t.Run("install keeps and still runs an existing hook, and uninstall restores it", func(t *testing.T) {
		repo := ctRepo(t, map[string]string{"src/a.go": "a\n"})
		old := "#!/bin/sh\necho old-hook-ran\nexit 0\n"
		hook := filepath.Join(repo, ".git", "hooks", "pre-commit")
		require.NoError(t, os.WriteFile(hook, []byte(old), 0o755))

		out, errOut, code := ctRun(t, repo, nil, "", "install")
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, hook)
		assert.FileExists(t, filepath.Join(repo, ".git", "hooks", "pre-push"))
		exclude := ctRead(t, filepath.Join(repo, ".git", "info", "exclude"))
		assert.Contains(t, exclude, "PRIVATE.txt\n")
		assert.Contains(t, exclude, "PUBLIC.txt\n")
		installed := ctRead(t, hook)

		_, errOut, code = ctRun(t, repo, nil, "", "install")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, installed, ctRead(t, hook), "idempotent")
		assert.Equal(t, exclude, ctRead(t, filepath.Join(repo, ".git", "info", "exclude")), "idempotent")

		ctWrite(t, repo, "src/LOCK.txt", "owner: alice\n"+ctLive)
		ctWrite(t, repo, "src/a.go", "b\n")
		guardtest.Git(t, repo, "add", "src/a.go")
		gout, code := ctGitEnv(t, repo, []string{"GUARD_OWNER=bob"}, "commit", "-q", "-m", "x")
		assert.NotEqual(t, 0, code, "the lock refuses the commit: %s", gout)
		assert.NotContains(t, gout, "old-hook-ran", "guard runs first and refuses")
		gout, code = ctGitEnv(t, repo, []string{"GUARD_OWNER=alice"}, "commit", "-q", "-m", "x")
		assert.Equal(t, 0, code, gout)
		assert.Contains(t, gout, "old-hook-ran", "the kept hook still runs")

		_, errOut, code = ctRun(t, repo, nil, "", "uninstall")
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, old, ctRead(t, hook))
		if fi, err := os.Stat(hook); assert.NoError(t, err) {
			assert.NotZero(t, fi.Mode()&0o100, "the restored hook is still executable")
		}
		assert.NoFileExists(t, filepath.Join(repo, ".git", "hooks", "pre-push"))
		_, errOut, code = ctRun(t, repo, nil, "", "uninstall")
		assert.Equal(t, 0, code, "idempotent: %s", errOut)
	})
	t.Run("a kept pre-push hook still gets git's ref lines, and the markers are ignored", func(t *testing.T) {
		base := t.TempDir()
		remote := filepath.Join(base, "remote.git")
		guardtest.Git(t, base, "init", "-q", "--bare", "-b", "main", remote)
		repo := ctRepo(t, map[string]string{"a.txt": "a\n"})
		guardtest.Git(t, repo, "remote", "add", "origin", remote)
		seen := filepath.Join(base, "seen")
		hook := filepath.Join(repo, ".git", "hooks", "pre-push")
		require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ncat > "+seen+"\n"), 0o755))
		_, errOut, code := ctRun(t, repo, nil, "", "install")
		require.Equal(t, 0, code, errOut)
		out, code := ctGitEnv(t, repo, nil, "push", "-q", "origin", "main")
		require.Equal(t, 0, code, out)
		assert.Regexp(t, `^refs/heads/main [0-9a-f]{40} refs/heads/main 0{40}\n$`, ctRead(t, seen))

		ctWrite(t, repo, "PRIVATE.txt", "")
		ctWrite(t, repo, "sub/PUBLIC.txt", "")
		assert.Empty(t, guardtest.Git(t, repo, "status", "--porcelain"), "PRIVATE.txt and PUBLIC.txt are ignored")
	})
	t.Run("core.hooksPath is where the hooks go, and --hooks picks them", func(t *testing.T) {
		repo := ctRepo(t, nil)
		guardtest.Git(t, repo, "config", "core.hooksPath", "myhooks")
		_, errOut, code := ctRun(t, t.TempDir(), nil, "", "install", "--repo", repo, "--hooks", "pre-commit")
		require.Equal(t, 0, code, errOut)
		assert.FileExists(t, filepath.Join(repo, "myhooks", "pre-commit"))
		assert.NoFileExists(t, filepath.Join(repo, "myhooks", "pre-push"))
		assert.NoFileExists(t, filepath.Join(repo, ".git", "hooks", "pre-commit"))
	})
	t.Run("a linked worktree installs into the hooks git uses", func(t *testing.T) {
		repo := ctRepo(t, nil)
		wt := filepath.Join(t.TempDir(), "wt")
		guardtest.Git(t, repo, "worktree", "add", "-q", wt)
		_, errOut, code := ctRun(t, wt, nil, "", "install")
		require.Equal(t, 0, code, errOut)
		assert.FileExists(t, filepath.Join(repo, ".git", "hooks", "pre-commit"))
	})
	t.Run("an unknown hook name is a usage error", func(t *testing.T) {
		repo := ctRepo(t, nil)
		_, _, code := ctRun(t, repo, nil, "", "install", "--hooks", "pre-commit,post-merge")
		assert.Equal(t, 2, code)
	})
	t.Run("outside a repository install is an error", func(t *testing.T) {
		_, _, code := ctRun(t, t.TempDir(), nil, "", "install")
		assert.Equal(t, 2, code)
	})
}

func TestContractPrePushChecksWhatThePushPublishes(t *testing.T) {
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	guardtest.Git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	repo := ctRepo(t, map[string]string{"src/a.go": "a\n", "docs/d.md": "d\n"})
	guardtest.Git(t, repo, "remote", "add", "origin", remote)
	guardtest.Git(t, repo, "push", "-q", "origin", "main")
	_, errOut, code := ctRun(t, repo, nil, "", "install")
	require.Equal(t, 0, code, errOut)
	lock := ctWrite(t, repo, "src/LOCK.txt", "owner: alice\n"+ctLive)
	bob := []string{"GUARD_OWNER=bob"}

	ctWrite(t, repo, "docs/d.md", "d2\n")
	guardtest.Git(t, repo, "commit", "-q", "-am", "docs")
	out, code := ctGitEnv(t, repo, bob, "push", "-q", "origin", "main")
	assert.Equal(t, 0, code, "a push of paths outside the lock goes through: %s", out)

	ctWrite(t, repo, "src/a.go", "a2\n")
	guardtest.Git(t, repo, "commit", "-q", "--no-verify", "-am", "src")
	out, code = ctGitEnv(t, repo, bob, "push", "-q", "origin", "main")
	assert.NotEqual(t, 0, code, "a commit into the locked folder is refused on push")
	assert.Contains(t, out, lock)
	out, code = ctGitEnv(t, repo, bob, "push", "-q", "origin", "main:refs/heads/other")
	assert.NotEqual(t, 0, code, "a new branch is compared with what the remote has: %s", out)
	out, code = ctGitEnv(t, repo, []string{"GUARD_OWNER=alice"}, "push", "-q", "origin", "main")
	assert.Equal(t, 0, code, "the owner pushes: %s", out)

	guardtest.Git(t, repo, "branch", "old", "HEAD~1")
	out, code = ctGitEnv(t, repo, bob, "push", "-q", "origin", "old")
	assert.Equal(t, 0, code, "a new branch of commits the remote has changes no path: %s", out)
	out, code = ctGitEnv(t, repo, bob, "push", "-q", "origin", ":old")
	assert.Equal(t, 0, code, "a deletion changes no path: %s", out)

	guardtest.Git(t, repo, "tag", "v1")
	out, code = ctGitEnv(t, repo, bob, "push", "-q", "origin", "v1")
	assert.Equal(t, 0, code, "a tag of published commits with no release-tag lock: %s", out)
	rel := ctWrite(t, repo, "LOCK.rel.txt", "owner: alice\noperations: release-tag\n"+ctLive)
	guardtest.Git(t, repo, "tag", "v2")
	out, code = ctGitEnv(t, repo, bob, "push", "-q", "origin", "v2")
	assert.NotEqual(t, 0, code, "a tag push is a release-tag at the repository root")
	assert.Contains(t, out, rel)
	out, code = ctGitEnv(t, repo, bob, "push", "-q", "origin", "main")
	assert.Equal(t, 0, code, "a release-tag lock lets branch pushes through: %s", out)

	t.Run("the hook reads git's ref lines from stdin", func(t *testing.T) {
		head := guardtest.Git(t, repo, "rev-parse", "HEAD")
		parent := guardtest.Git(t, repo, "rev-parse", "HEAD~2")
		zero := strings.Repeat("0", 40)
		_, errOut, code := ctRun(t, repo, bob, "refs/heads/x "+head+" refs/heads/x "+parent+"\n", "hook", "pre-push", "origin", remote)
		assert.Equal(t, 1, code, errOut)
		assert.Contains(t, errOut, lock)
		_, errOut, code = ctRun(t, repo, bob, "(delete) "+zero+" refs/heads/x "+head+"\n", "hook", "pre-push", "origin", remote)
		assert.Equal(t, 0, code, errOut)
	})
}

func TestContractCI(t *testing.T) {
	base := t.TempDir()
	remote := filepath.Join(base, "remote.git")
	guardtest.Git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	repo := ctRepo(t, map[string]string{"src/a.go": "a\n", "docs/d.md": "d\n"})
	guardtest.Git(t, repo, "remote", "add", "origin", remote)
	guardtest.Git(t, repo, "push", "-q", "origin", "main")
	guardtest.Git(t, repo, "remote", "set-head", "origin", "main")
	guardtest.Git(t, repo, "checkout", "-q", "-b", "feat")
	ctWrite(t, repo, "src/a.go", "a2\n")
	guardtest.Git(t, repo, "commit", "-q", "-am", "src")
	lock := ctWrite(t, repo, "src/LOCK.txt", "owner: alice\noperations: push, publish-release\n"+ctLive)
	bob := []string{"GUARD_OWNER=bob"}

	out, errOut, code := ctRun(t, repo, bob, "", "ci", "--format", "json")
	assert.Equal(t, 1, code, errOut)
	obj := ctObject(t, out)
	assert.Equal(t, []any{"src/a.go"}, obj["paths"], "the default base is the merge base with origin/HEAD")
	assert.Equal(t, false, obj["allowed"])

	out, _, code = ctRun(t, repo, bob, "", "ci", "--base", "HEAD", "--format", "json")
	assert.Equal(t, 0, code)
	assert.Equal(t, true, ctObject(t, out)["allowed"])

	out, _, code = ctRun(t, repo, bob, "", "ci", "--format", "github")
	assert.Equal(t, 1, code)
	assert.Regexp(t, `(?m)^::error file=src/a\.go::.*`, out)
	assert.Contains(t, out, "src/LOCK.txt")
	_ = lock

	_, _, code = ctRun(t, repo, bob, "", "ci", "--format", "xml")
	assert.Equal(t, 2, code)

	t.Run("GITHUB_BASE_REF picks the base branch", func(t *testing.T) {
		guardtest.Git(t, repo, "push", "-q", "origin", "feat:refs/heads/release")
		out, errOut, code := ctRun(t, repo, append(bob, "GITHUB_BASE_REF=release"), "", "ci", "--format", "json")
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, []any{}, ctEmptyIfNil(ctObject(t, out)["paths"]))
	})
	t.Run("each extra --op is checked too", func(t *testing.T) {
		dir := ctRepo(t, map[string]string{"src/a.go": "a\n"})
		ctWrite(t, dir, "src/a.go", "b\n")
		guardtest.Git(t, dir, "commit", "-q", "-am", "b")
		ctWrite(t, dir, "src/LOCK.txt", "owner: alice\noperations: publish-release\n"+ctLive)
		_, errOut, code := ctRun(t, dir, bob, "", "ci", "--base", "HEAD~1")
		assert.Equal(t, 0, code, "the lock does not block push: %s", errOut)
		_, _, code = ctRun(t, dir, bob, "", "ci", "--base", "HEAD~1", "--op", "publish-release")
		assert.Equal(t, 1, code)
		var rep map[string]any
		out, _, _ := ctRun(t, dir, bob, "", "ci", "--base", "HEAD~1", "--op", "publish-release", "--format", "json")
		require.NoError(t, json.Unmarshal([]byte(out), &rep))
		assert.Equal(t, false, rep["allowed"])
	})
}

func ctEmptyIfNil(v any) any {
	if v == nil {
		return []any{}
	}
	return v
}

func TestContractDoctorReportsHooksStaleLocksAndConfig(t *testing.T) {
	repo := ctRepo(t, nil)
	out, _, code := ctRun(t, repo, nil, "", "doctor")
	assert.NotEqual(t, 0, code, "hooks missing is a problem")
	assert.Contains(t, out, "pre-commit")
	assert.Contains(t, out, "missing")

	_, errOut, code := ctRun(t, repo, nil, "", "install")
	require.Equal(t, 0, code, errOut)
	_, errOut, code = ctRun(t, repo, nil, "", "doctor")
	assert.Equal(t, 0, code, "installed hooks and nothing stale: %s", errOut)

	stale := ctWrite(t, repo, "LOCK.txt", "owner: x\n"+ctDead)
	out, _, code = ctRun(t, repo, nil, "", "doctor")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, out, stale)
	ctRemove(t, stale)

	ctWrite(t, repo, ".guard.toml", "owner = \n")
	out, _, code = ctRun(t, repo, nil, "", "doctor")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, out, ".guard.toml:1")
}
