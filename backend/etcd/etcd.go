package etcd

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
)

// Backend is a project's locks in one etcd cluster (guard.Backend).
type Backend struct {
	cli     *client
	keys    layout
	where   string
	timeout time.Duration
}

// value is what a key holds.
type value struct {
	Dir      string `json:"dir"`
	Name     string `json:"name"`
	Resource string `json:"resource,omitempty"`
	Body     string `json:"body"`
}

// Open connects to the etcd cluster cfg.Backend names, for project. It is
// guard.BackendOpener; the connection is made within dial_timeout or not at all.
func Open(cfg *guard.Config, project string, env *guard.Env) (guard.Backend, error) {
	bc := cfg.Backend
	timeout, err := bc.Timeout()
	if err != nil {
		return nil, err
	}
	c := clientConfig{
		Endpoints:   bc.Endpoints,
		DialTimeout: timeout,
		Username:    bc.Username,
		Password:    bc.Password,
	}
	if c.Password == "" && env != nil {
		c.Password = env.Env("GUARD_ETCD_PASSWORD")
	}
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(cfg.Dir, p)
	}
	c.CA, c.Cert, c.Key = rel(bc.CA), rel(bc.Cert), rel(bc.Key)
	where := fmt.Sprintf("etcd at %s, project %s", strings.Join(bc.Endpoints, ","), project)
	cli, err := newClient(c)
	if err != nil {
		return nil, err
	}
	// No request is made here: the first one (a snapshot, a claim) finds out whether
	// etcd answers, each within dial_timeout per member, and says so as unreachable.
	return &Backend{cli: cli, keys: newLayout(bc.KeyPrefix(), project), where: where, timeout: timeout}, nil
}

// Where names the cluster and the project.
func (b *Backend) Where() string { return b.where }

// Close ends the connection.
func (b *Backend) Close() error {
	b.cli.close()
	return nil
}

// Snapshot reads every lock of the project at one revision.
func (b *Backend) Snapshot(ctx context.Context) (*guard.BackendSnapshot, error) {
	resp, err := b.cli.get(ctx, b.keys.base, true)
	if err != nil {
		return nil, err
	}
	snap := &guard.BackendSnapshot{Revision: resp.Header.Revision}
	for _, kv := range resp.Kvs {
		bl, ok := decode(kv.Value)
		if !ok {
			// A key guard did not write under its prefix: an unreadable lock at the
			// project root holds the project (fail closed) until someone removes it.
			bl = guard.BackendLock{Name: "LOCK.txt", Body: []byte("# unreadable key " + string(kv.Key) + "\n")}
		}
		bl.Fence, bl.Lease = kv.CreateRevision, kv.Lease
		snap.Locks = append(snap.Locks, bl)
	}
	return snap, nil
}

func decode(data []byte) (guard.BackendLock, bool) {
	var v value
	if err := json.Unmarshal(data, &v); err != nil || v.Name == "" {
		return guard.BackendLock{}, false
	}
	return guard.BackendLock{Dir: v.Dir, Name: v.Name, Resource: v.Resource, Body: []byte(v.Body)}, true
}

func encode(bl guard.BackendLock) string {
	data, _ := json.Marshal(value{Dir: bl.Dir, Name: bl.Name, Resource: bl.Resource, Body: string(bl.Body)})
	return string(data)
}

func (b *Backend) key(bl guard.BackendLock) string {
	if bl.Resource != "" {
		return b.keys.resourceKey(bl.Resource)
	}
	return b.keys.lockKey(bl.Dir, bl.Name)
}

// ttlSeconds is a lease's TTL for a lifetime: whole seconds, at least one, rounded up
// so that the lease never ends before the lock file says it expires.
func ttlSeconds(d time.Duration) int64 {
	s := int64(math.Ceil(d.Seconds()))
	if s < 1 {
		s = 1
	}
	return s
}

// Claim wins c.Lock in one transaction (see the package documentation).
func (b *Backend) Claim(ctx context.Context, c guard.BackendClaim) (guard.BackendGrant, error) {
	key := b.key(c.Lock)
	var cmps []compare
	if c.Lock.Resource == "" {
		cmps = b.keys.overlapping(c.Lock.Dir, c.Since)
	} else {
		cmps = []compare{{Result: cmpLess, Target: targetMod, Key: []byte(key), Revision: c.Since + 1}}
	}
	cmps = append(cmps, createdAt(key, c.Replace))
	var lease int64
	if c.TTL > 0 {
		id, err := b.cli.grant(ctx, ttlSeconds(c.TTL))
		if err != nil {
			return nil, err
		}
		lease = id
	}
	put := &putRequest{Key: []byte(key), Value: []byte(encode(c.Lock)), Lease: lease}
	resp, err := b.cli.txn(ctx, cmps, requestOp{Put: put})
	if err != nil || !resp.Succeeded {
		if lease != 0 {
			b.revoke(lease)
		}
		if err != nil {
			return nil, err
		}
		return nil, guard.ErrBackendMoved
	}
	fence := resp.Header.Revision
	if c.Replace != 0 {
		// A renewal by the owner keeps the fence; the old lease goes.
		fence = c.Replace
		if c.ReplaceLease != 0 && c.ReplaceLease != lease {
			b.revoke(c.ReplaceLease)
		}
	}
	return b.newGrant(key, c.Lock, fence, lease, c.TTL), nil
}

// revoke ends a lease that no longer holds anything, within the timeout.
func (b *Backend) revoke(id int64) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	_ = b.cli.revoke(ctx, id)
}

// Attach returns the grant of the lock held at dir/name (or resource).
func (b *Backend) Attach(ctx context.Context, dir, name, resource string) (guard.BackendGrant, *guard.BackendLock, error) {
	bl := guard.BackendLock{Dir: dir, Name: name, Resource: resource}
	key := b.key(bl)
	resp, err := b.cli.get(ctx, key, false)
	if err != nil {
		return nil, nil, err
	}
	if len(resp.Kvs) == 0 {
		return nil, nil, guard.ErrBackendNoLock
	}
	kv := resp.Kvs[0]
	held, ok := decode(kv.Value)
	if !ok {
		return nil, nil, fmt.Errorf("the key %s does not hold a lock guard wrote", key)
	}
	held.Fence, held.Lease = kv.CreateRevision, kv.Lease
	var ttl time.Duration
	if kv.Lease != 0 {
		if t, err := b.cli.timeToLive(ctx, kv.Lease); err == nil && t.GrantedTTL > 0 {
			ttl = time.Duration(t.GrantedTTL) * time.Second
		}
	}
	return b.newGrant(key, held, kv.CreateRevision, kv.Lease, ttl), &held, nil
}

// WaitChange returns once a lock of the project changed after revision since.
func (b *Backend) WaitChange(ctx context.Context, since int64) error {
	w, err := b.cli.watch(ctx, b.keys.base, true, since+1)
	if err != nil {
		return err
	}
	defer w.close()
	if _, err := w.next(); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		return err
	}
	return nil
}
