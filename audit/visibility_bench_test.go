package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkPushVisibility measures what the pre-push visibility check adds: no
// PRIVATE.txt (the marker lookup only), PRIVATE.txt with a cached answer, and
// PRIVATE.txt asking a local API server every time (the cache removed).
func BenchmarkPushVisibility(b *testing.B) {
	gh := newFakeGitHub(b, "/api/v3/")
	gh.users["acme"] = "Organization"
	gh.repos["acme"] = []fakeRepo{{"closed", "private"}}
	host := strings.Split(strings.TrimPrefix(gh.srv.URL, "http://"), ":")[0]
	vars := map[string]string{"GITHUB_API_URL": gh.srv.URL + "/api/v3/"}
	url := "git@" + host + ":acme/closed.git"

	for _, tc := range []struct {
		name    string
		private bool
		cache   bool
	}{{"no PRIVATE.txt", false, true}, {"PRIVATE.txt, cached", true, true}, {"PRIVATE.txt, asking the API", true, false}} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
				b.Fatal(err)
			}
			if tc.private {
				if err := os.WriteFile(filepath.Join(dir, "PRIVATE.txt"), nil, 0o644); err != nil {
					b.Fatal(err)
				}
			}
			env, _, _ := testEnv(dir, vars)
			opts := VisibilityOptions{Env: env, Dir: dir, RemoteURL: url, Timeout: time.Second}
			cache := filepath.Join(dir, ".git", "guard", "visibility.json")
			b.ResetTimer()
			for range b.N {
				if !tc.cache {
					os.Remove(cache)
				}
				if w, err := PushVisibility(context.Background(), opts); w != "" || err != nil {
					b.Fatal(w, err)
				}
			}
		})
	}
}
