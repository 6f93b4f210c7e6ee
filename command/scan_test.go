package command_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"
)

var (
	cest = time.FixedZone("CEST", 2*3600)
	now  = time.Date(2026, 6, 15, 12, 0, 0, 0, cest)
)

// readEnv is a command environment rooted at dir with a pinned clock and identity.
func readEnv(dir string, vars map[string]string) (*guard.Env, *bytes.Buffer, *bytes.Buffer) {
	e := envtest.New(envtest.At(now), envtest.Identity("carol", "hostC"), envtest.Dir(dir), envtest.Vars(vars))
	return e.Env, e.Out, e.Err
}

// files creates files under root; a key ending in "/" is a directory.
func files(t *testing.T, root string, m map[string]string) {
	t.Helper()
	for rel, body := range m {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
}

// scanTree is a tree with an active, an expired, a legacy, a user and a too-deep lock.
func scanTree(t *testing.T) string {
	root := t.TempDir()
	mtime := time.Date(2026, 6, 15, 9, 30, 0, 0, cest)
	files(t, root, map[string]string{
		"a/LOCK.txt":              "owner: alice\ncreated: 2026-06-15T11:00:00\npurpose: refactor\n",
		"b/LOCK.api.txt":          "owner: bob\ncreated: 2026-06-13T11:00:00\n",
		"c/TEST.txt":              "",
		"d/LOCK.user.txt":         "owner: dana\ncreated: 2026-01-01\n",
		"e/f/g/h/i/LOCK.deep.txt": "owner: deep\ncreated: 2026-06-15T11:00:00\n",
		"node_modules/LOCK.txt":   "owner: nm\ncreated: 2026-06-15T11:00:00\n",
	})
	require.NoError(t, os.Chtimes(filepath.Join(root, "c", "TEST.txt"), mtime, mtime))
	return root
}

func TestRunScanText(t *testing.T) {
	root := scanTree(t)
	cases := []struct {
		name string
		opts command.ScanOptions
		want string
	}{
		{"active locks under the current directory, to depth 4", command.ScanOptions{}, "guard scan: 4 active lock(s):\n" +
			"  " + root + "/a/LOCK.txt\n      scope=project owner=alice created=2026-06-15T11:00 (header) remaining=23h00m\n      purpose: refactor\n" +
			"  " + root + "/c/TEST.txt [LEGACY]\n      scope=project owner=? created=2026-06-15T09:30 (mtime) remaining=legacy\n" +
			"  " + root + "/d/LOCK.user.txt [user]\n      scope=project owner=dana created=2026-01-01T00:00 (header) remaining=user-held (no time expiry)\n" +
			"  " + root + "/node_modules/LOCK.txt\n      scope=project owner=nm created=2026-06-15T11:00 (header) remaining=23h00m\n"},
		{"--all adds expired locks", command.ScanOptions{All: true, RootsInput: command.RootsInput{Roots: []string{"a", "b"}}}, "guard scan: 2 lock(s), 1 active:\n" +
			"  " + root + "/a/LOCK.txt\n      scope=project owner=alice created=2026-06-15T11:00 (header) remaining=23h00m\n      purpose: refactor\n" +
			"  " + root + "/b/LOCK.api.txt\n      scope=api owner=bob created=2026-06-13T11:00 (header) remaining=expired\n"},
		{"a ROOT is walked to depth 4", command.ScanOptions{RootsInput: command.RootsInput{Roots: []string{"e"}}}, "guard scan: 1 active lock(s):\n" +
			"  " + root + "/e/f/g/h/i/LOCK.deep.txt\n      scope=deep owner=deep created=2026-06-15T11:00 (header) remaining=23h00m\n"},
		{"--max-depth limits the walk", command.ScanOptions{RootsInput: command.RootsInput{Roots: []string{root + "/e"}, MaxDepth: 3}}, "guard scan: no active locks found.\n"},
		{"a root with only expired locks", command.ScanOptions{RootsInput: command.RootsInput{Roots: []string{"b"}}}, "guard scan: no active locks found.\n"},
	}
	// A ROOT that was typed and does not exist is an error (a mistyped path must not
	// read as "no locks": free); the roots of a roots file that do not exist are
	// skipped, as the reference does.
	t.Run("a missing ROOT is a usage error", func(t *testing.T) {
		env, out, _ := readEnv(root, nil)
		err := command.RunScan(command.ScanOptions{Env: env, All: true, RootsInput: command.RootsInput{Roots: []string{"nowhere"}}})
		assert.Equal(t, 2, exitcode.Of(err))
		assert.EqualError(t, err, "ROOT nowhere: no such directory")
		assert.Empty(t, out.String())
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, out, errb := readEnv(root, nil)
			c.opts.Env = env
			require.NoError(t, command.RunScan(c.opts))
			assert.Equal(t, c.want, out.String())
			assert.Empty(t, errb.String())
		})
	}
}

