package guard

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Backend is a coordination service that holds a project's locks besides the lock
// files (CONTRACT.md section 10): the one place where claims from several machines
// meet, so that exactly one of them wins. guard's policy only reads it (Snapshot);
// the claim path of guard lock, run and the agent claims wins there first (Claim) and
// then writes the lock file as a follower. The etcd implementation lives in
// backend/etcd; main wires it in through Env.OpenBackend.
type Backend interface {
	// Where names the service and the project for messages ("etcd at
	// http://127.0.0.1:2379, project github.com/o/r").
	Where() string
	// Snapshot reads every lock the project holds, at one revision.
	Snapshot(ctx context.Context) (*BackendSnapshot, error)
	// Claim wins c.Lock for its owner: it fails with ErrBackendMoved when a lock of
	// an overlapping area of the project changed after c.Since, so that the caller
	// judges again, and otherwise makes the lock the project's, bound to a lease of
	// c.TTL (0: held until released).
	Claim(ctx context.Context, c BackendClaim) (BackendGrant, error)
	// Attach returns the grant of the lock held at dir/name (resource: the URI) by a
	// claim of any process, for renew and unlock; ErrBackendNoLock when there is none.
	Attach(ctx context.Context, dir, name, resource string) (BackendGrant, *BackendLock, error)
	// WaitChange returns once a lock of the project changed after revision since (or
	// ctx ended).
	WaitChange(ctx context.Context, since int64) error
	// Close ends the conversation with the service.
	Close() error
}

// BackendGrant is one lock won in a Backend: the lease that keeps it and the fence
// (revision) that won it.
type BackendGrant interface {
	// Fence is the revision at which the lock was won: it names this grant among all
	// grants of the project, and the lock file carries it as fence:.
	Fence() int64
	// Renew keeps the lease alive and stores body as the lock's new body; ttl, when
	// it differs from the lease's, moves the lock onto a new lease of ttl. A lock that
	// is no longer this grant is ErrBackendLost (and the grant is lost).
	Renew(ctx context.Context, body []byte, ttl time.Duration) error
	// Release deletes the lock if it is still this grant, and the lease.
	Release(ctx context.Context) error
	// Lost closes when the lock stops being this grant (deleted, replaced, its lease
	// expired or revoked); Err then says which.
	Lost() <-chan struct{}
	Err() error
}

// BackendLock is a lock as the backend holds it.
type BackendLock struct {
	// Dir is the lock's folder, relative to the project root, slash-separated ("" for
	// the root); Name is the lock file's name. Resource is set instead for a resource
	// lock (its URI); Name is then the resource lock file's name.
	Dir      string
	Name     string
	Resource string
	// Body is the lock file's body without its fence line.
	Body []byte
	// Fence is the revision that won the lock; Lease the lease that keeps it (0: none).
	Fence int64
	Lease int64
}

// BackendSnapshot is every lock of a project at one revision.
type BackendSnapshot struct {
	Revision int64
	Locks    []BackendLock
}

// BackendClaim is a claim as a Backend takes it.
type BackendClaim struct {
	Lock BackendLock
	// TTL is the lease (the lock's lifetime); 0 holds until released.
	TTL time.Duration
	// Since is the revision of the snapshot the claim was judged at.
	Since int64
	// Replace is the fence of the caller's own lock of the same name that this claim
	// renews (the fence stays); 0 when the name must be free. ReplaceLease is that
	// lock's lease, which the renewal retires.
	Replace      int64
	ReplaceLease int64
}

// Errors of a Backend.
var (
	// ErrBackendMoved: an overlapping lock changed since the snapshot; judge again.
	ErrBackendMoved = errors.New("a lock of an overlapping area changed meanwhile")
	// ErrBackendNoLock: no such lock is held in the backend.
	ErrBackendNoLock = errors.New("no such lock is held in the backend")
	// ErrBackendLost: the lock is no longer this grant.
	ErrBackendLost = errors.New("the lock is no longer held by this grant in the backend")
)

// BackendOpener connects to the backend cfg.Backend names for project (cfg.Dir
// resolves relative TLS paths).
type BackendOpener func(cfg *Config, project string, env *Env) (Backend, error)

// UnreachableError is a backend that could not be consulted: reads fail closed with
// it (exit 2) unless offline = "files".
type UnreachableError struct {
	Where string
	Err   error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("the lock backend (%s) cannot be consulted: %v; guard fails closed while it is unreachable (set [backend] offline = \"files\" in .guard.toml to judge from the lock files alone meanwhile)", e.Where, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }
