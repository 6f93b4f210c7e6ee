package guard

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/lockcore"
)

var testNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func testEnv(dir string) *Env {
	return &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Clock: lockcore.FixedClock(testNow),
		User: "tester", Hostname: "hostA", Dir: dir, Getenv: func(string) string { return "" }}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
}

const fresh = "owner: alice\ncreated: 2026-11-29T11:00:00\npurpose: refactoring the parser\n"

func TestPolicyCheck(t *testing.T) {
	me := Identity{Owner: "bob", Host: "hostA"}
	cases := []struct {
		name    string
		files   map[string]string // relative path -> content
		ops     []string
		path    string
		id      Identity
		blocked bool
		warn    string // substring of a warning
	}{
		{name: "a project lock in the file's folder refuses", files: map[string]string{"LOCK.txt": fresh}, path: "a.go", blocked: true},
		{name: "a project lock two folders up refuses", files: map[string]string{"LOCK.txt": fresh}, path: "x/y/a.go", blocked: true},
		{name: "a lock in a sibling folder does not refuse", files: map[string]string{"other/LOCK.txt": fresh}, path: "x/a.go"},
		{name: "the owner is not stopped by its own lock", files: map[string]string{"LOCK.txt": fresh}, path: "a.go", id: Identity{Owner: "alice", Host: "hostZ"}},
		{name: "an expired lock stops nobody", files: map[string]string{"LOCK.txt": "owner: alice\ncreated: 2026-11-27T11:00:00\n"}, path: "a.go"},
		{name: "a user lock never expires", files: map[string]string{"LOCK.user.txt": "owner: user\ncreated: 2020-01-01T00:00\n"}, path: "a.go", blocked: true},
		{name: "a soft lock warns and allows", files: map[string]string{"LOCK.txt": fresh + "mode: soft\n"}, path: "a.go", warn: "soft lock"},
		{name: "an operations list blocks only its operations", files: map[string]string{"LOCK.condition.txt": fresh + "release_condition: review done\noperations: registry-upload, publish-release\n"}, ops: []string{"commit"}, path: "a.go"},
		{name: "an operations list blocks a listed operation", files: map[string]string{"LOCK.condition.txt": fresh + "release_condition: review done\noperations: registry-upload\n"}, ops: []string{"registry-upload"}, path: "a.go", blocked: true},
		{name: "a scoped lock covers its folder", files: map[string]string{"LOCK.frontend.txt": fresh, "frontend/.keep": ""}, path: "frontend/app.js", blocked: true},
		{name: "a scoped lock spares other folders", files: map[string]string{"LOCK.frontend.txt": fresh, "frontend/.keep": ""}, path: "backend/app.go"},
		{name: "a dotted scope maps to nested folders", files: map[string]string{"LOCK.assets.images.txt": fresh, "assets/images/.keep": ""}, path: "assets/images/a.png", blocked: true},
		{name: "a dotted scope spares the parent folder's other files", files: map[string]string{"LOCK.assets.images.txt": fresh, "assets/images/.keep": ""}, path: "assets/fonts/a.ttf"},
		{name: "a scope without folder or mapping falls back to the whole directory", files: map[string]string{"LOCK.api.txt": fresh}, path: "cmd/main.go", blocked: true, warn: "fail closed"},
		{name: "a .guard.toml glob maps a scope", files: map[string]string{".git/HEAD": "", ".guard.toml": "[scopes]\napi = [\"server/**/*.go\"]\n", "LOCK.api.txt": fresh}, path: "server/x/h.go", blocked: true},
		{name: "a .guard.toml glob of another scope does not map this one", files: map[string]string{".git/HEAD": "", ".guard.toml": "[scopes]\nweb = [\"site/**\"]\n", "LOCK.api.txt": fresh, "api/.keep": ""}, path: "site/index.html"},
		{name: "a .guard.toml glob spares what it does not match", files: map[string]string{".git/HEAD": "", ".guard.toml": "[scopes]\napi = [\"server/**/*.go\"]\n", "LOCK.api.txt": fresh}, path: "server/x/README.md"},
		{name: "a team lock does not stop its own host", files: map[string]string{"LOCK.team.hostA.txt": fresh}, path: "a.go"},
		{name: "a team lock stops other hosts", files: map[string]string{"LOCK.team.hostB.txt": fresh}, path: "a.go", blocked: true},
		{name: "a team lock without host stops every host", files: map[string]string{"LOCK.team.txt": fresh}, path: "a.go", blocked: true},
		{name: "an ambiguous name holds whatever its age", files: map[string]string{"LOCK.frontend.user.txt": "owner: alice\ncreated: 2020-01-01T00:00\n"}, path: "a.go", blocked: true},
		{name: "a legacy TEST.txt holds", files: map[string]string{"TEST.txt": ""}, path: "a.go", blocked: true},
		{name: "LOCK.permissions.txt is not a lock", files: map[string]string{"LOCK.permissions.txt": "{}"}, path: "a.go"},
		{name: "a folder collides with a lock inside it", files: map[string]string{"sub/deep/LOCK.txt": fresh}, path: ".", blocked: true},
		{name: "a lock shipped inside node_modules does not block its folder", files: map[string]string{"node_modules/dep/LOCK.txt": fresh}, path: "."},
		{name: "an until lock holds before its moment", files: map[string]string{"LOCK.until.txt": "owner: alice\nnot_before: 2026-12-24T00:00:00\n"}, path: "a.go", blocked: true},
		{name: "an until lock is over after its moment", files: map[string]string{"LOCK.until.txt": "owner: alice\nnot_before: 2026-11-01T00:00:00\n"}, path: "a.go"},
		{name: "a content-aware user lock holds past its expiry", files: map[string]string{"LOCK.txt": "owner: alice\ncreated: 2020-01-01T00:00\nremovable_by: user\n"}, path: "a.go", blocked: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for rel, body := range tc.files {
				write(t, filepath.Join(root, rel), body)
			}
			id := tc.id
			if id == (Identity{}) {
				id = me
			}
			env := testEnv(root)
			dec, err := NewPolicy(env, id).Check(Request{Ops: tc.ops, Paths: []string{tc.path}, Descend: true})
			require.NoError(t, err)
			assert.Equal(t, !tc.blocked, dec.Allowed, "blocking: %+v", dec.Blocking)
			if tc.warn != "" {
				assert.Contains(t, strings.Join(dec.Warnings, "\n"), tc.warn)
			}
		})
	}
}

