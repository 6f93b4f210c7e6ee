package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kernelPathsTree builds a tree where the lexical reading of a path and the kernel's
// differ:
//
//	locked/LOCK.txt      alice's lock
//	locked/x/            a folder inside it
//	free/sub -> ../locked/x
//	free/dl  -> ../locked/new.go   dangling: a write through it creates locked/new.go
//	free/loop -> loop              a link to itself
func kernelPathsTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "locked", "x"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "free"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "locked", "LOCK.txt"), []byte("owner: alice\ncreated: 2026-11-29T11:00:00\npurpose: migration\n"), 0o644))
	require.NoError(t, os.Symlink("../locked/x", filepath.Join(root, "free", "sub")))
	require.NoError(t, os.Symlink("../locked/new.go", filepath.Join(root, "free", "dl")))
	require.NoError(t, os.Symlink("loop", filepath.Join(root, "free", "loop")))
	return root
}

type checkJSON struct {
	Op       string `json:"op"`
	Allowed  bool   `json:"allowed"`
	Blocking []struct {
		Path string `json:"path"`
		Lock struct {
			Path string `json:"path"`
		} `json:"lock"`
		Reason string `json:"reason"`
	} `json:"blocking"`
}

func TestCheckJudgesAPathWhereTheKernelResolvesIt(t *testing.T) {
	root := kernelPathsTree(t)
	lock := filepath.Join(root, "locked", "LOCK.txt")
	cases := []struct {
		name, path, blocked string
	}{
		{"free/sub/../a.go is the locked folder's a.go: .. applies to where sub points", "free/sub/../a.go", filepath.Join(root, "locked", "a.go")},
		{"an absolute spelling is resolved the same way", root + "/free/sub/../a.go", filepath.Join(root, "locked", "a.go")},
		{"a dangling link is judged as its target, which a write creates", "free/dl", filepath.Join(root, "free", "dl")},
		{"a dangling link reached through .. is judged as its target", "free/sub/../../free/dl", filepath.Join(root, "free", "dl")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env, out, errb := checkEnv(root, nil)
			err := RunCheck(CheckOptions{Env: env, JSON: true, Paths: []string{tc.path}})
			require.Equal(t, exitcode.Refused, exitcode.Of(err), "stderr: %s", errb)
			var got checkJSON
			require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
			assert.Equal(t, "edit", got.Op)
			assert.False(t, got.Allowed)
			require.Len(t, got.Blocking, 1)
			assert.Equal(t, tc.blocked, got.Blocking[0].Path)
			assert.Equal(t, lock, got.Blocking[0].Lock.Path)
			assert.Equal(t, "exclusive lock "+lock+" held by alice", got.Blocking[0].Reason)
		})
	}
	t.Run("the lexical twin free/a.go stays allowed", func(t *testing.T) {
		env, _, errb := checkEnv(root, nil)
		assert.Equal(t, 0, exitcode.Of(RunCheck(CheckOptions{Env: env, Paths: []string{"free/a.go"}})), "stderr: %s", errb)
	})
	t.Run("a loop of links is not judged: exit 2 naming the path", func(t *testing.T) {
		env, out, _ := checkEnv(root, nil)
		err := RunCheck(CheckOptions{Env: env, JSON: true, Paths: []string{"free/loop/../a.go"}})
		assert.Equal(t, exitcode.Usage, exitcode.Of(err))
		assert.EqualError(t, err, "check: resolve "+filepath.Join(root, "free", "a.go")+": more than 40 symbolic links on the way: too many levels of symbolic links")
		assert.Empty(t, out.String())
	})
}

func TestStatusAndLockNameTheFolderTheKernelReaches(t *testing.T) {
	root := kernelPathsTree(t)
	lock := filepath.Join(root, "locked", "LOCK.txt")
	t.Run("status free/sub/.. is the locked folder's status", func(t *testing.T) {
		env, out, errb := checkEnv(root, nil)
		err := RunStatus(StatusOptions{Env: env, Dir: "free/sub/..", JSON: true})
		require.Equal(t, exitcode.Refused, exitcode.Of(err), "stderr: %s", errb)
		var got StatusJSON
		require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
		assert.Equal(t, filepath.Join(root, "locked"), got.Dir)
		require.Len(t, got.Locks, 1)
		assert.Equal(t, lock, got.Locks[0].Path)
	})
	t.Run("lock free/sub/.. claims the folder the kernel reaches, where alice's lock is", func(t *testing.T) {
		env, out, errb := checkEnv(root, nil)
		err := RunLock(t.Context(), LockOptions{Env: env, Dir: "free/sub/.."})
		assert.Equal(t, exitcode.Refused, exitcode.Of(err), "stdout: %s stderr: %s", out, errb)
		assert.ErrorContains(t, err, "lock refused: "+lock+" is held by alice")
		assert.NoFileExists(t, filepath.Join(root, "free", "LOCK.txt"), "the lexical folder is not locked")
	})
}
