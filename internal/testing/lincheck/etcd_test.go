//go:build linux

package lincheck

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The etcd backend's scenarios: three etcd members (Debian's etcd-server, the
// program a team runs), each in a network namespace of its own made by the test,
// joined by veth pairs to a bridge in a fourth namespace where the clients run, on
// addresses of a private range that exist only inside these namespaces. A partition
// is an nftables table inside the member's namespace that drops everything but its
// loopback. Every client has a tree of its own (one clone per machine) and a host
// name of its own; etcd decides who holds.

const (
	etcdTTL = 3 * time.Second
	// etcdSlack: a lease is granted after the claim was invoked and etcd's leader
	// counts its TTL on its monotonic clock (a new leader extends leases, never
	// shortens them), so a lease cannot end before claim + TTL; 250 ms for the
	// machine's scheduling.
	etcdSlack = 250 * time.Millisecond
	subnet    = "10.213.0."
)

type netMember struct {
	name, ns, ip, data string
	// monotonic is the offset of the member's monotonic and boot clocks (a time
	// namespace of its own) from the next start on; 0: the machine's.
	monotonic int

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	logs bytes.Buffer
}

type netCluster struct {
	t       *testing.T
	bin     string
	hub     string
	members []*netMember
	peers   string
}

func (m *netMember) clientURL() string { return "http://" + m.ip + ":2379" }

// netEtcd makes the namespaces and starts the members; everything is removed when
// the test ends, failed or not.
func netEtcd(t *testing.T, n int) *netCluster {
	t.Helper()
	needRoot(t, "the etcd fault scenarios")
	bin := os.Getenv("GUARD_TEST_ETCD")
	if bin == "" {
		bin = "/usr/bin/etcd"
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no etcd server at %s (install Debian's etcd-server, as .ci/setup-etcd does, or set GUARD_TEST_ETCD): %v", bin, err)
	}
	for _, tool := range []string{"ip", "nft", "unshare"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (iproute2, nftables, util-linux): %v", tool, err)
		}
	}
	var id [3]byte
	_, _ = rand.Read(id[:])
	pre := "lc" + hex.EncodeToString(id[:])
	c := &netCluster{t: t, bin: bin, hub: pre + "-hub"}
	t.Cleanup(func() {
		for _, m := range c.members {
			m.stop()
		}
		for _, m := range c.members {
			_ = exec.Command("ip", "netns", "del", m.ns).Run()
		}
		_ = exec.Command("ip", "netns", "del", c.hub).Run()
	})
	sh(t, "ip", "netns", "add", c.hub)
	sh(t, "ip", "-n", c.hub, "link", "set", "lo", "up")
	sh(t, "ip", "-n", c.hub, "link", "add", "br0", "type", "bridge")
	sh(t, "ip", "-n", c.hub, "addr", "add", subnet+"254/24", "dev", "br0")
	sh(t, "ip", "-n", c.hub, "link", "set", "br0", "up")
	base := t.TempDir()
	var peers []string
	for i := range n {
		m := &netMember{name: fmt.Sprintf("m%d", i), ns: fmt.Sprintf("%s-m%d", pre, i), ip: fmt.Sprintf("%s%d", subnet, i+1),
			data: filepath.Join(base, fmt.Sprintf("m%d", i))}
		c.members = append(c.members, m)
		veth := fmt.Sprintf("v%d", i)
		sh(t, "ip", "netns", "add", m.ns)
		sh(t, "ip", "-n", c.hub, "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", m.ns)
		sh(t, "ip", "-n", c.hub, "link", "set", veth, "master", "br0", "up")
		sh(t, "ip", "-n", m.ns, "addr", "add", m.ip+"/24", "dev", "eth0")
		sh(t, "ip", "-n", m.ns, "link", "set", "eth0", "up")
		sh(t, "ip", "-n", m.ns, "link", "set", "lo", "up")
		peers = append(peers, fmt.Sprintf("%s=http://%s:2380", m.name, m.ip))
	}
	c.peers = strings.Join(peers, ",")
	for _, m := range c.members {
		c.start(m)
	}
	c.waitLeader(60 * time.Second)
	return c
}

