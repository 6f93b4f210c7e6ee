package guard

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

// A bounded request stops its walk below a folder past MaxBelow folders and refuses
// that folder (fail closed), while the same request without a bound reads them all
// and finds no lock; the bound ends with its request.
func TestDescendWalkStopsAtItsBound(t *testing.T) {
	root := t.TempDir()
	for i := range 6 {
		write(t, filepath.Join(root, "big", fmt.Sprintf("d%d", i), "f.txt"), "")
	}
	p := NewPolicy(testEnv(root), Identity{Owner: "bob", Host: "hostA"})

	dec, err := p.Check(Request{Paths: []string{"big"}, Descend: true, MaxBelow: 3})
	require.NoError(t, err)
	require.False(t, dec.Allowed)
	require.Len(t, dec.Blocking, 1)
	assert.Equal(t, filepath.Join(root, "big"), dec.Blocking[0].Path)
	assert.Nil(t, dec.Blocking[0].Lock)
	assert.Equal(t, filepath.Join(root, "big")+": more than 3 folders lie below the paths checked, so guard stopped reading them; name smaller folders; guard could not see whether a lock covers this area, so it treats it as locked (fail closed)", dec.Blocking[0].Reason)

	dec, err = p.Check(Request{Paths: []string{"big"}, Descend: true})
	require.NoError(t, err)
	assert.True(t, dec.Allowed, "blocking: %+v", dec.Blocking)
}

// A deadline already past stops the walk at its first count of the clock.
func TestDescendWalkStopsAtItsDeadline(t *testing.T) {
	root := t.TempDir()
	for i := range 300 {
		write(t, filepath.Join(root, "big", fmt.Sprintf("d%03d", i), "f.txt"), "")
	}
	env := testEnv(root)
	env.Clock = lockcore.FixedClock(testNow)
	dec, err := NewPolicy(env, Identity{Owner: "bob", Host: "hostA"}).Check(Request{Paths: []string{"big"}, Descend: true, BelowUntil: testNow.Add(-time.Second)})
	require.NoError(t, err)
	require.False(t, dec.Allowed)
	require.Len(t, dec.Blocking, 1)
	assert.Contains(t, dec.Blocking[0].Reason, "checking them took longer than guard may (stopped after 256 folders)")
}
