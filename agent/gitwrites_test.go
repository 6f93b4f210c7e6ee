package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

// gitLockedRepo makes a real repository with alice's lock on locked/ and a commit of
// locked/a.go and free/b.go; locked/a.go is then changed and staged unless staged is
// false (the change then waits in the working tree).
func gitLockedRepo(t *testing.T, staged bool) string {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	repo := filepath.Join(root, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "locked"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "free"), 0o755))
	write := func(rel, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(repo, rel), []byte(body), 0o644))
	}
	git := func(args ...string) { guardtest.Git(t, repo, args...) }
	guardtest.InitRepo(t, repo)
	write("locked/a.go", "package a\n")
	write("free/b.go", "package b\n")
	write("free.patch", "diff --git a/free/b.go b/free/b.go\n--- a/free/b.go\n+++ b/free/b.go\n@@ -1 +1 @@\n-package b\n+package c\n")
	git("add", ".")
	git("commit", "-q", "-m", "start")
	write("locked/LOCK.txt", "owner: alice\ncreated: 2026-11-29T09:30:00\nhost: laptop\nexpires_after: 2h\nmode: hard\npurpose: refactoring\n")
	write("locked/a.go", "package a // changed\n")
	if staged {
		git("add", "locked/a.go")
	}
	return repo
}

func TestGitOptionsThatWriteAreJudgedByWhatTheyWrite(t *testing.T) {
	repo := gitLockedRepo(t, true)
	cases := []struct{ name, command, blocked string }{
		{"git diff --output writes its file", "git diff --output=locked/d.txt", "locked/d.txt"},
		{"git log --output FILE writes its file", "git log -1 --output locked/l.txt", "locked/l.txt"},
		{"git show --output writes its file", "git show --output=locked/s.txt HEAD", "locked/s.txt"},
		{"git format-patch -o writes into its folder", "git format-patch -1 -o locked/patches", "locked/patches"},
		{"git format-patch --output-directory= too", "cd locked && git format-patch -1 --output-directory=.", "locked"},
		{"git format-patch without -o writes into the current folder", "cd locked && git format-patch -1", "locked"},
		{"git bundle create writes its file", "git bundle create locked/all.bundle HEAD", "locked/all.bundle"},
		{"git config -f FILE KEY VALUE writes FILE", "git config -f locked/cfg a.b c", "locked/cfg"},
		{"git config --file=FILE set writes FILE", "git config --file=locked/cfg set a.b c", "locked/cfg"},
		{"git init-db is git init", "git init-db locked/sub", "locked/sub"},
		{"git --git-dir into a locked folder writes there", "git --git-dir=locked/g init", "locked/g"},
		{"git --git-dir into a locked folder, for a command that writes the repository", "git --git-dir=locked/g fetch origin", "locked/g"},
		{"GIT_DIR=... git init writes there", "GIT_DIR=locked/g git init", "locked/g"},
		{"git init --separate-git-dir writes there", "git init --separate-git-dir locked/g free/new", "locked/g"},
		{"git sparse-checkout set rewrites the tree", "git sparse-checkout set free", "."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := decideBash(t, repo, tc.command, false)
			assert.Equal(t, Deny, v.Decision, v.Reason)
			assert.Contains(t, v.Reason, "blocked: "+filepath.Join(repo, filepath.FromSlash(tc.blocked))+"\n")
		})
	}
	reads := []struct{ name, command string }{
		{"git diff without --output writes nothing", "git diff"},
		{"git format-patch --stdout writes nothing", "cd locked && git format-patch -1 --stdout"},
		{"git config -f FILE KEY only reads", "git config -f locked/cfg a.b"},
		{"git sparse-checkout list only reads", "git sparse-checkout list"},
		{"git --git-dir=.git (the tree's own) log reads", "git --git-dir=.git log"},
		{"git apply --check only checks", "git apply --check free.patch"},
	}
	for _, tc := range reads {
		t.Run(tc.name, func(t *testing.T) {
			v := decideBash(t, repo, tc.command, true)
			assert.Equal(t, None, v.Decision, v.Reason)
		})
	}
	t.Run("git apply near a lock is asked: it writes what its patch names, which guard reads only in part", func(t *testing.T) {
		v := decideBash(t, repo, "git apply free.patch", false)
		assert.Equal(t, Ask, v.Decision, v.Reason)
		assert.Contains(t, v.Reason, "`git apply free.patch` writes the files its patch names, which guard reads only in part")
	})
}

