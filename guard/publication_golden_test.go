package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
)

// TestPublicationRefusalsMatchTheGoldenFiles pins the full text a person or agent
// reads when a marker refuses a publication (temporary paths written as $ROOT). Lock
// refusals are Decision.Explain's and pinned with it.
func TestPublicationRefusalsMatchTheGoldenFiles(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		op    string
		cfg   *Config
	}{
		{"private", map[string]string{"PRIVATE.txt": "Internal until the security review is done.\nOwner: carol@example.com\n"}, "registry-upload", nil},
		{"private-empty", map[string]string{"PRIVATE.txt": ""}, "visibility-public", nil},
		{"both", map[string]string{"../PUBLIC.txt": "check: npm test\n", "PRIVATE.txt": "Not yet.\n"}, "publish-release", nil},
		{"none", map[string]string{}, "registry-upload", nil},
		{"require-public", map[string]string{}, "registry-upload", &Config{Path: "/repo/.guard.toml", Publish: PublishConfig{RequirePublic: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "pkg")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			for p, c := range tc.files {
				write(t, filepath.Join(dir, p), c)
			}
			cfg := tc.cfg
			if cfg == nil {
				cfg = &Config{}
			}
			d, err := CheckPublication(NewPolicy(testEnv(root), Identity{Owner: "bob", Host: "hostA"}), dir, tc.op, cfg)
			require.NoError(t, err)
			var out bytes.Buffer
			d.Explain(&out)
			got := strings.ReplaceAll(out.String(), root, "$ROOT")
			golden := filepath.Join("testdata", "publication", tc.name+".golden")
			guardtest.Golden(t, golden, got)
		})
	}
}
