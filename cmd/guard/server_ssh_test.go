package main

// The server side over ssh, as a plain git server runs it: Debian's openssh-server on a
// free 127.0.0.1 port with the test's own configuration, host key and authorized_keys,
// whose forced commands set the pusher per key (GUARD_PUSHER, named by [server]
// pusher_env) and hand the push to git-shell. The clients are plain git over ssh with
// no guard hooks and a GUARD_OWNER that names someone else.

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/testenv"
)

// srvSSH is a running sshd and the keys of its users.
type srvSSH struct {
	port int
	user string
	keys map[string]string // private key file by pusher name
}

// startSSHD starts sshd for the server s: one key per pusher in pushers ("" is a key
// whose forced command sets no pusher). It skips the test, saying why, where
// openssh-server is not installed.
func startSSHD(t *testing.T, s srvServer, pushers ...string) *srvSSH {
	t.Helper()
	sshd := "/usr/sbin/sshd"
	for _, p := range []string{sshd, "/usr/bin/ssh", "/usr/bin/ssh-keygen", "/usr/bin/git-shell"} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s is not installed (apt-get install openssh-server openssh-client git): %v", p, err)
		}
	}
	u, err := user.Current()
	require.NoError(t, err)
	if os.Geteuid() == 0 {
		// sshd run by root needs its privilege separation folder, which the package's
		// service unit would make.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Skipf("sshd needs /run/sshd: %v", err)
		}
	}
	dir := t.TempDir()
	keygen := func(name string) string {
		p := filepath.Join(dir, name)
		out, err := exec.Command("/usr/bin/ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", p).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return p
	}
	host := keygen("host")
	home := t.TempDir()
	var auth strings.Builder
	srv := &srvSSH{user: u.Username, keys: map[string]string{}}
	for _, pusher := range pushers {
		name := "key-" + pusher
		if pusher == "" {
			name = "key-nobody"
		}
		key := keygen(name)
		srv.keys[pusher] = key
		pub, err := os.ReadFile(key + ".pub")
		require.NoError(t, err)
		set := ""
		if pusher != "" {
			set = "GUARD_PUSHER=" + pusher + " "
		}
		// The forced command is the server's word on who pushes; the environment is
		// the test's own (no user configuration, its own history).
		fmt.Fprintf(&auth, "command=\"env -i PATH=%s HOME=%s GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 XDG_STATE_HOME=%s TZ=UTC LANG=C %sgit-shell -c \\\"$SSH_ORIGINAL_COMMAND\\\"\",no-port-forwarding,no-pty,no-agent-forwarding %s",
			testenv.Path(), home, s.state, set, strings.TrimSpace(string(pub)))
		auth.WriteString("\n")
	}
	authFile := filepath.Join(dir, "authorized_keys")
	require.NoError(t, os.WriteFile(authFile, []byte(auth.String()), 0o600))

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv.port = l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	cfg := filepath.Join(dir, "sshd_config")
	require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
AuthorizedKeysFile %s
PidFile %s
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowTcpForwarding no
X11Forwarding no
PermitUserEnvironment no
LogLevel ERROR
`, srv.port, host, authFile, filepath.Join(dir, "sshd.pid"))), 0o600))
	var logs bytes.Buffer
	cmd := exec.Command(sshd, "-D", "-e", "-f", cfg)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.Env = []string{"PATH=" + testenv.Path()}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("sshd: %s", logs.String())
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", srv.port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		require.True(t, time.Now().Before(deadline), "sshd did not listen: %s", logs.String())
		time.Sleep(50 * time.Millisecond)
	}
	return srv
}

// url is the server's repository over ssh.
func (h *srvSSH) url(s srvServer) string {
	return fmt.Sprintf("ssh://%s@127.0.0.1:%d%s", h.user, h.port, s.bare)
}

// push runs `git push --no-verify` over ssh with pusher's key, from a client whose
// own GUARD_OWNER says alice.
func (h *srvSSH) push(t *testing.T, s srvServer, dir, pusher string, args ...string) (string, int) {
	t.Helper()
	ssh := fmt.Sprintf("/usr/bin/ssh -F /dev/null -i %s -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o ConnectTimeout=30 -o ServerAliveInterval=10 -o ServerAliveCountMax=6", h.keys[pusher])
	return srvGitPush(t, dir, []string{"PATH=" + testenv.Path(), "HOME=" + t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_SSH_COMMAND=" + ssh, "GUARD_OWNER=alice", "LANG=C"}, args...)
}

func TestServerOverSSHTheKeysForcedCommandNamesThePusher(t *testing.T) {
	t.Parallel()
	s, work := srvSetup(t, srvConfig)
	h := startSSHD(t, s, "alice", "bob", "")
	before := s.ref(t, "refs/heads/main")

	bob := s.clone(t)
	guardtest.Git(t, bob, "remote", "set-url", "origin", h.url(s))
	ctWrite(t, bob, "src/a.go", "package a // bob over ssh\n")
	guardtest.Git(t, bob, "commit", "-qam", "bob changes src")
	stderr, code := h.push(t, s, bob, "bob", "origin", "main")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, srvRefusal)
	assert.Contains(t, stderr, " ! [remote rejected] main -> main (pre-receive hook declined)")
	assert.Equal(t, before, s.ref(t, "refs/heads/main"))

	// A key whose forced command names no pusher is refused, fail closed.
	stderr, code = h.push(t, s, bob, "", "origin", "main")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "remote: guard: pre-receive: cannot check this push: no pusher identity: GL_USERNAME, GITEA_PUSHER_NAME and\n")
	assert.Equal(t, before, s.ref(t, "refs/heads/main"))

	// alice's key: her own lock lets her through.
	guardtest.Git(t, work, "remote", "set-url", "origin", h.url(s))
	ctWrite(t, work, "src/a.go", "package a // alice over ssh\n")
	guardtest.Git(t, work, "commit", "-qam", "alice changes src")
	stderr, code = h.push(t, s, work, "alice", "origin", "main")
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, guardtest.Git(t, work, "rev-parse", "HEAD"), s.ref(t, "refs/heads/main"))
}
