package backend_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guardlocks/guard/backend"
	"github.com/guardlocks/guard/backend/etcd"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/testing/etcdtest"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// machine is one clone on one machine: its own working tree and its own connection.
func machine(t *testing.T, endpoints []string) *guard.ProjectBackend {
	t.Helper()
	top := t.TempDir()
	cfg := &guard.Config{Dir: top, Path: filepath.Join(top, ".guard.toml"), Backend: &guard.BackendConfig{
		Kind: "etcd", Endpoints: endpoints, DialTimeout: "5s",
	}}
	b, err := etcd.Open(cfg, "example.com/team/project", envtest.New().Env)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return &guard.ProjectBackend{Backend: b, Config: cfg, Top: top, Project: "example.com/team/project"}
}

func claim(ctx context.Context, pb *guard.ProjectBackend, dir, owner, expires string) (lockcore.Handle, error) {
	d := filepath.Join(pb.Top, dir)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return nil, err
	}
	return (&backend.Locker{PB: pb}).Acquire(ctx, lockcore.Request{
		Spec:  lockcore.Spec{Dir: d, Kind: lockcore.Exclusive, Owner: owner, Host: owner, Expires: expires},
		Clock: lockcore.ClockFunc(time.Now),
	})
}

// A three-member cluster whose leader is stopped while two machines race for one
// lock and a third holds another: no lock held is lost, and no lock is granted to two
// holders at once (nor with a fence that does not rise).
func TestThreeMemberClusterLeaderStoppedMidRunLosesNoLockAndGrantsNoneTwice(t *testing.T) {
	cl := etcdtest.Start(t, 3)
	ctx := context.Background()
	keeper := machine(t, cl.Endpoints())
	held, err := claim(ctx, keeper, "keep", "keeper", "20s")
	require.NoError(t, err)
	lost := held.Lost()

	var (
		holders  atomic.Int32
		twice    atomic.Int32
		grants   atomic.Int32
		mu       sync.Mutex
		lastFen  int64
		backward []int64
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, owner := range []string{"racer-a", "racer-b"} {
		pb := machine(t, cl.Endpoints())
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				h, err := claim(ctx, pb, "hot", owner, "20s")
				var ce *lockcore.ConflictError
				var ue *guard.UnreachableError
				switch {
				case errors.As(err, &ce), errors.As(err, &ue):
					time.Sleep(5 * time.Millisecond)
					continue
				case err != nil:
					t.Errorf("%s: %v", owner, err)
					return
				}
				if holders.Add(1) > 1 {
					twice.Add(1)
				}
				grants.Add(1)
				mu.Lock()
				if h.Fence() <= lastFen {
					backward = append(backward, h.Fence())
				}
				lastFen = h.Fence()
				mu.Unlock()
				time.Sleep(10 * time.Millisecond)
				holders.Add(-1)
				for {
					rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
					err := h.Release(rctx)
					cancel()
					if err == nil || errors.Is(err, guard.ErrBackendLost) {
						break
					}
					// The release did not reach etcd (leader change): until it does, the
					// lock is still held, and nobody else may win it.
					time.Sleep(50 * time.Millisecond)
				}
			}
		}()
	}

	renewals := make(chan error, 100)
	go func() {
		for range 8 {
			// Renewals of a real etcd lease, spread over the real seconds the
			// cluster takes to elect a new leader: what is tested is that the lease
			// lives through the election, which no Clock of guard's can shorten.
			time.Sleep(time.Second)
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			renewals <- held.Renew(rctx)
			cancel()
		}
		close(renewals)
	}()

	// The racers must have won the lock a few times before the leader stops: waited
	// for, not slept on.
	for deadline := time.Now().Add(10 * time.Second); grants.Load() < 3 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	before := grants.Load()
	var leader *etcdtest.Member
	for deadline := time.Now().Add(10 * time.Second); leader == nil && time.Now().Before(deadline); {
		leader = cl.Leader()
		time.Sleep(10 * time.Millisecond)
	}
	require.NotNil(t, leader, "no leader")
	leader.Stop()
	time.Sleep(5 * time.Second)
	close(stop)
	wg.Wait()

	var renewErrs []error
	for err := range renewals {
		if err != nil {
			renewErrs = append(renewErrs, err)
		}
	}
	t.Logf("grants: %d before the leader stopped, %d in all", before, grants.Load())
	assert.Zero(t, twice.Load(), "a lock was held by two at once")
	assert.Empty(t, backward, "a grant's fence did not rise")
	assert.Greater(t, before, int32(0), "no grant before the leader stopped")
	assert.Greater(t, grants.Load(), before, "no grant after the leader stopped")
	select {
	case <-lost:
		t.Fatalf("the kept lock was lost: %v", held.Err())
	default:
	}
	// Renewals may fail while the cluster elects, but the lease was kept alive.
	assert.Less(t, len(renewErrs), 8, "every renewal failed: %v", renewErrs)
	snap, err := keeper.Backend.Snapshot(ctx)
	require.NoError(t, err)
	found := false
	for _, bl := range snap.Locks {
		if bl.Dir == "keep" && bl.Fence == held.Fence() {
			found = true
		}
	}
	assert.True(t, found, "the kept lock is still in etcd with its fence")
	require.NoError(t, held.Release(ctx))
}
