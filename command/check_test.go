package command

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"
)

func checkEnv(dir string, vars map[string]string) (*guard.Env, *bytes.Buffer, *bytes.Buffer) {
	e := envtest.New(envtest.Identity("bob", "hostA"), envtest.Dir(dir), envtest.Vars(vars))
	return e.Env, e.Out, e.Err
}

func TestRunCheck(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "locked"), 0o755))
	lock := filepath.Join(root, "locked", "LOCK.txt")
	require.NoError(t, os.WriteFile(lock, []byte("owner: alice\ncreated: 2026-11-29T11:00:00\npurpose: migration\noperations: commit, push\n"), 0o644))

	cases := []struct {
		name     string
		opts     CheckOptions
		vars     map[string]string
		code     int
		stderr   string
		allowedJ *bool
	}{
		{name: "a free path is allowed with exit 0", opts: CheckOptions{Paths: []string{"free/a.go"}}, code: 0},
		{name: "edit is not among the lock's operations", opts: CheckOptions{Paths: []string{"locked/a.go"}}, code: 0},
		{name: "commit is refused with exit 1 naming the lock", opts: CheckOptions{Op: "commit", Paths: []string{"locked/a.go"}}, code: 1, stderr: lock},
		{name: "the owner flag exempts the owner", opts: CheckOptions{Op: "commit", Owner: "alice", Paths: []string{"locked/a.go"}}, code: 0},
		{name: "GUARD_OWNER exempts the owner", opts: CheckOptions{Op: "commit", Paths: []string{"locked/a.go"}}, vars: map[string]string{"GUARD_OWNER": "alice"}, code: 0},
		{name: "no path is a usage error", opts: CheckOptions{}, code: 2},
		{name: "a dangling LOCK_FENCE is refused", opts: CheckOptions{Paths: []string{"free/a.go"}}, vars: map[string]string{"LOCK_FENCE": "12"}, code: 1, stderr: "LOCK_FENCE_FILE is not"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errb := checkEnv(root, tc.vars)
			tc.opts.Env = env
			err := RunCheck(tc.opts)
			assert.Equal(t, tc.code, exitcode.Of(err), "stderr: %s", errb)
			if tc.stderr != "" {
				assert.Contains(t, errb.String(), tc.stderr)
			}
		})
	}
}

func TestRunCheckJSON(t *testing.T) {
	root := t.TempDir()
	lock := filepath.Join(root, "LOCK.condition.txt")
	require.NoError(t, os.WriteFile(lock, []byte("owner: alice\ncreated: 2026-11-29T11:00:00\nrelease_condition: review signed off\noperations: registry-upload\n"), 0o644))
	env, out, _ := checkEnv(root, nil)
	err := RunCheck(CheckOptions{Env: env, Op: "registry-upload", JSON: true, Paths: []string{"pkg"}})
	assert.Equal(t, 1, exitcode.Of(err))

	var got struct {
		Op       string `json:"op"`
		Allowed  bool   `json:"allowed"`
		Blocking []struct {
			Path   string        `json:"path"`
			Lock   lockcore.JSON `json:"lock"`
			Reason string        `json:"reason"`
		} `json:"blocking"`
		Warnings []string `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
	assert.Equal(t, "registry-upload", got.Op)
	assert.False(t, got.Allowed)
	require.Len(t, got.Blocking, 1)
	b := got.Blocking[0]
	assert.Equal(t, filepath.Join(root, "pkg"), b.Path)
	assert.Equal(t, lock, b.Lock.Path)
	assert.Equal(t, lockcore.Condition, b.Lock.Kind)
	assert.Equal(t, "review signed off", b.Lock.ReleaseCondition)
	assert.Equal(t, []string{"registry-upload"}, b.Lock.Operations)
	assert.Nil(t, b.Lock.ExpiresAt)
	assert.False(t, b.Lock.Expired)
	assert.Equal(t, "2026-11-29T11:00:00Z", b.Lock.Created)
	assert.Equal(t, "header", b.Lock.CreatedSource)
	require.Len(t, got.Warnings, 1, "no marker approved the upload")
	assert.Contains(t, got.Warnings[0], "nothing approved publishing "+root)
}

func TestRunCheckOfAPublicationOpAppliesTheMarkers(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "PRIVATE.txt"), []byte("until legal signs off\n"), 0o644))
	env, _, errb := checkEnv(root, nil)
	err := RunCheck(CheckOptions{Env: env, Op: "registry-upload", Paths: []string{"."}})
	assert.Equal(t, 1, exitcode.Of(err))
	assert.Contains(t, errb.String(), filepath.Join(root, "PRIVATE.txt"))
	assert.Contains(t, errb.String(), "until legal signs off")

	env, _, errb = checkEnv(root, nil)
	err = RunCheck(CheckOptions{Env: env, Op: "edit", Paths: []string{"."}})
	assert.Equal(t, 0, exitcode.Of(err), "markers only concern publication: %s", errb)

	require.NoError(t, os.Remove(filepath.Join(root, "PRIVATE.txt")))
	env, _, errb = checkEnv(root, nil)
	err = RunCheck(CheckOptions{Env: env, Op: "publish-release", Paths: []string{"."}})
	assert.Equal(t, 0, exitcode.Of(err))
	assert.Contains(t, errb.String(), "nothing approved publishing")
}
