package main

// End-to-end tests of the server side (CONTRACT.md section 13): a bare repository with
// `guard install --server`, pushed to over file:// by real git clients that have no
// guard hooks of their own (as a client that skipped them would), and over ssh by
// Debian's openssh-server (server_ssh_test.go). The pusher comes from the server's
// variable (GUARD_PUSHER, named by [server] pusher_env); the clients' GUARD_OWNER
// always names someone else, and must never count.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

// srvServer is a bare repository with guard's server hooks and its own state folder
// (the history of its hooks).
type srvServer struct {
	bare, state string
}

const srvConfig = "[server]\npusher_env = \"GUARD_PUSHER\"\nbypass_users = [\"carol\"]\n\n[server.owners]\n\"alice-srv\" = \"alice\"\n"

// srvSetup makes the bare repository (its .guard.toml is config), installs the server
// hooks, and pushes a first commit as alice that locks src/ for alice.
func srvSetup(t *testing.T, config string) (srvServer, string) {
	t.Helper()
	s := srvServer{bare: filepath.Join(t.TempDir(), "srv.git"), state: t.TempDir()}
	guardtest.Git(t, filepath.Dir(s.bare), "init", "-q", "--bare", "-b", "main", s.bare)
	ctWrite(t, s.bare, ".guard.toml", config)
	out, stderr, code := ctRun(t, s.bare, nil, "", "install", "--server", "--repo", s.bare)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "installed "+filepath.Join(s.bare, "hooks", "pre-receive"))
	work := ctRepo(t, map[string]string{
		"src/LOCK.txt": "owner: alice\npurpose: parser rewrite\n" + ctLive,
		"src/a.go":     "package a\n",
		"docs/x.md":    "x\n",
	})
	guardtest.Git(t, work, "remote", "add", "origin", s.bare)
	stderr, code = s.push(t, work, "alice", "origin", "main")
	require.Equal(t, 0, code, stderr)
	return s, work
}

// env is the environment of a client's git push: the pusher as the server will see
// it (file:// runs the server's receive-pack in the client's environment, as an ssh
// forced command would set it), and a client GUARD_OWNER that names someone else.
func (s srvServer) env(t *testing.T, pusher string) []string {
	env := guardtest.GitEnv(t.TempDir(), "XDG_STATE_HOME="+s.state, "GUARD_OWNER=alice", "LANG=C")
	if pusher != "" {
		env = append(env, "GUARD_PUSHER="+pusher)
	}
	return env
}

// push runs `git push --no-verify ARGS...` in dir as pusher (see srvGitPush).
func (s srvServer) push(t *testing.T, dir, pusher string, args ...string) (string, int) {
	t.Helper()
	return srvGitPush(t, dir, s.env(t, pusher), args...)
}

// srvGitPush runs `git push --no-verify ARGS...` in dir with env and returns git's
// output (each line's trailing blanks, which git pads remote lines with, cut) and exit
// code.
func srvGitPush(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"push", "--no-verify"}, args...)...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	lines := strings.Split(string(out), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Join(lines, "\n"), code
}

func (s srvServer) ref(t *testing.T, ref string) string {
	t.Helper()
	out, _ := guardtest.GitCode(t, s.bare, nil, "rev-parse", "--verify", "--quiet", ref)
	return strings.TrimSpace(out)
}

// clone makes a fresh clone of the server (no guard hooks in it).
func (s srvServer) clone(t *testing.T) string {
	t.Helper()
	c := filepath.Join(t.TempDir(), "c")
	guardtest.Git(t, filepath.Dir(c), "clone", "-q", s.bare, c)
	return c
}

// srvRefusal is the refusal of bob's push of src/a.go on main, line for line as git
// shows it.
const srvRefusal = `remote: guard: pre-receive: refusing refs/heads/main (push by bob):
remote: guard:   src/a.go: exclusive lock src/LOCK.txt held by alice
remote: guard:     purpose: parser rewrite; expires 2099-01-02 00:00 UTC
remote: guard:     what now: ask alice to release it (remove src/LOCK.txt in a commit and push that), or
remote: guard:       wait until it expires; then push again
remote: guard: pre-receive: 1 ref update refused for bob; no ref was updated.
`

