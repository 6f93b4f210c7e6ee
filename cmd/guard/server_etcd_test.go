package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/etcdtest"
	"github.com/guardlocks/guard/internal/testing/guardtest"
)

// The server configured against an etcd cluster ([backend] in its .guard.toml): a
// lock held only in etcd (its file lives in alice's clone, never committed) refuses
// bob's push as a committed lock would, and an unreachable etcd refuses every push
// (fail closed, exit 2 of the hook).
func TestServerRefusesAPushIntoAnAreaLockedInEtcd(t *testing.T) {
	t.Parallel()
	cl := etcdtest.Start(t, 1)
	backend := fmt.Sprintf("[backend]\nkind = \"etcd\"\nendpoints = [%q]\nproject_id = \"srv-proj\"\ndial_timeout = \"5s\"\n", cl.Endpoints()[0])
	s, work := srvSetup(t, srvConfig+"\n"+backend)

	// alice takes docs/ in etcd from her clone (its .guard.toml names the same
	// project; it is not committed).
	ctWrite(t, work, ".guard.toml", backend)
	out, stderr, code := ctRun(t, work, []string{"GUARD_OWNER=alice", "GUARD_HOST=alicebox"}, "", "lock", "docs", "--purpose", "docs freeze")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "docs/LOCK.txt")

	bob := s.clone(t)
	ctWrite(t, bob, "docs/x.md", "bob's docs\n")
	guardtest.Git(t, bob, "commit", "-qam", "bob changes docs")
	before := s.ref(t, "refs/heads/main")
	stderr, code = s.push(t, bob, "bob", "origin", "main")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "remote: guard: pre-receive: refusing refs/heads/main (push by bob):\n")
	assert.Contains(t, stderr, "remote: guard:   docs/x.md: exclusive lock docs/LOCK.txt held by alice (held in etcd at")
	assert.Contains(t, stderr, cl.Endpoints()[0]+", project srv-proj)\nremote: guard:     purpose: docs freeze; expires ")
	assert.Contains(t, stderr, "remote: guard:     what now: ask alice to release it (guard unlock), or wait until it expires; then push\n")
	assert.Equal(t, before, s.ref(t, "refs/heads/main"))

	// alice's own push of docs goes through.
	ctWrite(t, work, "docs/x.md", "alice's docs\n")
	guardtest.Git(t, work, "commit", "-qam", "alice changes docs")
	stderr, code = s.push(t, work, "alice", "origin", "main")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, guardtest.Git(t, work, "rev-parse", "HEAD"), s.ref(t, "refs/heads/main"))

	// etcd gone: nothing can be judged, every push is refused.
	late := s.clone(t)
	ctWrite(t, late, "README.md", "free area\n")
	guardtest.Git(t, late, "add", "README.md")
	guardtest.Git(t, late, "commit", "-qm", "readme")
	cl.Members[0].Stop()
	before = s.ref(t, "refs/heads/main")
	stderr, code = s.push(t, late, "bob", "origin", "main")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "remote: guard: pre-receive: cannot check this push:")
	assert.Contains(t, stderr, "remote: guard: refusing it (fail closed); no ref was updated.\n")
	assert.Equal(t, before, s.ref(t, "refs/heads/main"))
}
