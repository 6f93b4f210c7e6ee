package etcd

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKeyLayoutKeepsEachFoldersLocksAndItsSubtreeInTheirOwnRanges(t *testing.T) {
	k := newLayout("/guard/", "github.com/o/r")
	assert.Equal(t, "/guard/github.com%2Fo%2Fr/locks/f:lock.txt", k.lockKey("", "LOCK.txt"))
	assert.Equal(t, "/guard/github.com%2Fo%2Fr/locks/d:src/d:api/f:lock.team.box1.txt", k.lockKey("src/api", "LOCK.team.box1.txt"))
	assert.Equal(t, "/guard/github.com%2Fo%2Fr/locks/d:src/d:api/", k.dirPrefix("src/api"))
	assert.Equal(t, "/guard/github.com%2Fo%2Fr/locks/d:src/f:", k.here("src"))
	assert.Equal(t, "/guard/github.com%2Fo%2Fr/resources/db:%2F%2Fstaging", k.resourceKey("db://staging"))
	// src/api-v2 is not inside src/api's range, nor src/api's locks in src's own.
	assert.NotContains(t, k.lockKey("src/api-v2", "LOCK.txt"), k.dirPrefix("src/api"))
	assert.NotContains(t, k.lockKey("src/api", "LOCK.txt"), k.here("src"))

	cmps := k.overlapping("src/api", 41)
	var keys []string
	for _, c := range cmps {
		keys = append(keys, string(c.Key))
		assert.Equal(t, string(prefixEnd(string(c.Key))), string(c.RangeEnd), "a compare over the whole range")
		assert.Equal(t, int64(42), c.Revision, "unchanged since the judgement's revision")
		assert.Equal(t, targetMod, c.Target)
	}
	assert.Equal(t, []string{
		"/guard/github.com%2Fo%2Fr/locks/f:",
		"/guard/github.com%2Fo%2Fr/locks/d:src/f:",
		"/guard/github.com%2Fo%2Fr/locks/d:src/d:api/",
	}, keys)
	assert.Len(t, k.overlapping("", 1), 1)
}

func TestPrefixEndIsTheFirstKeyPastThePrefix(t *testing.T) {
	assert.Equal(t, "/guard/p/locks0", string(prefixEnd("/guard/p/locks/")))
	assert.Equal(t, []byte{'a', 0x01}, prefixEnd("a\x00"))
	assert.Equal(t, []byte{'b'}, prefixEnd("a\xff"))
	assert.Equal(t, []byte{0}, prefixEnd("\xff\xff"))
}

// A read is retried while every member answers "unavailable" (an election); a
// transaction etcd may have applied is not sent twice.
func TestOnlyRepeatableCallsAreRetriedAfterAnAnswer(t *testing.T) {
	assert.True(t, repeatable["etcdserverpb.KV/Range"])
	assert.True(t, repeatable["etcdserverpb.Watch/Watch"])
	assert.False(t, repeatable["etcdserverpb.KV/Txn"])
	assert.False(t, repeatable["etcdserverpb.Lease/LeaseGrant"])
}

func TestProjectIDsOfCaseFreeHostsAreOneProjectWhateverTheirCase(t *testing.T) {
	same := []string{"github.com/Acme/Proj", "github.com/acme/proj", "GitHub.com/ACME/proj", "ssh.github.com/Acme/Proj"}
	for _, id := range same {
		assert.Equal(t, "/guard/github.com%2Facme%2Fproj/locks/f:lock.txt", newLayout("/guard/", id).lockKey("", "LOCK.txt"), id)
	}
	assert.Equal(t, newLayout("/guard/", "gitlab.com/Group/Sub/Proj").base, newLayout("/guard/", "gitlab.com/group/sub/proj").base)
	// An unknown host may tell Proj from proj: its case stays, as does an id that
	// names no host.
	assert.Equal(t, "/guard/git.example.org%2FAcme%2FProj/", newLayout("/guard/", "git.example.org/Acme/Proj").base)
	assert.Equal(t, "/guard/MyProject/", newLayout("/guard/", "MyProject").base)
	assert.Equal(t, "/guard/%2Fsrv%2Fgit%2FTool/", newLayout("/guard/", "/srv/git/Tool").base)
}
