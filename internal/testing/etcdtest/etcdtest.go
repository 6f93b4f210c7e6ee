// Package etcdtest starts real etcd servers (go.etcd.io/etcd/server/v3/embed) on
// 127.0.0.1 for tests: one member, or a cluster of several whose members can be
// stopped one by one. Only tests import it.
package etcdtest

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Member is one running etcd server.
type Member struct {
	Name      string
	ClientURL string
	etcd      *embed.Etcd
	stopped   bool
	mu        sync.Mutex
}

// Stop stops the member (idempotent).
func (m *Member) Stop() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.stopped {
		m.stopped = true
		m.etcd.Close()
	}
}

// IsLeader reports whether the member leads the cluster now.
func (m *Member) IsLeader() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return false
	}
	s := m.etcd.Server
	return s.Leader() == s.MemberID()
}

// Cluster is the running members.
type Cluster struct {
	Members []*Member
}

// Endpoints are the client URLs of every member.
func (c *Cluster) Endpoints() []string {
	var out []string
	for _, m := range c.Members {
		out = append(out, m.ClientURL)
	}
	return out
}

// Leader is the member that leads now (nil while none does).
func (c *Cluster) Leader() *Member {
	for _, m := range c.Members {
		if m.IsLeader() {
			return m
		}
	}
	return nil
}

// freePorts returns n ports free on 127.0.0.1 a moment ago.
func freePorts(t testing.TB, n int) []int {
	var ls []net.Listener
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("etcdtest: %v", err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return out
}

// Start starts a cluster of n members on 127.0.0.1 and stops it when the test ends.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	ports := freePorts(t, 2*n)
	var names, peers []string
	for i := range n {
		names = append(names, fmt.Sprintf("m%d", i))
		peers = append(peers, fmt.Sprintf("m%d=http://127.0.0.1:%d", i, ports[2*i+1]))
	}
	c := &Cluster{}
	var wg sync.WaitGroup
	errs := make([]error, n)
	c.Members = make([]*Member, n)
	base := t.TempDir()
	for i := range n {
		cfg := embed.NewConfig()
		cfg.Name = names[i]
		cfg.Dir = filepath.Join(base, names[i])
		// The server's own log (shutdown noise included) would bury the test's.
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		cu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", ports[2*i]))
		pu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", ports[2*i+1]))
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
		cfg.InitialCluster = strings.Join(peers, ",")
		cfg.InitialClusterToken = "guard-test"
		// Short elections, so that a stopped leader is replaced within a test.
		cfg.TickMs = 50
		cfg.ElectionMs = 500
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := embed.StartEtcd(cfg)
			if err != nil {
				errs[i] = err
				return
			}
			select {
			case <-e.Server.ReadyNotify():
			case <-time.After(60 * time.Second):
				e.Close()
				errs[i] = fmt.Errorf("member %s not ready within 60s", cfg.Name)
				return
			}
			c.Members[i] = &Member{Name: cfg.Name, ClientURL: cu.String(), etcd: e}
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, m := range c.Members {
			if m != nil {
				m.Stop()
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			t.Fatalf("etcdtest: %v", err)
		}
	}
	return c
}