func TestServerRefusesAPushIntoAnotherOwnersLockedAreaAndKeepsItsRefs(t *testing.T) {
	t.Parallel()
	s, _ := srvSetup(t, srvConfig)
	before := s.ref(t, "refs/heads/main")
	bob := s.clone(t)
	ctWrite(t, bob, "src/a.go", "package a // bob\n")
	guardtest.Git(t, bob, "commit", "-qam", "bob changes src")
	bobHead := guardtest.Git(t, bob, "rev-parse", "HEAD")

	stderr, code := s.push(t, bob, "bob", "origin", "main")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, srvRefusal)
	assert.Contains(t, stderr, " ! [remote rejected] main -> main (pre-receive hook declined)")
	assert.Equal(t, before, s.ref(t, "refs/heads/main"), "the server's ref did not move")

	// The refused objects stayed in the quarantine, which git removed: the server
	// never got bob's commit, and guard left nothing of its own behind.
	_, code = guardtest.GitCode(t, s.bare, nil, "cat-file", "-e", bobHead)
	assert.NotEqual(t, 0, code, "the refused commit is not in the server's objects")
	incoming, _ := filepath.Glob(filepath.Join(s.bare, "objects", "incoming-*"))
	assert.Empty(t, incoming)
	scratch, _ := os.ReadDir(filepath.Join(s.bare, "guard", "receive"))
	assert.Empty(t, scratch, "the scratch trees are removed")

	// docs is free: bob's push of docs alone goes through.
	bob2 := s.clone(t)
	ctWrite(t, bob2, "docs/x.md", "x by bob\n")
	guardtest.Git(t, bob2, "commit", "-qam", "bob changes docs")
	stderr, code = s.push(t, bob2, "bob", "origin", "main")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, guardtest.Git(t, bob2, "rev-parse", "HEAD"), s.ref(t, "refs/heads/main"))
}

func TestServerLetsTheLockOwnerThroughUnderTheServerNameTheOwnersTableMaps(t *testing.T) {
	t.Parallel()
	s, work := srvSetup(t, srvConfig)
	ctWrite(t, work, "src/a.go", "package a // alice\n")
	guardtest.Git(t, work, "commit", "-qam", "alice changes src")
	stderr, code := s.push(t, work, "alice-srv", "origin", "main")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, guardtest.Git(t, work, "rev-parse", "HEAD"), s.ref(t, "refs/heads/main"))

	// post-receive recorded the accepted update, with the lock owner as actor.
	out, stderr, code := ctRun(t, s.bare, []string{"XDG_STATE_HOME=" + s.state}, "", "history", "--event", "pushed", "--json")
	require.Equal(t, 0, code, stderr)
	var events []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &events), out)
	require.Len(t, events, 2, "the first push and this one")
	assert.Equal(t, "alice", events[0]["actor"])
	assert.Equal(t, "refs/heads/main", events[0]["name"])
	assert.Contains(t, events[0]["detail"], "by alice-srv (GUARD_PUSHER)")
}

