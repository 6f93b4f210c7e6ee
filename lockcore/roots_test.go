package lockcore_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

var testExpander = lockcore.Expander{
	Getenv: func(k string) string {
		return map[string]string{"PROJ": "/srv/proj", "EMPTY": ""}[k]
	},
	Home: "/home/me",
}

func TestExpandFollowsExpandvarsThenExpanduser(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"$VAR is expanded", "$PROJ/a", "/srv/proj/a"},
		{"${VAR} is expanded", "${PROJ}x/a", "/srv/projx/a"},
		{"an unknown variable is left as written", "$NOPE/a", "$NOPE/a"},
		{"an empty variable is left as written", "${EMPTY}/a", "${EMPTY}/a"},
		{"a lone ~ is the home directory", "~", "/home/me"},
		{"~/ starts at the home directory", "~/OneDrive/x", "/home/me/OneDrive/x"},
		{"~user is left as written", "~bob/x", "~bob/x"},
		{"a ~ inside a path is left", "/a/~/b", "/a/~/b"},
		{"variables come before ~", "~/$PROJ", "/home/me//srv/proj"},
		{"a plain path is unchanged", "/data", "/data"},
		{"a dollar without a name is left", "/a/$/b", "/a/$/b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, testExpander.Expand(c.in))
		})
	}
	assert.Equal(t, "~/x", lockcore.Expander{}.Expand("~/x"), "without a home directory ~ stays")
	assert.Equal(t, "$PROJ", lockcore.Expander{}.Expand("$PROJ"), "without an environment variables stay")
}

func TestParseRootsConfig(t *testing.T) {
	data := []byte(`{
  "_comment": "ignored",
  "default_max_depth": 6,
  "shallow_depth": 1,
  "skip_dirs": ["Node_Modules", ".GIT"],
  "roots": [{"path": "$PROJ"}, {"path": "~/big", "shallow": true}, "/plain"],
  "caches": [
    {"name": "work", "path": "~/caches/LOCK-CACHE.md", "filter_prefix": "$PROJ/"},
    {"path": "/tmp/c/OTHER.md"}
  ],
  "twin_resolution": {"clone_roots": []}
}`)
	c, err := lockcore.ParseRootsConfig("roots.json", data, testExpander)
	require.NoError(t, err)
	assert.Equal(t, "roots.json", c.File)
	assert.Equal(t, 6, c.DefaultMaxDepth)
	assert.Equal(t, 1, c.ShallowDepth)
	assert.Equal(t, []string{"node_modules", ".git"}, c.SkipDirs, "skip_dirs are compared lower-cased")
	assert.Equal(t, []lockcore.Root{{Path: "/srv/proj"}, {Path: "/home/me/big", Shallow: true}, {Path: "/plain"}}, c.Roots)
	assert.Equal(t, []lockcore.Cache{
		{Name: "work", Path: "/home/me/caches/LOCK-CACHE.md", FilterPrefix: "/srv/proj/"},
		{Name: "OTHER.md", Path: "/tmp/c/OTHER.md"},
	}, c.Caches, "a cache's name defaults to its file name")
	assert.Equal(t, 6, c.DepthOf(c.Roots[0]))
	assert.Equal(t, 1, c.DepthOf(c.Roots[1]))
	assert.Equal(t, []lockcore.ScanRoot{{Path: "/srv/proj", MaxDepth: 6}, {Path: "/home/me/big", MaxDepth: 1}, {Path: "/plain", MaxDepth: 6}}, c.ScanRoots("/cwd"))
}

func TestParseRootsConfigDefaults(t *testing.T) {
	c, err := lockcore.ParseRootsConfig("r.json", []byte(`{"roots": [{"path": "rel/dir"}]}`), testExpander)
	require.NoError(t, err)
	assert.Equal(t, 4, c.DefaultMaxDepth)
	assert.Equal(t, 2, c.ShallowDepth)
	assert.Empty(t, c.SkipDirs, "no skip_dirs key means nothing is skipped")
	assert.Empty(t, c.Caches)
	assert.Equal(t, []lockcore.ScanRoot{{Path: "/cwd/rel/dir", MaxDepth: 4}}, c.ScanRoots("/cwd"), "relative roots are taken from the current directory")

	c, err = lockcore.ParseRootsConfig("r.json", []byte(`{"default_max_depth": null, "shallow_depth": 0}`), testExpander)
	require.NoError(t, err)
	assert.Equal(t, 4, c.DefaultMaxDepth, "null means the default")
	assert.Equal(t, 0, c.ShallowDepth, "an explicit zero is kept")

	d := lockcore.DefaultRootsConfig()
	assert.Equal(t, 4, d.DefaultMaxDepth)
	assert.Equal(t, 2, d.ShallowDepth)
}

func TestParseRootsConfigErrorsNameFileAndLine(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"a syntax error names its line", "{\n  \"roots\": [\n    {\"path\": \"/a\"},,\n  ]\n}", "r.json:3:"},
		{"a wrong type names its line", "{\n\n  \"default_max_depth\": \"four\"\n}", "r.json:3:"},
		{"a truncated file is an error", "{\n  \"roots\": [", "r.json:2:"},
		{"an empty file is an error", "", "r.json:1:"},
		{"a root without path is an error", `{"roots": [{"shallow": true}]}`, "r.json: roots[0]: missing path"},
		{"a cache without path is an error", `{"caches": [{"name": "x"}]}`, "r.json: caches[0]: missing path"},
		{"trailing data is an error", `{} {}`, "r.json: extra data"},
		{"a list is not a config", `[1]`, "r.json:1:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := lockcore.ParseRootsConfig("r.json", []byte(c.body), testExpander)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestLoadRootsConfigReadsTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "lock_roots.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"roots": [{"path": "${PROJ}"}]}`), 0o644))
	c, err := lockcore.LoadRootsConfig(p, testExpander)
	require.NoError(t, err)
	assert.Equal(t, p, c.File)
	assert.Equal(t, "/srv/proj", c.Roots[0].Path)

	_, err = lockcore.LoadRootsConfig(filepath.Join(dir, "missing.json"), testExpander)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing.json")
}
