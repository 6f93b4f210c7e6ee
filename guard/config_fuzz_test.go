package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadConfig: no .guard.toml makes the loader panic, and every error names the
// file (and, for syntax errors, a line that exists).
func FuzzLoadConfig(f *testing.F) {
	f.Add("owner = \"alice\"\n[scopes]\napi = [\"server/**\"]\n[publish.commands]\n\"make release\" = \"publish-release\"\n")
	f.Add("owner = 5\n")
	f.Add("[scopes\n")
	f.Add("[github]\nowners = [\"a\", 1]\n")
	f.Add("[server]\nvisibility = \"public\"\npusher_env = \"GUARD_PUSHER\"\nbypass_users = [\"carol\"]\n[server.owners]\nbob = \"robert\"\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(dir, ConfigFileName)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadConfig(p)
		if err != nil && !strings.Contains(err.Error(), p) {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}
