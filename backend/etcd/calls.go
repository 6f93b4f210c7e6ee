package etcd

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// The calls of the etcd API guard makes (wire.go encodes their messages).

// prefixEnd is the end of the range of every key that starts with prefix.
func prefixEnd(prefix string) []byte {
	end := []byte(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return []byte{0} // every key
}

func (c *client) get(ctx context.Context, key string, prefix bool) (*rangeResponse, error) {
	var end []byte
	if prefix {
		end = prefixEnd(key)
	}
	msg, err := c.unary(ctx, "etcdserverpb.KV/Range", rangeRequest([]byte(key), end))
	if err != nil {
		return nil, err
	}
	return decodeRangeResponse(msg)
}

func (c *client) txn(ctx context.Context, cmps []compare, ops ...requestOp) (*txnResponse, error) {
	msg, err := c.unary(ctx, "etcdserverpb.KV/Txn", txnRequest(cmps, ops))
	if err != nil {
		return nil, err
	}
	return decodeTxnResponse(msg)
}

func (c *client) grant(ctx context.Context, ttl int64) (int64, error) {
	msg, err := c.unary(ctx, "etcdserverpb.Lease/LeaseGrant", grantRequest(ttl))
	if err != nil {
		return 0, err
	}
	r, err := decodeLeaseResponse(msg, true)
	switch {
	case err != nil:
		return 0, err
	case r.Error != "":
		return 0, errors.New(r.Error)
	case r.ID == 0:
		return 0, errors.New("etcd granted no lease")
	}
	return r.ID, nil
}

func (c *client) revoke(ctx context.Context, id int64) error {
	_, err := c.unary(ctx, "etcdserverpb.Lease/LeaseRevoke", idRequest(id))
	return err
}

func (c *client) timeToLive(ctx context.Context, id int64) (*leaseResponse, error) {
	msg, err := c.unary(ctx, "etcdserverpb.Lease/LeaseTimeToLive", idRequest(id))
	if err != nil {
		return nil, err
	}
	return decodeLeaseResponse(msg, false)
}

// keepAliveOnce renews the lease once: the keep-alive call is a stream, whose first
// answer is the renewal; a TTL of 0 there means the lease is gone.
func (c *client) keepAliveOnce(ctx context.Context, id int64) error {
	s, err := c.open(ctx, "etcdserverpb.Lease/LeaseKeepAlive", idRequest(id), true, false)
	if err != nil {
		return err
	}
	defer s.close()
	msg, err := s.recv()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("etcd lease keep-alive: no answer")
		}
		return err
	}
	r, err := decodeLeaseResponse(msg, false)
	if err != nil {
		return err
	}
	if r.TTL <= 0 {
		return &apiError{Code: codeNotFound, Message: "etcdserver: requested lease not found"}
	}
	return nil
}

// watcher is one watch stream.
type watcher struct{ s *stream }

// watch starts a watch of key (with prefix, of every key under it) from revision
// rev, refused while the member has no leader.
func (c *client) watch(ctx context.Context, key string, prefix bool, rev int64) (*watcher, error) {
	var end []byte
	if prefix {
		end = prefixEnd(key)
	}
	s, err := c.open(ctx, "etcdserverpb.Watch/Watch", watchCreateRequest([]byte(key), end, rev), true, true)
	if err != nil {
		return nil, err
	}
	return &watcher{s: s}, nil
}

// next returns the watch's next answer that has events; a canceled or broken watch
// is an error.
func (w *watcher) next() (*watchResponse, error) {
	for {
		msg, err := w.s.recv()
		if err != nil {
			return nil, fmt.Errorf("the watch ended: %w", err)
		}
		r, err := decodeWatchResponse(msg)
		switch {
		case err != nil:
			return nil, err
		case r.Canceled:
			reason := r.CancelReason
			if r.CompactRevision != 0 {
				reason = fmt.Sprintf("revision compacted (to %d)", r.CompactRevision)
			}
			return nil, fmt.Errorf("etcd canceled the watch: %s", reason)
		case len(r.Events) > 0:
			return r, nil
		}
	}
}

func (w *watcher) close() { w.s.close() }