func TestServerBypassPushOptionIsRecordedForAnAllowedUserAndRefusedForAnother(t *testing.T) {
	t.Parallel()
	s, _ := srvSetup(t, srvConfig)
	before := s.ref(t, "refs/heads/main")
	bob := s.clone(t)
	ctWrite(t, bob, "src/a.go", "package a // hotfix\n")
	guardtest.Git(t, bob, "commit", "-qam", "hotfix")

	stderr, code := s.push(t, bob, "bob", "-o", "guard.bypass=prod is down", "origin", "main")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "remote: guard: pre-receive: bob asked for guard.bypass, but only users in [server] bypass_users\n")
	assert.Equal(t, before, s.ref(t, "refs/heads/main"))
	_, err := os.Stat(filepath.Join(s.bare, "guard", "bypass.log"))
	assert.ErrorIs(t, err, os.ErrNotExist, "a refused bypass writes no bypass entry")

	stderr, code = s.push(t, bob, "carol", "-o", "guard.bypass=prod is down", "origin", "main")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, strings.ReplaceAll(srvRefusal[:strings.Index(srvRefusal, "remote: guard: pre-receive: 1 ref")], "push by bob", "push by carol"), "the refusal is still shown")
	assert.Contains(t, stderr, "remote: guard: pre-receive: guard.bypass by carol (\"prod is down\"): letting this push through; recorded in\n")
	assert.Contains(t, stderr, "remote: guard:   "+filepath.Join(s.bare, "guard", "bypass.log")+"\n")
	assert.Equal(t, guardtest.Git(t, bob, "rev-parse", "HEAD"), s.ref(t, "refs/heads/main"))

	var e map[string]any
	require.NoError(t, json.Unmarshal([]byte(ctRead(t, filepath.Join(s.bare, "guard", "bypass.log"))), &e))
	assert.Equal(t, "carol", e["user"])
	assert.Equal(t, "carol", e["owner"])
	assert.Equal(t, "prod is down", e["reason"])
	assert.Equal(t, "pre-receive", e["hook"])
	assert.Equal(t, []any{"refs/heads/main"}, e["refs"])
	blocking := e["blocking"].([]any)
	require.Len(t, blocking, 1)
	assert.Equal(t, map[string]any{"path": "src/a.go", "lock": "src/LOCK.txt", "owner": "alice",
		"reason": "exclusive lock src/LOCK.txt held by alice"}, blocking[0])

	out, stderr, code := ctRun(t, s.bare, []string{"XDG_STATE_HOME=" + s.state}, "", "history", "--event", "bypassed", "--json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `pre-receive: guard.bypass \"prod is down\" by carol let a refused push through`)
}

func TestServerFailsClosedWithoutAPusherAndOnAMalformedConfig(t *testing.T) {
	t.Parallel()
	s, work := srvSetup(t, srvConfig)
	before := s.ref(t, "refs/heads/main")
	ctWrite(t, work, "docs/x.md", "y\n")
	guardtest.Git(t, work, "commit", "-qam", "docs")

	// No pusher variable at all (the client's GUARD_OWNER=alice does not count).
	stderr, code := s.push(t, work, "", "origin", "main")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "remote: guard: pre-receive: cannot check this push: no pusher identity: GL_USERNAME, GITEA_PUSHER_NAME")
	assert.Contains(t, stderr, "remote: guard: refusing it (fail closed); no ref was updated.\n")
	assert.Equal(t, before, s.ref(t, "refs/heads/main"))

	// A malformed server configuration refuses every push, naming the file and line;
	// the hook's own exit is 2.
	ctWrite(t, s.bare, ".guard.toml", "[server]\npusher_env = \"GUARD_PUSHER\"\nvisibility = \"open\"\n")
	stderr, code = s.push(t, work, "alice", "origin", "main")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "remote: guard: pre-receive: cannot check this push:\nremote: guard:   "+filepath.Join(s.bare, ".guard.toml")+":1:\n")
	assert.Contains(t, stderr, "remote: guard:   [server] visibility = \"open\": want \"public\" or \"private\"; every push is refused until the\n")
	assert.Equal(t, before, s.ref(t, "refs/heads/main"))
	line := before + " " + guardtest.Git(t, work, "rev-parse", "HEAD") + " refs/heads/main\n"
	_, hookErr, code := ctRun(t, s.bare, []string{"GIT_DIR=.", "GUARD_PUSHER=alice"}, line, "hook", "pre-receive")
	assert.Equal(t, 2, code, hookErr)

	ctWrite(t, s.bare, ".guard.toml", "[server\n")
	_, hookErr, code = ctRun(t, s.bare, []string{"GIT_DIR=.", "GUARD_PUSHER=alice"}, line, "hook", "pre-receive")
	assert.Equal(t, 2, code, hookErr)
	assert.Contains(t, hookErr, filepath.Join(s.bare, ".guard.toml")+":1:")

	// Found above the repository when the repository has none: its pusher_env names
	// the variable, and a GUARD_OWNER in the server's own environment does not count.
	require.NoError(t, os.Remove(filepath.Join(s.bare, ".guard.toml")))
	ctWrite(t, filepath.Dir(s.bare), ".guard.toml", "[server]\npusher_env = \"SRV_USER\"\n")
	branch := strings.Repeat("0", 40) + " " + before + " refs/heads/other\n"
	_, hookErr, code = ctRun(t, s.bare, []string{"GIT_DIR=.", "SRV_USER=bob"}, branch, "hook", "pre-receive")
	assert.Equal(t, 0, code, hookErr)
	_, hookErr, code = ctRun(t, s.bare, []string{"GIT_DIR=.", "GUARD_OWNER=alice", "GUARD_PUSHER=alice"}, branch, "hook", "pre-receive")
	assert.Equal(t, 2, code, hookErr)
	assert.Contains(t, hookErr, "guard: pre-receive: cannot check this push: no pusher identity: GL_USERNAME, GITEA_PUSHER_NAME and\nguard:   SRV_USER (pusher_env in\n")
	assert.Contains(t, hookErr, "guard:   "+filepath.Join(filepath.Dir(s.bare), ".guard.toml")+")")
}

