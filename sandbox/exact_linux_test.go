package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// procTree writes a proc-like tree: keys are paths below it.
func procTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

const (
	unprivStatus = "Name:\tguard\nCapEff:\t0000000000000000\n"
	rootStatus   = "Name:\tguard\nCapEff:\t000001ffffffffff\n"
)

func TestExactReadsTheSwitchesThatForbidNamespaces(t *testing.T) {
	for name, c := range map[string]struct {
		files map[string]string
		want  string // "" for nil
	}{
		"upstream default": {map[string]string{"sys/user/max_user_namespaces": "63000\n", "self/status": unprivStatus}, ""},
		"no user namespaces built in": {map[string]string{"self/status": unprivStatus},
			"this kernel offers no user namespaces (no /proc/sys/user/max_user_namespaces: built without CONFIG_USER_NS)"},
		"max zero, even for root": {map[string]string{"sys/user/max_user_namespaces": "0\n", "self/status": rootStatus},
			"user namespaces are disabled (user.max_user_namespaces=0)"},
		"debian switch off": {map[string]string{"sys/user/max_user_namespaces": "100", "sys/kernel/unprivileged_userns_clone": "0\n", "self/status": unprivStatus},
			"unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)"},
		"debian switch off, root exempt": {map[string]string{"sys/user/max_user_namespaces": "100", "sys/kernel/unprivileged_userns_clone": "0", "self/status": rootStatus}, ""},
		"debian switch on":               {map[string]string{"sys/user/max_user_namespaces": "100", "sys/kernel/unprivileged_userns_clone": "1", "self/status": unprivStatus}, ""},
		"ubuntu restriction, unconfined": {map[string]string{"sys/user/max_user_namespaces": "100", "sys/kernel/apparmor_restrict_unprivileged_userns": "1",
			"self/attr/apparmor/current": "unconfined\n", "self/status": unprivStatus},
			"AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1): a namespace guard creates gets no right to mount; an AppArmor profile for guard's binary that allows \"userns,\" lifts it"},
		"ubuntu restriction, confined by a profile": {map[string]string{"sys/user/max_user_namespaces": "100", "sys/kernel/apparmor_restrict_unprivileged_userns": "1",
			"self/attr/apparmor/current": "guard (enforce)\n", "self/status": unprivStatus}, ""},
		"ubuntu restriction off": {map[string]string{"sys/user/max_user_namespaces": "100", "sys/kernel/apparmor_restrict_unprivileged_userns": "0", "self/status": unprivStatus}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			err := exactAt(procTree(t, c.files))
			if c.want == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, c.want)
			}
		})
	}
}

// Exact on this machine agrees with the kernel: when it says yes, a real child in a
// new user and mount namespace, keeping the caller's uid, can mount.
func TestExactAgreesWithTheKernel(t *testing.T) {
	err := Exact()
	cmd := exec.Command("mount", "--rbind", "/", "/")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
	}
	out, runErr := cmd.CombinedOutput()
	if err != nil {
		t.Logf("Exact: %v; the kernel: %v %s", err, runErr, out)
		assert.Error(t, runErr, "Exact says no, yet the kernel mounted in a user namespace")
		return
	}
	require.NoError(t, runErr, "Exact says yes, yet no user namespace could be made: %s", out)
}