func TestPolicyExplainNamesLockOwnerPurposeAndWayOut(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "LOCK.txt"), fresh+"host: laptop\nticket: JIRA-7\n")
	dec, err := NewPolicy(testEnv(root), Identity{Owner: "bob", Host: "hostA"}).Check(Request{Ops: []string{"commit"}, Paths: []string{"a.go", "b.go"}})
	require.NoError(t, err)
	require.False(t, dec.Allowed)
	var buf bytes.Buffer
	dec.Explain(&buf)
	lock := filepath.Join(root, "LOCK.txt")
	want := "guard: refused commit: 2 path(s) blocked\n\n" +
		"  exclusive lock " + lock + " held by alice\n" +
		"  lock: " + lock + " (kind exclusive, scope project)\n" +
		"  owner: alice on laptop, since 2026-11-29 11:00:00\n" +
		"  until: 2026-11-30 11:00:00 (in 23h0m0s)\n" +
		"  purpose: refactoring the parser\n" +
		"  other fields: ticket: JIRA-7\n" +
		"    blocked: " + filepath.Join(root, "a.go") + "\n" +
		"    blocked: " + filepath.Join(root, "b.go") + "\n" +
		"  what now: wait until it expires or is released, ask alice to run `guard unlock " + lock + "`, or if it is abandoned, `guard unlock --force " + lock + "`\n"
	assert.Equal(t, want, buf.String())
}

