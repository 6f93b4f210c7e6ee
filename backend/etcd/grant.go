package etcd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/guardlocks/guard/guard"
)

// grant is one lock won in etcd: its key, the create revision that is its fence, and
// the lease that keeps it (guard.BackendGrant).
type grant struct {
	b     *Backend
	key   string
	lock  guard.BackendLock
	fence int64

	mu       sync.Mutex
	lease    clientv3.LeaseID
	ttl      time.Duration
	lost     chan struct{}
	err      error
	released bool
	watching bool
	stop     context.CancelFunc
}

func (b *Backend) newGrant(key string, bl guard.BackendLock, fence int64, lease clientv3.LeaseID, ttl time.Duration) *grant {
	return &grant{b: b, key: key, lock: bl, fence: fence, lease: lease, ttl: ttl, lost: make(chan struct{})}
}

// Fence is the revision that won the lock.
func (g *grant) Fence() int64 { return g.fence }

// Renew keeps the lease alive (or moves the lock onto a new lease of ttl) and stores
// body, provided the key is still this grant.
func (g *grant) Renew(ctx context.Context, body []byte, ttl time.Duration) error {
	g.mu.Lock()
	lease, cur := g.lease, g.ttl
	g.mu.Unlock()
	bl := g.lock
	bl.Body = body
	opt := clientv3.WithIgnoreLease()
	var fresh clientv3.LeaseID
	switch {
	case ttl > 0 && (lease == 0 || ttlSeconds(ttl) != ttlSeconds(cur)):
		gr, err := g.b.cli.Grant(ctx, ttlSeconds(ttl))
		if err != nil {
			return err
		}
		fresh = gr.ID
		opt = clientv3.WithLease(fresh)
	case ttl <= 0 && lease != 0:
		opt = clientv3.WithLease(clientv3.NoLease)
	case lease != 0:
		if _, err := g.b.cli.KeepAliveOnce(ctx, lease); err != nil {
			if errors.Is(err, rpctypes.ErrLeaseNotFound) {
				return g.markLost(fmt.Errorf("%w: its lease ran out before it was renewed", guard.ErrBackendLost))
			}
			return err
		}
	}
	resp, err := g.b.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(g.key), "=", g.fence)).
		Then(clientv3.OpPut(g.key, encode(bl), opt)).Commit()
	if err != nil || !resp.Succeeded {
		if fresh != 0 {
			g.b.revoke(fresh)
		}
		if err != nil {
			return err
		}
		return g.markLost(fmt.Errorf("%w: the key was deleted or replaced", guard.ErrBackendLost))
	}
	if fresh != 0 || (ttl <= 0 && lease != 0) {
		if lease != 0 {
			g.b.revoke(lease)
		}
		g.mu.Lock()
		g.lease, g.ttl = fresh, ttl
		g.mu.Unlock()
	}
	g.lock = bl
	return nil
}

// Release deletes the key if it is still this grant, then the lease.
func (g *grant) Release(ctx context.Context) error {
	g.mu.Lock()
	g.released = true
	if g.stop != nil {
		g.stop()
	}
	lease := g.lease
	g.mu.Unlock()
	resp, err := g.b.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(g.key), "=", g.fence)).
		Then(clientv3.OpDelete(g.key)).Commit()
	if err != nil {
		return err
	}
	if lease != 0 {
		_, _ = g.b.cli.Revoke(ctx, lease)
	}
	if !resp.Succeeded {
		return fmt.Errorf("%w: it was deleted or replaced before the release", guard.ErrBackendLost)
	}
	return nil
}

// Lost closes when the key stops being this grant. The first call starts a watch.
func (g *grant) Lost() <-chan struct{} {
	g.mu.Lock()
	start := !g.watching && !g.released
	g.watching = true
	var ctx context.Context
	if start {
		ctx, g.stop = context.WithCancel(context.Background())
	}
	g.mu.Unlock()
	if start {
		go g.watch(ctx)
	}
	return g.lost
}

// Err is why Lost closed.
func (g *grant) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

func (g *grant) markLost(err error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err == nil && !g.released {
		g.err = err
		close(g.lost)
	}
	return err
}

// watch follows the key until it is deleted or replaced (the lease expiring deletes
// it). A watch that breaks (etcd restarted, the leader changed) is restarted from
// a fresh read, so a loss during the break is seen.
func (g *grant) watch(ctx context.Context) {
	for ctx.Err() == nil {
		rctx, cancel := context.WithTimeout(ctx, g.b.timeout)
		resp, err := g.b.cli.Get(rctx, g.key)
		cancel()
		if err != nil {
			// Unreachable for now: etcd, not this process, decides whether the lock
			// lives; look again.
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			continue
		}
		if len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != g.fence {
			g.markLost(fmt.Errorf("%w: the key %s was deleted (released, or its lease ran out) or replaced", guard.ErrBackendLost, g.key))
			return
		}
		wch := g.b.cli.Watch(clientv3.WithRequireLeader(ctx), g.key, clientv3.WithRev(resp.Header.Revision+1))
		for wr := range wch {
			if wr.Err() != nil {
				break
			}
			for _, ev := range wr.Events {
				if ev.Type == mvccpb.DELETE || ev.Kv.CreateRevision != g.fence {
					g.markLost(fmt.Errorf("%w: the key %s was deleted (released, or its lease ran out) or replaced", guard.ErrBackendLost, g.key))
					return
				}
			}
		}
	}
}