// start starts the member with its data folder (a restart keeps it).
func (c *netCluster) start(m *netMember) {
	c.t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	argv := []string{"ip", "netns", "exec", m.ns}
	if m.monotonic != 0 {
		off := fmt.Sprint(m.monotonic)
		argv = append(argv, "unshare", "--time", "--fork", "--monotonic", off, "--boottime", off)
	}
	argv = append(argv, c.bin, "--name", m.name, "--data-dir", m.data,
		"--listen-client-urls", m.clientURL(), "--advertise-client-urls", m.clientURL(),
		"--listen-peer-urls", "http://"+m.ip+":2380", "--initial-advertise-peer-urls", "http://"+m.ip+":2380",
		"--initial-cluster", c.peers, "--initial-cluster-token", "lincheck", "--initial-cluster-state", "new",
		// Short elections, so that a lost leader is replaced within a scenario.
		"--heartbeat-interval", "50", "--election-timeout", "500", "--log-level", "error")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "ETCD_UNSUPPORTED_ARCH=" + os.Getenv("ETCD_UNSUPPORTED_ARCH")}
	m.logs.Reset()
	cmd.Stdout, cmd.Stderr = &m.logs, &m.logs
	// Its own process group: the stop reaches unshare's child too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("starting etcd %s: %v", m.name, err)
	}
	m.cmd, m.done = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(m.done)
}

// stop stops the member (SIGTERM to its group, SIGKILL after 10 s); idempotent.
func (m *netMember) stop() {
	m.mu.Lock()
	cmd, done := m.cmd, m.done
	m.cmd = nil
	m.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// restart stops the member and starts it again with its data after down.
func (c *netCluster) restart(m *netMember, down time.Duration) {
	m.stop()
	time.Sleep(down)
	c.start(m)
}

// partition cuts all of the member's traffic but its loopback, inside its namespace;
// heal removes the rules.
func (c *netCluster) partition(m *netMember) (heal func()) {
	c.t.Helper()
	rules := "table inet lincheck {\n chain in {\n  type filter hook input priority 0;\n  iif \"lo\" accept\n  drop\n }\n" +
		" chain out {\n  type filter hook output priority 0;\n  oif \"lo\" accept\n  drop\n }\n}\n"
	cmd := exec.Command("ip", "netns", "exec", m.ns, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rules)
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("partitioning %s: %v\n%s", m.name, err, out)
	}
	return func() { sh(c.t, "ip", "netns", "exec", m.ns, "nft", "delete", "table", "inet", "lincheck") }
}