func TestPolicyTreatsAnUnreadableDirectoryAsLocked(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory; the unreadable case cannot be built as root")
	}
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	require.NoError(t, os.Chmod(sub, 0o000))
	t.Cleanup(func() { os.Chmod(sub, 0o755) })
	dec, err := NewPolicy(testEnv(root), Identity{Owner: "bob"}).Check(Request{Paths: []string{"sub/a.go"}})
	require.NoError(t, err)
	require.False(t, dec.Allowed)
	assert.Contains(t, dec.Blocking[0].Reason, "fail closed")
}

func TestPolicySeesLocksAcrossWorktrees(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	main := filepath.Join(root, "main")
	wt := filepath.Join(root, "wt")
	guardtest.InitRepo(t, main)
	guardtest.Commit(t, main, "init", map[string]string{"src/a.go": "package a\n"})
	guardtest.Git(t, main, "worktree", "add", "-q", "--detach", wt)

	// A lock in the main clone stops the linked worktree ...
	write(t, filepath.Join(main, "src", "LOCK.txt"), fresh)
	dec, err := NewPolicy(testEnv(wt), Identity{Owner: "bob"}).Check(Request{Paths: []string{filepath.Join(wt, "src", "a.go")}})
	require.NoError(t, err)
	assert.False(t, dec.Allowed)
	require.NoError(t, os.Remove(filepath.Join(main, "src", "LOCK.txt")))

	// ... and a lock in the linked worktree stops the main clone.
	write(t, filepath.Join(wt, "LOCK.txt"), fresh)
	dec, err = NewPolicy(testEnv(main), Identity{Owner: "bob"}).Check(Request{Paths: []string{filepath.Join(main, "src", "a.go")}})
	require.NoError(t, err)
	assert.False(t, dec.Allowed)
	assert.Equal(t, filepath.Join(wt, "LOCK.txt"), dec.Blocking[0].Lock.Path)
}

func TestMatchGlob(t *testing.T) {
	cases := []struct {
		glob, name string
		want       bool
	}{
		{"src/*.go", "src/a.go", true},
		{"src/*.go", "src/x/a.go", false},
		{"src/**/*.go", "src/a.go", true},
		{"src/**/*.go", "src/x/y/a.go", true},
		{"**", "anything/at/all", true},
		{"docs", "docs", true},
		{"docs", "docs2", false},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, MatchGlob(tc.glob, tc.name), "%s vs %s", tc.glob, tc.name)
	}
}

func TestPolicyRefusesASupersededFence(t *testing.T) {
	root := t.TempDir()
	lock := filepath.Join(root, "LOCK.work.txt")
	write(t, lock, "owner: bob\ncreated: 2026-11-29T11:30:00\nfence: 2000\nexpires_after: 1h\n")
	p := NewPolicy(testEnv(root), Identity{Owner: "bob"})
	dec, _ := p.Check(Request{Paths: []string{"a.go"}, Fence: "2000", FenceFile: lock, RepoRoot: root})
	assert.True(t, dec.Allowed, "%+v", dec.Blocking)
	dec, _ = p.Check(Request{Paths: []string{"a.go"}, Fence: "1000", FenceFile: lock, RepoRoot: root})
	require.False(t, dec.Allowed)
	assert.Contains(t, dec.Blocking[0].Reason, "2000")
	dec, _ = p.Check(Request{Paths: []string{"a.go"}, Fence: "2000", FenceFile: lock, RepoRoot: filepath.Join(root, "elsewhere")})
	require.False(t, dec.Allowed)
	assert.Contains(t, dec.Blocking[0].Reason, "outside the repository")
	dec, _ = p.Check(Request{Paths: []string{"a.go"}, Fence: "2000"})
	require.False(t, dec.Allowed)
	assert.Contains(t, dec.Blocking[0].Reason, "LOCK_FENCE_FILE is not")
}

