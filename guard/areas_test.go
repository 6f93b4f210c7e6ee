package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

// areaPaths lists the set's areas relative to root, each once, sorted.
func areaPaths(t *testing.T, root string, set *ReadOnlySet) []string {
	t.Helper()
	seen := map[string]bool{}
	out := []string{}
	for _, a := range set.Areas {
		rel, err := filepath.Rel(root, a.Path)
		require.NoError(t, err)
		rel = filepath.ToSlash(rel)
		if !seen[rel] {
			seen[rel] = true
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

func TestReadOnlyAreasAreWhatCheckRefuses(t *testing.T) {
	me := Identity{Owner: "bob", Host: "hostA"}
	cases := []struct {
		name  string
		files map[string]string
		want  []string // areas relative to the root
		warn  string
		// probe names, for an area that is the base of a glob, a path the glob matches
		// (the rest of the base is read-only only because guard cannot follow patterns).
		probe map[string]string
	}{
		{name: "nothing locked leaves nothing read-only", files: map[string]string{"a/x.go": ""}, want: []string{}},
		{name: "an exclusive lock makes its folder and its file read-only",
			files: map[string]string{"a/LOCK.txt": fresh, "b/x.go": ""}, want: []string{"a", "a/LOCK.txt"}},
		{name: "the caller's own lock leaves its folder and its file writable",
			files: map[string]string{"a/LOCK.txt": "owner: bob\ncreated: 2026-11-29T11:00:00\n"}, want: []string{}},
		{name: "a soft lock leaves its folder writable, not its file",
			files: map[string]string{"a/LOCK.txt": fresh + "mode: soft\n"}, want: []string{"a/LOCK.txt"}, warn: "soft lock"},
		{name: "the caller's own soft lock is its to remove",
			files: map[string]string{"a/LOCK.txt": "owner: bob\ncreated: 2026-11-29T11:00:00\nmode: soft\n"}, want: []string{}},
		{name: "the agents' settings that run guard's hook are read-only, other settings are not",
			files: map[string]string{".claude/settings.json": "{}", ".claude/settings.local.json": "{}", ".claude/settings.team.json": "{}",
				".gemini/settings.json": "{}", ".codex/hooks.json": "{}", ".codex/config.toml": "", "sub/.claude/settings.json": "{}",
				".vscode/settings.json": "{}", "cfg/config.toml": "", ".claude/agents/x.md": "", ".codex/hooks.json.bak": ""},
			want: []string{".claude", ".claude/settings.json", ".claude/settings.local.json", ".claude/settings.team.json", ".codex", ".codex/config.toml",
				".codex/hooks.json", ".gemini", ".gemini/settings.json", "sub/.claude/settings.json"}},
		{name: "an expired lock leaves its folder and its file writable",
			files: map[string]string{"a/LOCK.txt": "owner: alice\ncreated: 2020-01-01T00:00:00\n"}, want: []string{}},
		{name: "a team lock of another host is read-only",
			files: map[string]string{"a/LOCK.team.hostB.txt": fresh}, want: []string{"a", "a/LOCK.team.hostB.txt"}},
		{name: "a team lock of the caller's host is its team's: folder and file writable",
			files: map[string]string{"a/LOCK.team.hostA.txt": fresh}, want: []string{}},
		{name: "a user lock holds", files: map[string]string{"LOCK.user.txt": "owner: user\n"}, want: []string{".", "LOCK.user.txt"}},
		{name: "a condition lock holds", files: map[string]string{"c/LOCK.condition.txt": fresh + "release_condition: review\n"}, want: []string{"c", "c/LOCK.condition.txt"}},
		{name: "an until lock holds before its moment", files: map[string]string{"u/LOCK.until.txt": "owner: alice\nnot_before: 2026-12-24T00:00:00\n"}, want: []string{"u", "u/LOCK.until.txt"}},
		{name: "a lock for other operations only protects its file",
			files: map[string]string{"p/LOCK.txt": fresh + "operations: registry-upload\n"}, want: []string{"p/LOCK.txt"}},
		{name: "a scoped lock makes its folder read-only",
			files: map[string]string{"LOCK.frontend.txt": fresh, "frontend/app.js": "", "backend/x.go": ""}, want: []string{"LOCK.frontend.txt", "frontend"}},
		{name: "a dotted scope makes its nested folder read-only",
			files: map[string]string{"LOCK.assets.images.txt": fresh, "assets/images/a.png": ""}, want: []string{"LOCK.assets.images.txt", "assets/images"}},
		{name: "a scope without folder or mapping falls back to the whole directory",
			files: map[string]string{"d/LOCK.api.txt": fresh}, want: []string{"d", "d/LOCK.api.txt"}, warn: "fail closed"},
		{name: "a mapped scope makes the base of each glob read-only",
			files: map[string]string{".git/HEAD": "", ".guard.toml": "[scopes]\napi = [\"server/**/*.go\", \"docs/api.md\"]\n", "LOCK.api.txt": fresh},
			want:  []string{".guard.toml", "LOCK.api.txt", "docs/api.md", "server"}, probe: map[string]string{"server": "server/x/h.go"}},
		{name: "a glob that can match nothing adds no area",
			files: map[string]string{".git/HEAD": "", ".guard.toml": "[scopes]\napi = [\"../elsewhere\"]\n", "LOCK.api.txt": fresh},
			want:  []string{".guard.toml", "LOCK.api.txt"}},
		{name: "markers and permissions files are read-only",
			files: map[string]string{"PRIVATE.txt": "", "sub/PUBLIC.txt": "", "sub/LOCK.permissions.json": "{}", "x/lock.permissions.txt": "{}"},
			want:  []string{"PRIVATE.txt", "sub/LOCK.permissions.json", "sub/PUBLIC.txt", "x/lock.permissions.txt"}},
		{name: "markers in an area the caller locked itself are its own",
			files: map[string]string{"PRIVATE.txt": "", "mine/LOCK.txt": "owner: bob\ncreated: 2026-11-29T11:00:00\n", "mine/.guard.toml": "", "mine/sub/PUBLIC.txt": ""},
			want:  []string{"PRIVATE.txt"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for rel, body := range tc.files {
				write(t, filepath.Join(root, rel), body)
			}
			p := NewPolicy(testEnv(root), me)
			set := p.ReadOnlyAreas([]lockcore.ScanRoot{{Path: root, MaxDepth: 100}}, nil)
			assert.Equal(t, tc.want, areaPaths(t, root, set))
			if tc.warn != "" {
				assert.Contains(t, strings.Join(set.Warnings, "\n"), tc.warn)
			}
			// Every lock area is one Check refuses an edit in, by that lock.
			for _, a := range set.Areas {
				if a.Lock == nil || a.Path == a.Lock.Path {
					continue
				}
				probe := filepath.Join(a.Path, "new.txt")
				if rel, _ := filepath.Rel(root, a.Path); tc.probe[rel] != "" {
					probe = filepath.Join(root, tc.probe[rel])
				}
				dec, err := NewPolicy(testEnv(root), me).Check(Request{Paths: []string{probe}})
				require.NoError(t, err)
				require.False(t, dec.Allowed, "Check allows an edit in area %s", a.Path)
				assert.Equal(t, a.Lock.Path, dec.Blocking[0].Lock.Path)
			}
		})
	}
}

// The user-level copies of the agents' settings and the git hooks guard installed
// lie outside the project's scan; they are read-only all the same, the caller's own
// lock or not.
func TestReadOnlyAreasHoldTheUsersAgentSettingsAndGuardsHooks(t *testing.T) {
	base := t.TempDir()
	home, proj := filepath.Join(base, "home"), filepath.Join(base, "proj")
	for rel, body := range map[string]string{
		"home/.claude/settings.json": "{}", "home/.claude/projects/x.json": "", "home/.gemini/settings.json": "{}",
		"home/.codex/config.toml": "", "home/.cache/settings.json": "",
		"proj/.git/HEAD":                    "ref: refs/heads/main\n",
		"proj/.git/hooks/pre-commit":        "#!/bin/sh\n" + ManagedHookMarker + " written by `guard install`\nexec guard hook pre-commit\n",
		"proj/.git/hooks/pre-push":          ManagedHookMarker + "\n",
		"proj/.git/hooks/post-merge":        "#!/bin/sh\necho someone else's\n",
		"proj/.git/hooks/pre-commit.sample": "#!/bin/sh\n# " + ManagedHookMarker + " not at a line's start\n",
		"proj/LOCK.txt":                     "owner: bob\ncreated: 2026-11-29T11:00:00\n",
	} {
		write(t, filepath.Join(base, rel), body)
	}
	env := testEnv(proj)
	env.Getenv = func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	set := NewPolicy(env, Identity{Owner: "bob", Host: "hostA"}).ReadOnlyAreas([]lockcore.ScanRoot{{Path: proj, MaxDepth: 100}}, nil)
	assert.Equal(t, []string{"home/.claude/settings.json", "home/.codex/config.toml", "home/.gemini/settings.json",
		"proj/.git/hooks/pre-commit", "proj/.git/hooks/pre-push"}, areaPaths(t, base, set))
	assert.Contains(t, set.Areas[3].Reason, "pre-commit is a git hook guard installed (it runs guard's checks); a sandboxed command may not change it")
}

func TestControlFileIsTheOneList(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "hooks", "pre-push")
	write(t, hook, "#!/bin/sh\n"+ManagedHookMarker+" x\n")
	for path, want := range map[string]string{
		"/p/PRIVATE.txt":                       "a publication marker (it decides whether this project may be published)",
		"/p/public.txt":                        "a publication marker (it decides whether this project may be published)",
		"/p/LOCK.permissions.json":             "a permissions file (it says what agents may do here)",
		"/p/.GUARD.toml":                       "guard's configuration (it says which folders a scoped lock covers)",
		"/p/.claude/settings.json":             "an agent's settings file (it runs guard's hook)",
		"/p/.Claude/Settings.Local.json":       "an agent's settings file (it runs guard's hook)",
		"/p/.gemini/settings.json":             "an agent's settings file (it runs guard's hook)",
		"/p/.codex/hooks.json":                 "an agent's settings file (it runs guard's hook)",
		"/p/.codex/config.toml":                "an agent's settings file (it runs guard's hook)",
		hook:                                   "a git hook guard installed (it runs guard's checks)",
		"/p/.gemini/config.toml":               "",
		"/p/.claude":                           "",
		"/p/LOCK.txt":                          "",
		filepath.Join(dir, "hooks", "missing"): "",
	} {
		assert.Equal(t, want, ControlFile(path), path)
	}
	assert.True(t, IsAgentSettingsDir("/p/.codex"))
	assert.False(t, IsAgentSettingsDir("/p/.cache"))
}

func TestReadOnlyAreasLookAboveTheRootAndInOtherWorkingTrees(t *testing.T) {
	me := Identity{Owner: "bob", Host: "hostA"}
	base := t.TempDir()
	main := filepath.Join(base, "main")
	wt := filepath.Join(base, "wt")
	// A repository with one linked worktree, written the way git writes it.
	write(t, filepath.Join(main, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(main, ".git", "worktrees", "wt", "gitdir"), filepath.Join(wt, ".git")+"\n")
	write(t, filepath.Join(main, ".git", "worktrees", "wt", "commondir"), "../..\n")
	write(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(main, ".git", "worktrees", "wt")+"\n")
	write(t, filepath.Join(main, "api", "LOCK.txt"), fresh)
	write(t, filepath.Join(base, "LOCK.txt"), fresh+"operations: publish-release\n")
	p := NewPolicy(testEnv(wt), me)
	set := p.ReadOnlyAreas([]lockcore.ScanRoot{{Path: wt, MaxDepth: 100}}, nil)
	assert.Equal(t, []string{"LOCK.txt", "main/api", "main/api/LOCK.txt", "wt/api"}, areaPaths(t, base, set))
}

func TestReadOnlyAreasOfATeamLockAreTheOtherAgentsClaims(t *testing.T) {
	claims := "[agent-1] EDITING  order=000001 | src | docs/guide.md\n[agent-3] WAITING order=000002 | tests\n[agent-2] EDITING order=000003 | lib\n"
	dir, _ := teamLockWithClaims(t, claims)
	me := Identity{Owner: "agent-2", Host: "LAPTOP"}
	set := NewPolicy(testEnv(dir), me).ReadOnlyAreas([]lockcore.ScanRoot{{Path: dir, MaxDepth: 100}}, nil)
	assert.Equal(t, []string{"docs/guide.md", "src"}, areaPaths(t, dir, set))
	assert.Contains(t, set.Areas[0].Reason, "claimed by agent agent-1")
	// Another host is stopped by the whole lock.
	set = NewPolicy(testEnv(dir), Identity{Owner: "agent-2", Host: "other"}).ReadOnlyAreas([]lockcore.ScanRoot{{Path: dir, MaxDepth: 100}}, nil)
	assert.Equal(t, []string{".", "LOCK.team.LAPTOP.txt"}, areaPaths(t, dir, set))
}

func TestReadOnlyAreasTreatAnUnreadableFolderAsLocked(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder whatever its mode; the unprivileged case needs a non-root user")
	}
	root := t.TempDir()
	hidden := filepath.Join(root, "hidden")
	require.NoError(t, os.Mkdir(hidden, 0o000))
	t.Cleanup(func() { _ = os.Chmod(hidden, 0o755) })
	set := NewPolicy(testEnv(root), Identity{Owner: "bob"}).ReadOnlyAreas([]lockcore.ScanRoot{{Path: root, MaxDepth: 100}}, nil)
	assert.Equal(t, []string{"hidden"}, areaPaths(t, root, set))
}

func TestReadOnlySetSummarisesEachLockOnOneLine(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "a", "LOCK.txt"), fresh)
	write(t, filepath.Join(root, "p", "LOCK.txt"), fresh+"operations: registry-upload\n")
	write(t, filepath.Join(root, "PRIVATE.txt"), "")
	set := NewPolicy(testEnv(root), Identity{Owner: "bob"}).ReadOnlyAreas([]lockcore.ScanRoot{{Path: root, MaxDepth: 100}}, nil)
	var b bytes.Buffer
	set.Summary(&b)
	assert.Equal(t, "  "+filepath.Join(root, "PRIVATE.txt")+": "+filepath.Join(root, "PRIVATE.txt")+
		" is a publication marker; a sandboxed command may not add, change or remove what approves or refuses a publication\n"+
		"  "+filepath.Join(root, "a")+": exclusive lock "+filepath.Join(root, "a", "LOCK.txt")+" held by alice, until 2026-11-30 11:00: refactoring the parser\n"+
		"  lock file "+filepath.Join(root, "p", "LOCK.txt")+" belongs to alice; only its owner may change or remove it, until 2026-11-30 11:00: refactoring the parser\n",
		b.String())
}
