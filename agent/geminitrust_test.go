package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
)

// geminiTrusts reads trustedFolders.json as Gemini CLI 0.61 does: the longest rule
// that covers the folder wins, TRUST_PARENT covers its parent, comments are allowed,
// and folder trust turned off in the user's settings trusts everything.
func TestGeminiTrusts(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	for _, d := range []string{"work/a", "work/b/c", "other"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	env := envtest.New(envtest.Vars(map[string]string{"HOME": home})).Env
	write := func(rel, body string) {
		p := filepath.Join(home, ".gemini", rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	ok, _ := geminiTrusts(env, filepath.Join(root, "work", "a"))
	assert.False(t, ok, "no file: not trusted")
	write("trustedFolders.json", `{
  // the user's answers
  "`+filepath.Join(root, "work", "a")+`": "TRUST_PARENT",
  "`+filepath.Join(root, "work", "b", "c")+`": "DO_NOT_TRUST" /* no */
}`)
	for rel, want := range map[string]bool{"work/a": true, "work/b": true, "work/b/c": false, "work": true, "other": false} {
		ok, _ := geminiTrusts(env, filepath.Join(root, rel))
		assert.Equal(t, want, ok, rel)
	}
	write("settings.json", `{"security": {"folderTrust": {"enabled": false}}}`)
	ok, _ = geminiTrusts(env, filepath.Join(root, "other"))
	assert.True(t, ok, "folder trust off")
}
