package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAuditAndPushResolveSSHHostAliases(t *testing.T) {
	gh := newFakeGitHub(t, "/api/v3/")
	gh.users["acme"] = "Organization"
	gh.repos["acme"] = []fakeRepo{{"open", "public"}}
	host := strings.Split(strings.TrimPrefix(gh.srv.URL, "http://"), ":")[0]
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte("Host work\n  HostName "+host+"\n"), 0o600))
	dir := t.TempDir()
	clone := gitClone(t, filepath.Join(dir, "open"), "git@work:acme/open.git", "PRIVATE.txt")
	vars := map[string]string{"HOME": home, "GITHUB_API_URL": gh.apiURL()}

	r := runAudit(t, dir, vars, Options{Owners: []string{"acme"}, JSON: true})
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, []row{{"acme/open", "public", clone, "PRIVATE.txt", VerdictViolation}}, rows(decodeReport(t, r.stdout)))

	v := pushCheck(t, clone, "git@work:acme/open.git", vars, pinned, time.Second)
	assert.Equal(t, 1, v.code)
	assert.Contains(t, v.msg, "acme/open is PUBLIC on "+host)
}
