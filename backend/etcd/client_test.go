package etcd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// member is an HTTP/2 endpoint standing for one etcd member that answers every call
// with status (gRPC's trailers-only answer; 0 answers an empty message) and counts
// the calls per method.
func member(t *testing.T, status string, calls map[string]*atomic.Int32) *httptest.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := calls[r.URL.Path]; n != nil {
			n.Add(1)
		}
		w.Header().Set("Content-Type", "application/grpc")
		if status != "0" {
			w.Header().Set("Grpc-Status", status)
			w.Header().Set("Grpc-Message", "etcdserver: request timed out")
			w.WriteHeader(http.StatusOK)
			return
		}
		w.Header().Set("Trailer", "Grpc-Status")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(frame(nil))
		w.Header().Set("Grpc-Status", "0")
	})
	s := httptest.NewUnstartedServer(h)
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	s.Config.Protocols = &p
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// A member that answers "request timed out" (Unavailable) may have applied the call:
// a transaction is not sent to the next member as well (found by the history
// checker: a release applied by a member being restarted was sent again to another,
// which found the key gone and reported the lock lost), while a read goes on to the
// next member.
func TestACallAMemberMayHaveAppliedIsNotSentToTheNextMember(t *testing.T) {
	const txn, rng = "/etcdserverpb.KV/Txn", "/etcdserverpb.KV/Range"
	first := map[string]*atomic.Int32{txn: {}, rng: {}}
	second := map[string]*atomic.Int32{txn: {}, rng: {}}
	a, b := member(t, "14", first), member(t, "0", second)
	c, err := newClient(clientConfig{Endpoints: []string{a.URL, b.URL}, DialTimeout: time.Second})
	require.NoError(t, err)
	defer c.close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()

	_, err = c.unary(ctx, "etcdserverpb.KV/Txn", nil)
	assert.ErrorContains(t, err, "request timed out")
	assert.Equal(t, int32(1), first[txn].Load())
	assert.Equal(t, int32(0), second[txn].Load(), "the transaction was sent to a second member")

	_, err = c.unary(ctx, "etcdserverpb.KV/Range", nil)
	assert.NoError(t, err)
	assert.Equal(t, int32(1), second[rng].Load())
}
