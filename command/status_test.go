package command_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/command"
)

func TestRunStatus(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{
		"locked/LOCK.txt":      "owner: alice\ncreated: 2026-06-15T11:00:00\n",
		"locked/deep/er/":      "",
		"stale/LOCK.txt":       "owner: bob\ncreated: 2026-06-01T11:00:00\n",
		"free/":                "",
		"a-file":               "",
		"scoped/LOCK.docs.txt": "owner: sue\ncreated: 2026-06-15T11:00:00\n",
		"scoped/docs/":         "",
		"scoped/src/":          "",
	})
	lock := filepath.Join(root, "locked", "LOCK.txt")
	cases := []struct {
		name string
		dir  string
		cwd  string
		code int
		out  string
	}{
		{"a directory without locks is free", "free", root, 0, "guard status: " + root + "/free is free\n"},
		{"an expired lock leaves it free", "stale", root, 0, "guard status: " + root + "/stale is free\n"},
		{"a lock in the directory locks it", "locked", root, 1, "guard status: 1 active lock(s) cover " + root + "/locked:\n  " + lock +
			"\n      scope=project owner=alice created=2026-06-15T11:00 (header) remaining=23h00m\n"},
		{"a lock above the directory locks it", "deep/er", filepath.Join(root, "locked"), 1, "guard status: 1 active lock(s) cover " + root + "/locked/deep/er:\n  " + lock +
			"\n      scope=project owner=alice created=2026-06-15T11:00 (header) remaining=23h00m\n"},
		{"DIR defaults to the current directory", "", filepath.Join(root, "locked", "deep"), 1, "guard status: 1 active lock(s) cover " + root + "/locked/deep:\n  " + lock +
			"\n      scope=project owner=alice created=2026-06-15T11:00 (header) remaining=23h00m\n"},
		{"a scoped lock covers its folder", "scoped/docs", root, 1, ""},
		{"a scoped lock leaves other folders free", "scoped/src", root, 0, "guard status: " + root + "/scoped/src is free\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, out, _ := readEnv(c.cwd, nil)
			err := command.RunStatus(command.StatusOptions{Env: env, Dir: c.dir})
			assert.Equal(t, c.code, exitcode.Of(err))
			if c.out != "" {
				assert.Equal(t, c.out, out.String())
			}
		})
	}

	for _, bad := range []string{"missing", "a-file"} {
		t.Run(bad+" is a usage error", func(t *testing.T) {
			env, out, _ := readEnv(root, nil)
			err := command.RunStatus(command.StatusOptions{Env: env, Dir: bad})
			assert.Equal(t, 2, exitcode.Of(err))
			assert.ErrorContains(t, err, filepath.Join(root, bad))
			assert.Empty(t, out.String())
		})
	}
}

func TestRunStatusJSON(t *testing.T) {
	root := t.TempDir()
	files(t, root, map[string]string{"LOCK.team.web.h9.txt": "owner: tim\ncreated: 2026-06-15T11:00:00\n", "sub/": ""})
	env, out, _ := readEnv(root, nil)
	err := command.RunStatus(command.StatusOptions{Env: env, Dir: "sub", JSON: true})
	assert.Equal(t, 1, exitcode.Of(err))
	var got struct {
		Dir    string           `json:"dir"`
		Locked bool             `json:"locked"`
		Locks  []map[string]any `json:"locks"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
	assert.Equal(t, filepath.Join(root, "sub"), got.Dir)
	assert.True(t, got.Locked)
	require.Len(t, got.Locks, 1)
	assert.Equal(t, filepath.Join(root, "LOCK.team.web.h9.txt"), got.Locks[0]["path"])
	assert.Equal(t, "team", got.Locks[0]["kind"])
	assert.Equal(t, "h9", got.Locks[0]["host"])

	free := t.TempDir()
	env, out, _ = readEnv(free, nil)
	require.NoError(t, command.RunStatus(command.StatusOptions{Env: env, JSON: true}))
	assert.JSONEq(t, `{"dir": "`+free+`", "locked": false, "ok": true, "locks": []}`, out.String())
}