// status is a member's view: its id and its leader's, asked from the clients'
// namespace (the test binary again, as LINCHECK_STATUS).
func (c *netCluster) status(m *netMember) (id, leader string, err error) {
	self, _ := os.Executable()
	cmd := exec.Command("ip", "netns", "exec", c.hub, self)
	cmd.Env = []string{"LINCHECK_STATUS=" + m.clientURL()}
	out, err := cmd.Output()
	if err != nil {
		return "", "", err
	}
	var st struct {
		Header struct {
			MemberID string `json:"member_id"`
		} `json:"header"`
		Leader string `json:"leader"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		return "", "", fmt.Errorf("%s: %q: %w", m.name, out, err)
	}
	return st.Header.MemberID, st.Leader, nil
}

// Status is LINCHECK_STATUS: print the member's maintenance status (TestMain).
func Status(url string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v3/maintenance/status", strings.NewReader("{}"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(os.Stdout, resp.Body)
	os.Exit(0)
}

// leader is the member every reachable member names as the leader (nil: none yet).
func (c *netCluster) leader() *netMember {
	ids := map[string]*netMember{}
	var leaders []string
	for _, m := range c.members {
		id, l, err := c.status(m)
		if err == nil {
			ids[id] = m
			leaders = append(leaders, l)
		}
	}
	if len(leaders) == 0 {
		return nil
	}
	for _, l := range leaders[1:] {
		if l != leaders[0] {
			return nil
		}
	}
	return ids[leaders[0]]
}

func (c *netCluster) waitLeader(within time.Duration) *netMember {
	c.t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if l := c.leader(); l != nil {
			return l
		}
	}
	var logs []string
	for _, m := range c.members {
		m.mu.Lock()
		logs = append(logs, m.name+": "+m.logs.String())
		m.mu.Unlock()
	}
	c.t.Fatalf("no etcd leader within %s:\n%s", within, strings.Join(logs, "\n"))
	return nil
}

// follower is a member that is not the leader.
func (c *netCluster) follower() *netMember {
	l := c.waitLeader(30 * time.Second)
	for _, m := range c.members {
		if m != l {
			return m
		}
	}
	return nil
}

// etcdHarness is the clients of an etcd scenario: a tree each, in the clients'
// namespace.
func etcdHarness(t *testing.T, c *netCluster) *Harness {
	cfg := Config{Clients: 3, Duration: scenarioLength(12*time.Second, 90*time.Second), TTL: etcdTTL,
		Wait: 5 * time.Second, RunShare: 0.35, Seed: seed(t), Timeout: 30 * time.Second}
	var eps []string
	for _, m := range c.members {
		eps = append(eps, fmt.Sprintf("%q", m.clientURL()))
	}
	toml := fmt.Sprintf("[backend]\nkind = \"etcd\"\nendpoints = [%s]\nproject_id = \"lincheck\"\ndial_timeout = \"2s\"\n", strings.Join(eps, ", "))
	target := Target{Guard: guardBin, Env: clientEnv(t, func(i int) string { return fmt.Sprintf("box%d", i) }),
		Wrap: []string{"ip", "netns", "exec", c.hub}}
	for i := range cfg.Clients {
		target.Trees = append(target.Trees, gitTree(t, filepath.Join(t.TempDir(), fmt.Sprintf("clone%d", i)),
			map[string]string{".guard.toml": toml}))
	}
	return NewHarness(t, target, cfg)
}

func TestEtcdNoFault(t *testing.T) {
	scenario(t)
	c := netEtcd(t, 3)
	h := etcdHarness(t, c)
	h.Config.Duration = scenarioLength(8*time.Second, 60*time.Second)
	h.Run(context.Background())
	h.Check(etcdSlack)
	assert.Equal(t, 0, h.Lost, "guard run lost its lock without a fault")
}

func TestEtcdPartitionOfOneMember(t *testing.T) {
	scenario(t)
	c := netEtcd(t, 3)
	underFault(t, etcdHarness(t, c), Fault{What: "partitions of a follower for 4 s", For: 4 * time.Second, Gap: 3 * time.Second,
		Checked: etcdSlack, On: func() func() { return c.partition(c.follower()) }})
}

func TestEtcdPartitionOfTheLeader(t *testing.T) {
	scenario(t)
	c := netEtcd(t, 3)
	underFault(t, etcdHarness(t, c), Fault{What: "partitions of the leader for 4 s", For: 4 * time.Second, Gap: 3 * time.Second,
		Checked: etcdSlack, On: func() func() { return c.partition(c.waitLeader(30 * time.Second)) }})
}

func TestEtcdHolderPausedPastItsLease(t *testing.T) {
	scenario(t)
	c := netEtcd(t, 3)
	h := etcdHarness(t, c)
	pausedHolder(t, h, 2*etcdTTL)
	h.Check(etcdSlack)
}

func TestEtcdMembersRestartedWithTheirData(t *testing.T) {
	scenario(t)
	c := netEtcd(t, 3)
	i := 0
	underFault(t, etcdHarness(t, c), Fault{What: "restarts (every third one of all members at once)", Gap: 3 * time.Second,
		Checked: etcdSlack, On: func() func() {
			if i%3 == 2 {
				// Every member at once: leases and keys come back from the data.
				for _, m := range c.members {
					m.stop()
				}
				// The fault is an outage of real processes, whose leases run on real
				// time: the cluster stays down for a second of it (no Clock to move;
				// restart below waits as long for one member).
				time.Sleep(time.Second)
				for _, m := range c.members {
					c.start(m)
				}
			} else {
				c.restart(c.members[i%3], time.Second)
			}
			i++
			c.waitLeader(30 * time.Second)
			return nil
		}})
}

// TestEtcdMemberClockStepped steps members' clocks the only way one can without
// stepping the machine's: CLOCK_REALTIME is not namespaced, so each member in turn
// (the leader first) is restarted with its data inside a time namespace whose
// monotonic and boot clocks run an hour (then two, ...) ahead of the machine's, a
// forward step of the clocks etcd measures leases with, as seen across the restart.
func TestEtcdMemberClockStepped(t *testing.T) {
	scenario(t)
	c := netEtcd(t, 3)
	step := 0
	underFault(t, etcdHarness(t, c), Fault{What: "clock steps of a member (an hour further ahead each)", Gap: 3 * time.Second,
		Checked: etcdSlack, On: func() func() {
			step++
			m := c.waitLeader(30 * time.Second)
			if step%2 == 0 {
				m = c.follower()
			}
			m.monotonic = 3600 * step
			c.restart(m, 500*time.Millisecond)
			c.waitLeader(30 * time.Second)
			return nil
		}})
}