func TestServerRefusesMarkersPrivateOnAPublicRepositoryTagsDeletionsNewBranchesAndDroppedWork(t *testing.T) {
	t.Parallel()
	s, work := srvSetup(t, srvConfig+"\n")
	ctWrite(t, s.bare, ".guard.toml", strings.Replace(srvConfig, "[server]\n", "[server]\nvisibility = \"public\"\n", 1))
	base := s.ref(t, "refs/heads/main")

	t.Run("PRIVATE.txt on a public repository", func(t *testing.T) {
		c := s.clone(t)
		ctWrite(t, c, "docs/PRIVATE.txt", "never publish\n")
		guardtest.Git(t, c, "add", "-A")
		guardtest.Git(t, c, "commit", "-qm", "marker")
		stderr, code := s.push(t, c, "bob", "origin", "HEAD:refs/heads/marker")
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "remote: guard: pre-receive: refusing create refs/heads/marker (push by bob):\n")
		assert.Contains(t, stderr, "remote: guard:   docs/PRIVATE.txt: docs/PRIVATE.txt is committed: publication markers must never be")
		assert.Contains(t, stderr, "remote: guard:   docs/PRIVATE.txt: docs/PRIVATE.txt says its project must stay private, and this repository\nremote: guard:     is public\n")
		assert.Contains(t, stderr, "remote: guard:     [server] visibility = \"public\"); remove it from the pushed commits, or publish elsewhere\n")
		assert.Empty(t, s.ref(t, "refs/heads/marker"))
	})

	t.Run("a new branch is compared with what the server has", func(t *testing.T) {
		c := s.clone(t)
		// A branch of commits the server has changes no path.
		stderr, code := s.push(t, c, "bob", "origin", "main:refs/heads/copy")
		assert.Equal(t, 0, code, stderr)
		ctWrite(t, c, "src/b.go", "package a\n")
		guardtest.Git(t, c, "add", "-A")
		guardtest.Git(t, c, "commit", "-qm", "new file in src")
		stderr, code = s.push(t, c, "bob", "origin", "HEAD:refs/heads/topic")
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "remote: guard:   src/b.go: exclusive lock src/LOCK.txt held by alice\n")
		assert.Empty(t, s.ref(t, "refs/heads/topic"))
	})

	t.Run("tags and deletions are checked at the top", func(t *testing.T) {
		c := s.clone(t)
		ctWrite(t, c, "LOCK.txt", "owner: alice\noperations: release-tag\n"+ctLive)
		guardtest.Git(t, c, "add", "-A")
		guardtest.Git(t, c, "commit", "-qm", "alice reserves releases")
		stderr, code := s.push(t, c, "alice", "origin", "HEAD:refs/heads/release")
		require.Equal(t, 0, code, stderr)
		guardtest.Git(t, c, "tag", "v1")
		stderr, code = s.push(t, c, "bob", "origin", "refs/tags/v1")
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "remote: guard: pre-receive: refusing create refs/tags/v1 (push+release-tag by bob):\n")
		assert.Contains(t, stderr, "remote: guard:   (the repository): exclusive lock LOCK.txt held by alice blocks release-tag\n")
		assert.Empty(t, s.ref(t, "refs/tags/v1"))
		stderr, code = s.push(t, c, "alice", "origin", "refs/tags/v1")
		assert.Equal(t, 0, code, stderr)

		// Deleting the branch whose tree holds a lock of the whole repository.
		ctWrite(t, c, "LOCK.txt", "owner: alice\n"+ctLive)
		guardtest.Git(t, c, "commit", "-qam", "alice locks everything")
		stderr, code = s.push(t, c, "alice", "origin", "HEAD:refs/heads/release")
		require.Equal(t, 0, code, stderr)
		stderr, code = s.push(t, c, "bob", "origin", ":refs/heads/release")
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "remote: guard: pre-receive: refusing delete refs/heads/release (push by bob):\n")
		assert.NotEmpty(t, s.ref(t, "refs/heads/release"))
	})

	t.Run("a push that removes another's lock is judged by it", func(t *testing.T) {
		c := s.clone(t)
		guardtest.Git(t, c, "rm", "-q", "src/LOCK.txt")
		ctWrite(t, c, "src/a.go", "package a // bob, after removing alice's lock\n")
		guardtest.Git(t, c, "commit", "-qam", "bob unlocks and edits")
		stderr, code := s.push(t, c, "bob", "origin", "main")
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "remote: guard:   src/LOCK.txt, src/a.go: exclusive lock src/LOCK.txt held by alice\n")
		assert.Equal(t, base, s.ref(t, "refs/heads/main"))
	})

	t.Run("a pushed .guard.toml that cannot be read", func(t *testing.T) {
		c := s.clone(t)
		ctWrite(t, c, ".guard.toml", "[scopes\n")
		guardtest.Git(t, c, "add", "-A")
		guardtest.Git(t, c, "commit", "-qm", "broken config")
		stderr, code := s.push(t, c, "bob", "origin", "HEAD:refs/heads/broken")
		assert.Equal(t, 1, code, stderr)
		// Unjudged, as every client gate leaves a change under a malformed .guard.toml
		// (exit 2, CONTRACT.md section 6); until issue 22 the server refused it as a
		// lock would (1).
		assert.Contains(t, stderr, "remote: guard: pre-receive: cannot check this push: create refs/heads/broken: the pushed .guard.toml cannot\nremote: guard:   be read (.guard.toml:1:")
		assert.Contains(t, stderr, "remote: guard: refusing it (fail closed); no ref was updated.\n")
		assert.Empty(t, s.ref(t, "refs/heads/broken"))
	})

	t.Run("a forced update that drops another's commits in a locked area", func(t *testing.T) {
		alice := s.clone(t)
		ctWrite(t, alice, "src/a.go", "package a // alice's work\n")
		guardtest.Git(t, alice, "commit", "-qam", "alice's work")
		stderr, code := s.push(t, alice, "alice", "origin", "main")
		require.Equal(t, 0, code, stderr)
		tip := s.ref(t, "refs/heads/main")

		bob := s.clone(t)
		guardtest.Git(t, bob, "reset", "-q", "--hard", base)
		ctWrite(t, bob, "docs/x.md", "bob's docs\n")
		guardtest.Git(t, bob, "commit", "-qam", "bob rewrites history")
		stderr, code = s.push(t, bob, "bob", "--force", "origin", "main")
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "remote: guard:   src/a.go: exclusive lock src/LOCK.txt held by alice\n")
		assert.Contains(t, stderr, "remote: guard:   this forced update drops 1 commit(s) of refs/heads/main that changed the locked")
		assert.Equal(t, tip, s.ref(t, "refs/heads/main"))
	})
	_ = work
}

