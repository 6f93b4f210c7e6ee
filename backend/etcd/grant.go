package etcd

import (
	"context"
	"fmt"
	"sync"
	"time"

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
	lease    int64
	ttl      time.Duration
	lost     chan struct{}
	err      error
	released bool
	watching bool
	stop     context.CancelFunc
}

func (b *Backend) newGrant(key string, bl guard.BackendLock, fence, lease int64, ttl time.Duration) *grant {
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
	put := &putRequest{Key: []byte(g.key), Value: []byte(encode(bl)), IgnoreLease: true}
	var fresh int64
	switch {
	case ttl > 0 && (lease == 0 || ttlSeconds(ttl) != ttlSeconds(cur)):
		id, err := g.b.cli.grant(ctx, ttlSeconds(ttl))
		if err != nil {
			return err
		}
		fresh = id
		put.IgnoreLease, put.Lease = false, fresh
	case ttl <= 0 && lease != 0:
		put.IgnoreLease = false // no lease: the key is detached from it
	case lease != 0:
		if err := g.b.cli.keepAliveOnce(ctx, lease); err != nil {
			if isLeaseNotFound(err) {
				return g.markLost(fmt.Errorf("%w: its lease ran out before it was renewed", guard.ErrBackendLost))
			}
			return err
		}
	}
	resp, err := g.b.cli.txn(ctx, []compare{createdAt(g.key, g.fence)}, requestOp{Put: put})
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
	resp, err := g.b.cli.txn(ctx, []compare{createdAt(g.key, g.fence)}, requestOp{Delete: &deleteRequest{Key: []byte(g.key)}})
	if err != nil {
		return err
	}
	if lease != 0 {
		_ = g.b.cli.revoke(ctx, lease)
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
		resp, err := g.b.cli.get(rctx, g.key, false)
		cancel()
		if err != nil {
			// Unreachable for now: etcd, not this process, decides whether the lock
			// lives; look again.
			if !sleepCtx(ctx, time.Second) {
				return
			}
			continue
		}
		if len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != g.fence {
			g.markLost(fmt.Errorf("%w: the key %s was deleted (released, or its lease ran out) or replaced", guard.ErrBackendLost, g.key))
			return
		}
		w, err := g.b.cli.watch(ctx, g.key, false, resp.Header.Revision+1)
		if err != nil {
			if !sleepCtx(ctx, time.Second) {
				return
			}
			continue
		}
		for {
			wr, err := w.next()
			if err != nil {
				break // broken: read the key afresh and watch again
			}
			for _, ev := range wr.Events {
				if ev.Delete || ev.Kv.CreateRevision != g.fence {
					w.close()
					g.markLost(fmt.Errorf("%w: the key %s was deleted (released, or its lease ran out) or replaced", guard.ErrBackendLost, g.key))
					return
				}
			}
		}
		w.close()
		if !sleepCtx(ctx, 200*time.Millisecond) { // not a tight loop while etcd has no leader
			return
		}
	}
}

// sleepCtx waits d, false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
