package hooks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 4, item 3: a foreign pre-push hook that was there before guard is kept, still
// run with git's stdin, fails the push when it fails (even when guard allows it), and
// comes back byte for byte on uninstall.
func TestAForeignPrePushHookStillDecides(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := w.repo()
	bare := w.remote(dir)
	hook := filepath.Join(dir, ".git", "hooks", "pre-push")
	original := "#!/bin/sh\n# the team's own pre-push check\nwhile read l; do echo \"$l\" >> \"$(git rev-parse --git-dir)/foreign-stdin\"; done\n[ -z \"$FOREIGN_FAIL\" ] || { echo 'foreign check failed' >&2; exit 1; }\n"
	require.NoError(t, os.WriteFile(hook, []byte(original), 0o755))
	w.install(dir)

	write(t, dir, "free/a", "x\n")
	w.git(dir, "add", "free/a")
	w.commitNoVerify(dir, "free")
	before := w.remoteRef(bare, "refs/heads/main")

	r := w.gitCode(dir, []string{"FOREIGN_FAIL=1"}, "push", "origin", "main")
	assert.NotEqual(t, 0, r.code, "the foreign hook failed, so the push fails although guard allows it")
	assert.Contains(t, r.stderr, "foreign check failed")
	assert.Equal(t, before, w.remoteRef(bare, "refs/heads/main"))
	stdin, err := os.ReadFile(filepath.Join(dir, ".git", "foreign-stdin"))
	require.NoError(t, err)
	assert.Regexp(t, `^refs/heads/main [0-9a-f]{40} refs/heads/main [0-9a-f]{40}\n$`, string(stdin))

	r = w.gitCode(dir, nil, "push", "-q", "origin", "main")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, w.git(dir, "rev-parse", "HEAD"), w.remoteRef(bare, "refs/heads/main"))

	r = w.guard(dir, "uninstall")
	require.Equal(t, 0, r.code, r.stderr)
	got, err := os.ReadFile(hook)
	require.NoError(t, err)
	assert.Equal(t, original, string(got), "the foreign hook is restored as it was")
	st, err := os.Stat(hook)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&0o100, "and stays executable")
}