func TestServerUpdateHookJudgesOneRefAndUninstallRestoresTheKeptHook(t *testing.T) {
	t.Parallel()
	s, _ := srvSetup(t, srvConfig)
	before := s.ref(t, "refs/heads/main")
	bob := s.clone(t)
	ctWrite(t, bob, "src/a.go", "package a // bob\n")
	guardtest.Git(t, bob, "commit", "-qam", "bob")
	// Objects the server has but no ref reaches: what git has received when it runs
	// update.
	stderr, code := s.push(t, bob, "carol", "-o", "guard.bypass=stage the objects", "origin", "HEAD:refs/heads/staging")
	require.Equal(t, 0, code, stderr)
	stderr, code = s.push(t, bob, "bob", "origin", ":refs/heads/staging")
	require.Equal(t, 0, code, stderr)
	head := guardtest.Git(t, bob, "rev-parse", "HEAD")
	// GUARD_BYPASS in the server's environment is no bypass.
	_, hookErr, code := ctRun(t, s.bare, []string{"GIT_DIR=.", "GUARD_PUSHER=bob", "GUARD_BYPASS=please"}, "", "hook", "update", "refs/heads/main", before, head)
	assert.Equal(t, 1, code, hookErr)
	assert.Contains(t, hookErr, "guard: update: refusing refs/heads/main (push by bob):\n")
	_, hookErr, code = ctRun(t, s.bare, []string{"GIT_DIR=.", "GUARD_PUSHER=bob"}, "", "hook", "update", "refs/heads/main", before, "xyz")
	assert.Equal(t, 2, code, hookErr)

	// doctor --server is healthy; uninstall --server restores a hook that was there.
	out, stderr, code := ctRun(t, s.bare, nil, "", "doctor", "--server", "--repo", s.bare, "--json")
	assert.Equal(t, 0, code, stderr+out)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, true, rep["healthy"])
	assert.Equal(t, "git", rep["layout"])
	assert.Equal(t, true, rep["push_options"])
	assert.EqualValues(t, 1, rep["bypasses"])

	_, _, code = ctRun(t, s.bare, nil, "", "uninstall", "--server", "--repo", s.bare)
	require.Equal(t, 0, code)
	old := "#!/bin/sh\necho the old hook ran >&2\n"
	require.NoError(t, os.WriteFile(filepath.Join(s.bare, "hooks", "pre-receive"), []byte(old), 0o755))
	_, stderr, code = ctRun(t, s.bare, nil, "", "install", "--server", "--repo", s.bare)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, old, ctRead(t, filepath.Join(s.bare, "hooks", "pre-receive.pre-guard")))
	docs := s.clone(t)
	ctWrite(t, docs, "docs/x.md", "z\n")
	guardtest.Git(t, docs, "commit", "-qam", "docs")
	stderr, code = s.push(t, docs, "bob", "origin", "main")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "remote: the old hook ran\n", "the kept hook still runs, with git's stdin")
	out, _, code = ctRun(t, s.bare, nil, "", "doctor", "--server", "--repo", s.bare)
	assert.Equal(t, 0, code, out)

	out, stderr, code = ctRun(t, s.bare, nil, "", "uninstall", "--server", "--repo", s.bare)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "restored "+filepath.Join(s.bare, "hooks", "pre-receive"))
	assert.Equal(t, old, ctRead(t, filepath.Join(s.bare, "hooks", "pre-receive")))
	_, err := os.Stat(filepath.Join(s.bare, "hooks", "post-receive"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	out, _, code = ctRun(t, s.bare, nil, "", "doctor", "--server", "--repo", s.bare)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "problem: "+filepath.Join(s.bare, "hooks", "pre-receive")+" is foreign: pushes are not checked")
}

