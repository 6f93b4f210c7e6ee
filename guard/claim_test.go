package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

func TestWaitersOverlapAsRespectJudgesTheirLocks(t *testing.T) {
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	for _, d := range []string{"web", "api", "sub/deep", "mapped"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	write(t, filepath.Join(root, "mapped", ".guard.toml"), "[scopes]\nfront = [\"ui/**\"]\nback = [\"server/**\"]\n")
	p := NewPolicy(testEnv(root), Identity{Owner: "me", Host: "hostA"})
	claim := func(dir, scope string) lockcore.QueueClaim {
		return lockcore.ClaimOf(lockcore.Spec{Dir: filepath.Join(root, dir), Kind: lockcore.Exclusive, Scope: scope, Owner: "x"}, testNow)
	}
	res := func(uri string) lockcore.QueueClaim {
		return lockcore.ClaimOf(lockcore.Spec{Dir: filepath.Join(root, "res"), Kind: lockcore.Exclusive, Scope: lockcore.ResourceSlug(uri), Owner: "x", Resource: uri}, testNow)
	}
	for _, tc := range []struct {
		name string
		a, b lockcore.QueueClaim
		want bool
	}{
		{"the same lock", claim(".", ""), claim(".", ""), true},
		{"a scope and the whole folder", claim(".", "web"), claim(".", ""), true},
		{"two scopes with folders of their own", claim(".", "web"), claim(".", "api"), false},
		{"a scope without folder or mapping covers all (fail closed)", claim(".", "nowhere"), claim(".", "api"), true},
		{"mapped scopes that do not meet", claim("mapped", "front"), claim("mapped", "back"), false},
		{"the folder above reaches the one below", claim(".", ""), claim("sub/deep", ""), true},
		{"a scope above that does not reach below", claim(".", "web"), claim("sub/deep", ""), false},
		{"separate folders", claim("web", ""), claim("api", ""), false},
		{"two resources", res("db://a"), res("db://b"), false},
		{"one resource", res("db://a"), res("db://a"), true},
	} {
		assert.Equal(t, tc.want, p.WaitersOverlap(tc.a, tc.b), tc.name)
		assert.Equal(t, tc.want, p.WaitersOverlap(tc.b, tc.a), tc.name+" (the other way round)")
	}
}