func TestRunScanJSONIsOneSortedArray(t *testing.T) {
	root := scanTree(t)
	env, out, errb := readEnv(root, nil)
	require.NoError(t, command.RunScan(command.ScanOptions{Env: env, All: true, JSON: true}))
	var locks []map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &locks), out.String())
	var paths []string
	for _, l := range locks {
		paths = append(paths, l["path"].(string))
	}
	assert.Equal(t, []string{root + "/a/LOCK.txt", root + "/b/LOCK.api.txt", root + "/c/TEST.txt", root + "/d/LOCK.user.txt", root + "/node_modules/LOCK.txt"}, paths)
	assert.Equal(t, true, locks[1]["expired"])
	assert.Equal(t, "legacy", locks[2]["kind"])
	assert.Equal(t, "2026-06-15T11:00:00+02:00", locks[0]["created"])
	assert.Equal(t, "2026-06-16T11:00:00+02:00", locks[0]["expires_at"])
	assert.Empty(t, errb.String())

	env, out, _ = readEnv(t.TempDir(), nil)
	require.NoError(t, command.RunScan(command.ScanOptions{Env: env, JSON: true}))
	assert.Equal(t, "[]\n", out.String(), "no locks is an empty array, not null")
}

func TestRunScanRootsFile(t *testing.T) {
	root := scanTree(t)
	files(t, root, map[string]string{
		"cfg/roots.json": `{"skip_dirs": ["Node_Modules"], "roots": [{"path": "$TREE"}, {"path": "~/e", "shallow": true}]}`,
		"cfg/bad.json":   "{\n  \"roots\": [\n    {\"path\": \"/x\"}}\n  ]\n}\n",
	})
	env, out, errb := readEnv(filepath.Join(root, "cfg"), map[string]string{"TREE": root, "HOME": root})
	require.NoError(t, command.RunScan(command.ScanOptions{Env: env, JSON: true, RootsInput: command.RootsInput{RootsFile: "roots.json"}}))
	assert.Empty(t, errb.String())
	var locks []lockcore.JSON
	require.NoError(t, json.Unmarshal(out.Bytes(), &locks))
	var names []string
	for _, l := range locks {
		names = append(names, strings.TrimPrefix(l.Path, root+"/"))
	}
	assert.Equal(t, []string{"a/LOCK.txt", "c/TEST.txt", "d/LOCK.user.txt"}, names, "skip_dirs apply, the shallow root stops at depth 2")

	env, _, _ = readEnv(filepath.Join(root, "cfg"), nil)
	err := command.RunScan(command.ScanOptions{Env: env, RootsInput: command.RootsInput{RootsFile: "bad.json"}})
	assert.Equal(t, 2, exitcode.Of(err))
	assert.ErrorContains(t, err, filepath.Join(root, "cfg", "bad.json")+":3:")

	err = command.RunScan(command.ScanOptions{Env: env, RootsInput: command.RootsInput{RootsFile: "missing.json"}})
	assert.Equal(t, 2, exitcode.Of(err))
	assert.ErrorContains(t, err, "missing.json")
}