func TestServerInstallIntoGitLabAndGiteaLayouts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ layout, made, hook string }{
		{"gitlab", "custom_hooks", "custom_hooks/pre-receive.d/guard"},
		{"gitea", "hooks/pre-receive.d", "hooks/pre-receive.d/guard"},
	} {
		t.Run(tc.layout, func(t *testing.T) {
			bare := filepath.Join(t.TempDir(), "r.git")
			guardtest.Git(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
			ctMkdir(t, bare, tc.made)
			out, stderr, code := ctRun(t, bare, nil, "", "install", "--server", "--repo", bare)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, out, "installed "+filepath.Join(bare, tc.hook)+"\n")
			assert.Contains(t, ctRead(t, filepath.Join(bare, tc.hook)), "hook=pre-receive\n")
			out, _, code = ctRun(t, bare, nil, "", "doctor", "--server", "--repo", bare, "--json")
			assert.Equal(t, 0, code, out)
			assert.Contains(t, out, `"layout": "`+tc.layout+`"`)
			out, _, code = ctRun(t, bare, nil, "", "uninstall", "--server", "--repo", bare)
			require.Equal(t, 0, code, out)
			_, err := os.Stat(filepath.Join(bare, tc.hook))
			assert.ErrorIs(t, err, os.ErrNotExist)
		})
	}
}