func TestPolicyFollowsSymlinksToTheRealArea(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "real", "locked", "LOCK.txt"), fresh)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "work"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(root, "real", "locked"), filepath.Join(root, "work", "link")))
	p := NewPolicy(testEnv(root), Identity{Owner: "bob"})
	write(t, filepath.Join(root, "real", "locked", "a.go"), "package a\n")
	require.NoError(t, os.Symlink(filepath.Join(root, "real", "locked", "a.go"), filepath.Join(root, "work", "filelink.go")))
	for _, path := range []string{"work/link/a.go", "work/link/new/dir/b.go", "work/filelink.go"} {
		dec, err := p.Check(Request{Paths: []string{path}})
		require.NoError(t, err)
		assert.False(t, dec.Allowed, path)
		assert.Len(t, dec.Blocking, 1, "one lock, reported once")
	}
}

func TestPolicyTeamClaimStopsTheLockOwnerToo(t *testing.T) {
	root := t.TempDir()
	lock := filepath.Join(root, "LOCK.team.hostA.txt")
	write(t, lock, "owner: lead\ncreated: 2026-11-29T11:00:00\nhost: hostA\n\n"+lockcore.TeamSectionsTemplate())
	_, err := lockcore.UpdateTeamLock(lock, testNow, lockcore.TeamOp{Action: lockcore.TeamClaim, Agent: "agent-2", Section: lockcore.SectionFileClaims, Resources: []string{"src"}}, lockcore.TeamUpdateOptions{})
	require.NoError(t, err)

	for _, who := range []string{"lead", "agent-3"} {
		dec, err := NewPolicy(testEnv(root), Identity{Owner: who, Host: "hostA"}).Check(Request{Paths: []string{"src/a.go"}})
		require.NoError(t, err)
		require.False(t, dec.Allowed, who)
		assert.True(t, dec.Blocking[0].TeamClaim)
		var buf bytes.Buffer
		dec.Explain(&buf)
		assert.Contains(t, buf.String(), "claimed by agent agent-2")
	}
	dec, err := NewPolicy(testEnv(root), Identity{Owner: "agent-2", Host: "hostA"}).Check(Request{Paths: []string{"src/a.go"}})
	require.NoError(t, err)
	assert.True(t, dec.Allowed, "the claiming agent itself")
	dec, err = NewPolicy(testEnv(root), Identity{Owner: "lead", Host: "hostA"}).Check(Request{Paths: []string{"docs/a.md"}})
	require.NoError(t, err)
	assert.True(t, dec.Allowed, "unclaimed paths on the team's own host")
}

func TestPolicyCoversWholeDir(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".git", "HEAD"), "")
	write(t, filepath.Join(root, ".guard.toml"), "[scopes]\nall = [\"**\"]\nweb = [\"site/**\"]\n")
	write(t, filepath.Join(root, "docs", ".keep"), "")
	p := NewPolicy(testEnv(root), Identity{Owner: "bob"})
	for scope, want := range map[string]bool{"project": true, "all": true, "web": false, "docs": false, "nowhere": true} {
		assert.Equal(t, want, p.ScopeCoversWholeDir(root, scope), scope)
		l, err := lockcore.ParseLock(filepath.Join(root, "LOCK."+scope+".txt"), []byte(fresh), testNow, time.UTC)
		require.NoError(t, err)
		if scope == "project" {
			l, _ = lockcore.ParseLock(filepath.Join(root, "LOCK.txt"), []byte(fresh), testNow, time.UTC)
		}
		assert.Equal(t, want, p.CoversWholeDir(l), scope)
	}
}

func TestIsMarkerName(t *testing.T) {
	for p, want := range map[string]bool{
		"PRIVATE.txt": true, "a/b/PUBLIC.txt": true, "private.TXT": true, "Public.txt": true,
		"PRIVATE.txt.bak": false, "PRIVATE.md": false, "docs/PRIVATE": false, `a\\PRIVATE.txt`: true, "xPUBLIC.txt": false,
	} {
		assert.Equal(t, want, IsMarkerName(p), p)
	}
}

func TestSplitCleanIsDirAndBase(t *testing.T) {
	for _, p := range []string{"/", "/a", "/a/b", "/a/b/c.txt", "/ü/ß", filepath.Join(t.TempDir(), "x")} {
		d, b := splitClean(p)
		assert.Equal(t, filepath.Dir(p), d, p)
		assert.Equal(t, filepath.Base(p), b, p)
	}
}