func TestRunScanUsesTheRootsFileOfGuardToml(t *testing.T) {
	root := scanTree(t)
	files(t, root, map[string]string{
		"repo/.git/":           "",
		"repo/.guard.toml":     "roots_file = \"conf/roots.json\"\n",
		"repo/conf/roots.json": `{"roots": [{"path": "` + root + `/d"}]}`,
		"bad/.git/":            "",
		"bad/.guard.toml":      "roots_file = \n",
	})
	env, out, _ := readEnv(filepath.Join(root, "repo"), nil)
	require.NoError(t, command.RunScan(command.ScanOptions{Env: env}))
	assert.Equal(t, "guard scan: 1 active lock(s):\n  "+root+"/d/LOCK.user.txt [user]\n"+
		"      scope=project owner=dana created=2026-01-01T00:00 (header) remaining=user-held (no time expiry)\n", out.String())

	env, _, _ = readEnv(filepath.Join(root, "bad"), nil)
	err := command.RunScan(command.ScanOptions{Env: env})
	assert.Equal(t, 2, exitcode.Of(err), "a malformed .guard.toml is exit 2")
	assert.ErrorContains(t, err, ".guard.toml:1")
}

func TestRunScanWriteCache(t *testing.T) {
	root := scanTree(t)
	cache := filepath.Join(root, "out", "sub", "A.md")
	files(t, root, map[string]string{
		"cfg/caches.json": `{"roots": [{"path": "` + root + `"}], "caches": [{"name": "team a", "path": "` + cache + `", "filter_prefix": "` + root + `/a/"}]}`,
		"cfg/plain.json":  `{"roots": [{"path": "` + root + `/a"}]}`,
	})
	env, out, errb := readEnv(root, nil)
	require.NoError(t, command.RunScan(command.ScanOptions{Env: env, WriteCache: true, RootsInput: command.RootsInput{RootsFile: "cfg/caches.json"}}))
	assert.True(t, strings.HasSuffix(out.String(), "guard scan --write-cache: "+cache+" (1 active lock(s))\n"), out.String())
	assert.Empty(t, errb.String())
	got, err := os.ReadFile(cache)
	require.NoError(t, err)
	assert.Equal(t, "<!-- AUTO-GENERATED by lock_scan.py --write-cache. DO NOT edit manually. The authoritative source is the LOCK*.txt files themselves. -->\n\n"+
		"# LOCK-CACHE \u2014 team a\n\nAs of: 2026-06-15T12:00:00\n\nActive locks: 1\n\n"+
		"| Path | scope | owner | created | remaining |\n|---|---|---|---|---|\n"+
		"| "+root+"/a/LOCK.txt | project | alice | 2026-06-15T11:00 | 23h00m |\n", string(got))

	env, out, errb = readEnv(root, nil)
	require.NoError(t, command.RunScan(command.ScanOptions{Env: env, WriteCache: true, JSON: true, RootsInput: command.RootsInput{RootsFile: "cfg/plain.json"}}))
	var arr []any
	require.NoError(t, json.Unmarshal(out.Bytes(), &arr), "with --json stdout holds only the JSON")
	def := filepath.Join(root, "cfg", "LOCK-CACHE.md")
	assert.Equal(t, "guard scan --write-cache: "+def+" (1 active lock(s))\n", errb.String())
	got, err = os.ReadFile(def)
	require.NoError(t, err)
	assert.Contains(t, string(got), "# LOCK-CACHE (all roots)\n", "without caches one file goes beside the roots file")
}

func TestRunScanReportsARootItCannotReadAndGoesOn(t *testing.T) {
	root := scanTree(t)
	loop := filepath.Join(root, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	env, out, errb := readEnv(root, nil)
	require.NoError(t, command.RunScan(command.ScanOptions{Env: env, RootsInput: command.RootsInput{Roots: []string{"loop", "a"}}}))
	assert.Equal(t, "guard scan: could not read "+loop+": too many levels of symbolic links (skipped)\n", errb.String())
	assert.Contains(t, out.String(), "guard scan: 1 active lock(s):\n  "+root+"/a/LOCK.txt\n")
}