func TestGitOptionsThatRunCodeAreJudgedAsUnknownPrograms(t *testing.T) {
	repo := gitLockedRepo(t, true)
	cases := []struct {
		name, command, why string
		// tree is set when the command also rewrites the tree: denied, not asked.
		tree bool
	}{
		{"-c core.fsmonitor runs a program on every status", `git -c core.fsmonitor='touch locked/x' status`, "-c core.fsmonitor=touch locked/x", false},
		{"-c core.pager runs the pager", `git -c core.pager='sh -c "touch locked/x"' log`, "-c core.pager=", false},
		{"-c core.sshCommand runs ssh's stand-in", `git -c core.sshCommand='touch locked/x' fetch origin`, "-c core.sshCommand=", false},
		{"-c alias.X=!cmd runs a shell command", `git -c 'alias.st=!touch locked/x' st`, "-c alias.st=!touch locked/x", false},
		{"-c include.path reads a configuration that may name programs", `git -c include.path=/tmp/cfg status`, "-c include.path=", false},
		{"--config-env counts as -c", `git --config-env=core.pager=P log`, "-c core.pager=P", false},
		{"GIT_SSH_COMMAND runs a program", `GIT_SSH_COMMAND='touch locked/x' git fetch origin`, "GIT_SSH_COMMAND", false},
		{"GIT_CONFIG_PARAMETERS sets any key", `GIT_CONFIG_PARAMETERS="'core.pager'='x'" git log`, "GIT_CONFIG_PARAMETERS", false},
		{"--upload-pack runs a program", `git fetch --upload-pack='touch locked/x' origin`, "(--upload-pack)", false},
		{"ls-remote -u is --upload-pack", `git ls-remote -u 'touch locked/x' origin`, "(-u, --upload-pack)", false},
		{"git grep -O opens the files in a program", `git grep -Ovim package`, "(-O)", false},
		{"git grep --open-files-in-pager too", `git grep --open-files-in-pager=vim package`, "(-O)", false},
		{"git config KEY VALUE arms a program for later", `git config core.fsmonitor 'touch locked/x'`, "sets core.fsmonitor", false},
		{"git rebase -x runs a command per commit", `git rebase -x 'touch locked/x' HEAD`, "runs a command guard does not read", true},
		{"git bisect run runs a command", `git bisect run make`, "runs a command guard does not read", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := AnalyzeBash(tc.command, repo, "/h", nil)
			require.NotEmpty(t, a.Unknown, "effects %v", a.Effects)
			assert.Contains(t, strings.Join(a.Unknown, "\n"), tc.why)
			v := decideBash(t, repo, tc.command, true)
			if tc.tree {
				assert.Equal(t, Deny, v.Decision, "it rewrites the tree, where a lock lies: %s", v.Reason)
				return
			}
			assert.Equal(t, Ask, v.Decision, "near a lock, under [agent] strict, an unknown program is asked about: %s", v.Reason)
		})
	}
	t.Run("-c with keys that run nothing stays a read", func(t *testing.T) {
		a := AnalyzeBash("git -c user.name=x -c color.ui=false -c core.quotePath=false log", repo, "/h", nil)
		assert.Empty(t, a.Unknown)
		assert.Empty(t, a.Effects)
	})
}

func TestACommitThatSkipsTheHooksIsJudgedByWhatItCommits(t *testing.T) {
	staged := gitLockedRepo(t, true)
	unstaged := gitLockedRepo(t, false)
	blocked := func(repo string) string { return "blocked: " + filepath.Join(repo, "locked", "a.go") + "\n" }
	cases := []struct{ name, repo, command string }{
		{"--no-verify", staged, "git commit --no-verify -m x"},
		{"a prefix of --no-verify", staged, "git commit --no-ver -m x"},
		{"-n", staged, "git commit -n -m x"},
		{"-n in a group", staged, "git commit -qnm x"},
		{"-c core.hooksPath=/dev/null", staged, "git -c core.hooksPath=/dev/null commit -m x"},
		{"core.hooksPath set earlier in the command", staged, "git config core.hooksPath /dev/null && git commit -m x"},
		{"-a takes the working tree's change", unstaged, "git commit -a -n -m x"},
		{"a path takes its change", unstaged, "git commit -n -m x locked/a.go"},
		{"a change staged earlier in the same command", unstaged, "git add locked/a.go && git commit --no-verify -m x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := decideBash(t, tc.repo, tc.command, false)
			assert.Equal(t, Deny, v.Decision, v.Reason)
			assert.Contains(t, v.Reason, "refused commit")
			assert.Contains(t, v.Reason, blocked(tc.repo))
		})
	}
	t.Run("a commit that runs the hooks is left to them", func(t *testing.T) {
		v := decideBash(t, staged, "git commit -m x", false)
		assert.Equal(t, None, v.Decision, v.Reason)
	})
	t.Run("-n skipping the hooks with only free changes staged is allowed", func(t *testing.T) {
		v := decideBash(t, unstaged, "git commit -n -m x", false)
		assert.Equal(t, None, v.Decision, v.Reason)
	})
	t.Run("-m's value is not an option: -m -n", func(t *testing.T) {
		v := decideBash(t, staged, "git commit -m -n", false)
		assert.Equal(t, None, v.Decision, v.Reason)
	})
}

func TestAPushThatSkipsTheHooksIsJudgedByWhatItPublishes(t *testing.T) {
	repo := gitLockedRepo(t, false)
	git := func(dir string, args ...string) { t.Helper(); guardtest.Git(t, dir, args...) }
	// Nothing is on a remote yet: the first commit, which holds locked/a.go, would be
	// published.
	v := decideBash(t, repo, "git push --no-verify origin main", false)
	assert.Equal(t, Deny, v.Decision, v.Reason)
	assert.Contains(t, v.Reason, "refused push")
	assert.Contains(t, v.Reason, "blocked: "+filepath.Join(repo, "locked", "a.go")+"\n")
	v = decideBash(t, repo, "git -c core.hooksPath=/dev/null push origin main", false)
	assert.Equal(t, Deny, v.Decision, v.Reason)

	remote := filepath.Join(filepath.Dir(repo), "remote.git")
	git(filepath.Dir(repo), "init", "-q", "--bare", remote)
	git(repo, "remote", "add", "origin", remote)
	git(repo, "push", "-q", "origin", "main")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "free", "c.go"), []byte("package c\n"), 0o644))
	git(repo, "add", "free/c.go")
	git(repo, "commit", "-q", "-m", "free only")
	v = decideBash(t, repo, "git push --no-verify origin main", false)
	assert.Equal(t, None, v.Decision, "only free/c.go is new on the remote: %s", v.Reason)
	v = decideBash(t, repo, "git push origin main", false)
	assert.Equal(t, None, v.Decision, "with its hook, the push is the hook's to judge: %s", v.Reason)
}
