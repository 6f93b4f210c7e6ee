package lockcore_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

// The reference's own templates (testdata/reference) must read as the reference reads
// them.

func TestTheReferenceRootsExampleLoads(t *testing.T) {
	c, err := lockcore.LoadRootsConfig(filepath.Join("testdata", "reference", "lock_roots.example.json"), testExpander)
	require.NoError(t, err)
	assert.Equal(t, 4, c.DefaultMaxDepth)
	assert.Equal(t, 2, c.ShallowDepth)
	assert.Len(t, c.SkipDirs, 19)
	assert.Contains(t, c.SkipDirs, "node_modules")
	assert.Equal(t, []lockcore.Root{
		{Path: "/path/to/project-a"}, {Path: "/path/to/project-b"}, {Path: "/path/to/workspace"},
		{Path: "/path/to/large-tree", Shallow: true},
	}, c.Roots)
	assert.Equal(t, []lockcore.Cache{
		{Name: "system-wide", Path: "/path/to/your-scripts-dir/LOCK-CACHE.md"},
		{Name: "workspace-only", Path: "/path/to/workspace/LOCK-CACHE.md", FilterPrefix: "/path/to/workspace"},
	}, c.Caches)
	res := lockcore.Scan(c.ScanRoots("/"), lockcore.ScanOptions{SkipDirs: c.SkipDirs})
	assert.Empty(t, res.Locks, "the example's roots do not exist and are skipped")
	assert.Empty(t, res.Errors)
}

func TestTheReferenceLockTemplateReadsAsAnUnfilledLock(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "reference", "LOCK_TEMPLATE.txt"))
	require.NoError(t, err)
	mtime := now.Add(-23 * time.Hour)
	l, err := lockcore.ParseLock("/p/LOCK.txt", body, mtime, cest)
	require.NoError(t, err)
	assert.Equal(t, "[Name / Agent / Automation]", l.Owner)
	assert.Equal(t, "mtime", l.CreatedSource, "the YYYY-MM-DDTHH:MM placeholder is no time")
	assert.Equal(t, 24*time.Hour, l.ExpiresAfter)
	assert.Equal(t, "hard", l.Mode)
	assert.Equal(t, "[project | <scope>]", l.Fields.Values["scope"])
	assert.Equal(t, lockcore.Exclusive, l.Kind)
	assert.False(t, l.Expired(now))
	assert.True(t, l.Expired(now.Add(2*time.Hour)))
	assert.Equal(t, []string{"owner", "created", "host", "expires_after", "release_condition", "mode", "purpose", "scope"}, l.Fields.Keys,
		"the comment block is skipped, though its lines contain colons")
}
