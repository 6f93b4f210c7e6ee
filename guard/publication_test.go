package guard

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckPublication(t *testing.T) {
	me := Identity{Owner: "bob", Host: "hostA"}
	cases := []struct {
		name     string
		files    map[string]string
		op       string
		cfg      *Config
		allowed  bool
		explain  []string // substrings of Explain's text
		warnings int
	}{
		{name: "PRIVATE.txt refuses a registry upload and shows its conditions",
			files: map[string]string{"pkg/PRIVATE.txt": "Not before the security review.\nAsk carol.\n"}, op: "registry-upload",
			explain: []string{"refused registry-upload of ", "/pkg/PRIVATE.txt marks this project private", "    | Not before the security review.\n    | Ask carol.\n", "what now:"}},
		{name: "PRIVATE.txt above the project refuses a release",
			files: map[string]string{"PRIVATE.txt": "", "pkg/x": ""}, op: "publish-release",
			explain: []string{"refused publish-release", "is empty: it states no conditions"}},
		{name: "PRIVATE.txt refuses making the repository public",
			files: map[string]string{"pkg/PRIVATE.txt": "internal only"}, op: "visibility-public",
			explain: []string{"refused visibility-public", "| internal only"}},
		{name: "both markers fail closed and say both are present",
			files: map[string]string{"pkg/PRIVATE.txt": "wait", "pkg/PUBLIC.txt": "check: true"}, op: "registry-upload",
			explain: []string{"both PRIVATE.txt and PUBLIC.txt are present", "PRIVATE.txt wins", "| wait"}},
		{name: "PUBLIC.txt allows", files: map[string]string{"pkg/PUBLIC.txt": "check: true"}, op: "registry-upload", allowed: true},
		{name: "no marker allows with a warning", files: map[string]string{"pkg/x": ""}, op: "registry-upload", allowed: true, warnings: 1,
			explain: []string{"warning: nothing approved publishing"}},
		{name: "no marker refuses under require_public", files: map[string]string{"pkg/x": ""}, op: "registry-upload",
			cfg: &Config{Publish: PublishConfig{RequirePublic: true}}, explain: []string{"no PUBLIC.txt approves publishing it", "require_public = true"}},
		{name: "a condition lock for registry-upload refuses npm publish and shows its release condition",
			files: map[string]string{"pkg/PUBLIC.txt": "", "pkg/LOCK.condition.txt": fresh + "release_condition: legal signs off the license\noperations: registry-upload\n"},
			op:    "registry-upload", explain: []string{"LOCK.condition.txt", "legal signs off the license"}},
		{name: "a condition lock for registry-upload lets a release pass",
			files: map[string]string{"pkg/PUBLIC.txt": "", "pkg/LOCK.condition.txt": fresh + "release_condition: legal\noperations: registry-upload\n"},
			op:    "publish-release", allowed: true},
		{name: "a lock inside the project refuses publishing all of it",
			files: map[string]string{"pkg/PUBLIC.txt": "", "pkg/src/LOCK.txt": fresh}, op: "registry-upload", explain: []string{"alice"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, c := range tc.files {
				write(t, filepath.Join(root, p), c)
			}
			cfg := tc.cfg
			if cfg == nil {
				cfg = &Config{}
			}
			dir := filepath.Join(root, "pkg")
			if _, err := filepath.Abs(dir); err != nil {
				t.Fatal(err)
			}
			d, err := CheckPublication(NewPolicy(testEnv(root), me), dir, tc.op, cfg)
			require.NoError(t, err)
			var out bytes.Buffer
			d.Explain(&out)
			assert.Equal(t, tc.allowed, d.Allowed, out.String())
			for _, s := range tc.explain {
				assert.Contains(t, out.String(), s)
			}
			if tc.warnings > 0 {
				assert.Len(t, d.Warnings, tc.warnings)
			}
			if tc.allowed {
				assert.Empty(t, d.Reason())
			} else {
				assert.NotEmpty(t, d.Reason())
			}
			js, err := json.Marshal(d.ToJSON())
			require.NoError(t, err)
			var back map[string]any
			require.NoError(t, json.Unmarshal(js, &back))
			assert.Equal(t, tc.allowed, back["allowed"])
			assert.Equal(t, tc.op, back["op"])
		})
	}
}

func TestCheckPublicationReadsTheConfigWhenNoneIsGiven(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".git/HEAD"), "")
	write(t, filepath.Join(root, ".guard.toml"), "[publish]\nrequire_public = true\n")
	d, err := CheckPublication(NewPolicy(testEnv(root), Identity{Owner: "bob", Host: "h"}), root, "registry-upload", nil)
	require.NoError(t, err)
	assert.False(t, d.Allowed)
	assert.Contains(t, d.Refusals[0], filepath.Join(root, ".guard.toml"))
}
