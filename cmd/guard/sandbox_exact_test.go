//go:build linux

package main

// Real kernel tests of the exact sandbox (CONTRACT.md section 11): COMMAND runs in a
// user and mount namespace of its own with every read-only area bind-mounted
// read-only, under Landlock's scopes. The kernel's own errno for each attempt is
// asserted, and the files are looked at afterwards.

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/install"
	"github.com/guardlocks/guard/sandbox"
)

// sbProbe is a python program that tries each operation of its arguments ("op:path"
// or "op:path:path") and prints "op path: ERRNO" or "op path: ok".
const sbProbe = `import errno, os, sys
def attempt(op, a, b):
    if op == "write": open(a, "w").write("pwned")
    elif op == "append": open(a, "a").write("pwned")
    elif op == "create": open(a, "x").write("new")
    elif op == "utime": os.utime(a, (0, 0))
    elif op == "chmod": os.chmod(a, 0o600)
    elif op == "chown": os.chown(a, os.getuid(), os.getgid())
    elif op == "setxattr": os.setxattr(a, "user.guard", b"x")
    elif op == "unlink": os.unlink(a)
    elif op == "rmdir": os.rmdir(a)
    elif op == "mkdir": os.mkdir(a)
    elif op == "rename": os.rename(a, b)
    elif op == "link": os.link(a, b)
    elif op == "truncate": os.truncate(a, 0)
for arg in sys.argv[1:]:
    op, a, b = (arg.split(":") + [""])[:3]
    try:
        attempt(op, a, b)
        print(op, a, "ok")
    except OSError as e:
        print(op, a, errno.errorcode[e.errno])
`

func sbNeedPython(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3 to try each system call with")
	}
}

// probe runs sbProbe under guard sandbox in the project and returns its lines.
func (tr sbTree) probe(t *testing.T, ops ...string) (lines []string, stderr string) {
	t.Helper()
	ctWrite(t, tr.base, "probe.py", sbProbe)
	args := append([]string{"sandbox", "--", "/usr/bin/python3", filepath.Join(tr.base, "probe.py")}, ops...)
	stdout, stderr, code := sbRun(t, tr.proj, tr.env(), args...)
	require.Equal(t, 0, code, stderr)
	return strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"), stderr
}

// The hand check, by the kernel's own errors: a write, a time, a mode, a
// remove in the area fail with EROFS, a rename of the locked folder with EBUSY, a
// hard link out of it with EXDEV, and a new file beside the locked folder (in the
// project root) is made, which Landlock alone must refuse.
func TestExactSandboxRefusesWithTheKernelsOwnErrors(t *testing.T) {
	sbNeedLandlock(t)
	sbNeedExact(t)
	sbNeedPython(t)
	tr := sbNewTree(t)
	before, mtimes := tr.snapshot(t, sbProtected...), tr.times(t, sbProtected...)
	lines, stderr := tr.probe(t,
		"write:locked/data.txt", "append:locked/data.txt", "truncate:locked/data.txt", "create:locked/new.txt",
		"utime:locked/data.txt", "chmod:locked/data.txt", "chown:locked/data.txt", "setxattr:locked/data.txt",
		"unlink:locked/data.txt", "rmdir:locked/empty", "mkdir:locked/d", "rename:locked/data.txt:locked/r.txt",
		"rename:locked:locked2", "rename:locked/data.txt:free/stolen.txt", "link:locked/data.txt:free/hard.txt",
		"link:free/x.txt:locked/hard.txt", "unlink:locked",
		// Lock files, a soft lock's included, and markers: mounted read-only one by one.
		"utime:locked/LOCK.txt", "write:soft/LOCK.txt", "unlink:soft/LOCK.txt", "utime:soft/LOCK.txt",
		"write:PRIVATE.txt", "unlink:PRIVATE.txt", "chmod:PRIVATE.txt", "rename:free/x.txt:PRIVATE.txt",
		// Beside the areas: free.
		"create:new-at-root.txt", "mkdir:newdir", "rename:new-at-root.txt:newdir/moved.txt", "create:scoped/new.txt",
		"create:soft/new.txt", "unlink:README.md")
	assert.Equal(t, []string{
		"write locked/data.txt EROFS", "append locked/data.txt EROFS", "truncate locked/data.txt EROFS", "create locked/new.txt EROFS",
		"utime locked/data.txt EROFS", "chmod locked/data.txt EROFS", "chown locked/data.txt EROFS", "setxattr locked/data.txt EROFS",
		"unlink locked/data.txt EROFS", "rmdir locked/empty EROFS", "mkdir locked/d EROFS", "rename locked/data.txt EROFS",
		"rename locked EBUSY", "rename locked/data.txt EXDEV", "link locked/data.txt EXDEV",
		"link free/x.txt EROFS", "unlink locked EISDIR",
		"utime locked/LOCK.txt EROFS", "write soft/LOCK.txt EROFS", "unlink soft/LOCK.txt EBUSY", "utime soft/LOCK.txt EROFS",
		"write PRIVATE.txt EROFS", "unlink PRIVATE.txt EBUSY", "chmod PRIVATE.txt EROFS", "rename free/x.txt EBUSY",
		"create new-at-root.txt ok", "mkdir newdir ok", "rename new-at-root.txt ok", "create scoped/new.txt ok",
		"create soft/new.txt ok", "unlink README.md ok",
	}, lines, stderr)
	assert.Equal(t, before, tr.snapshot(t, sbProtected...))
	assert.Equal(t, mtimes, tr.times(t, sbProtected...), "a lock's age is its file's time: it must not change")
	assert.Equal(t, "new", ctRead(t, filepath.Join(tr.proj, "newdir", "moved.txt")))
	assert.NotContains(t, stderr, "no exact sandbox here")
}

// A lock without a created line is aged by its file's time: touch -d from inside
// cannot make it look older (or younger), in the exact sandbox; Landlock alone cannot
// refuse it (the README's limits).
func TestExactSandboxKeepsTheTimeOfALockWithoutACreatedLine(t *testing.T) {
	sbNeedLandlock(t)
	sbNeedExact(t)
	tr := sbNewTree(t)
	lock := ctWrite(t, tr.proj, "aged/LOCK.txt", "owner: alice\n")
	st, err := os.Stat(lock)
	require.NoError(t, err)
	_, stderr, code := tr.sh(t, "touch -d 2000-01-01 aged/LOCK.txt")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "aged/LOCK.txt': Read-only file system")
	after, err := os.Stat(lock)
	require.NoError(t, err)
	assert.Equal(t, st.ModTime(), after.ModTime())
}

// Root inside the sandbox (a caller who is root keeps uid 0, mapped to itself) has
// no capability left: it can neither unmount nor remount what makes an area
// read-only, nor get around it in a user namespace of its own.
func TestExactSandboxLeavesRootNoWayToUnmount(t *testing.T) {
	sbNeedLandlock(t)
	sbNeedExact(t)
	if os.Geteuid() != 0 {
		t.Skip("runs as root to show that root gains nothing inside")
	}
	tr := sbNewTree(t)
	locked := filepath.Join(tr.proj, "locked")
	script := "id -u; grep CapEff /proc/self/status; umount -l " + locked + "; mount -o remount,rw,bind " + locked +
		"; unshare -U -m --map-user=0 sh -c 'umount -l " + locked + "; echo pwned > " + locked + "/data.txt'" +
		"; unshare -U -m sh -c 'umount -l " + locked + "; echo pwned > " + locked + "/data.txt'" +
		"; echo pwned > locked/data.txt; exit 0"
	stdout, stderr, code := tr.sh(t, script)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "0\nCapEff:\t0000000000000000\n", stdout)
	assert.Equal(t, "orig\n", ctRead(t, filepath.Join(locked, "data.txt")), stderr)
}

// The sandbox keeps a process from signalling one outside it: today's hole was a
// `kill -TERM` of another owner's guard run, which released that owner's lock.
// Landlock's signal scope (ABI 6) closes it in both sandboxes.
func TestSandboxCannotSignalAnotherOwnersGuardRun(t *testing.T) {
	sbNeedLandlock(t)
	if sandbox.ABI() < 6 {
		t.Skipf("Landlock ABI %d cannot scope signals (ABI 6, Linux 6.12, can)", sandbox.ABI())
	}
	sbModes(t, func(t *testing.T, tr sbTree) {
		run := exec.Command(guardBin, "run", "free", "--", "sleep", "60")
		run.Dir = tr.proj
		run.Env = ctEnv(t, tr.env("GUARD_OWNER=alice"))
		require.NoError(t, run.Start())
		t.Cleanup(func() { _ = run.Process.Kill(); _, _ = run.Process.Wait() })
		lock := filepath.Join(tr.proj, "free", "LOCK.txt")
		deadline := time.Now().Add(20 * time.Second)
		for _, err := os.Stat(lock); err != nil; _, err = os.Stat(lock) {
			require.True(t, time.Now().Before(deadline), "guard run never took its lock")
			time.Sleep(20 * time.Millisecond)
		}
		pid := strconv.Itoa(run.Process.Pid)
		_, stderr, code := tr.sh(t, "kill -TERM "+pid+"; kill -KILL "+pid)
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "Operation not permitted")
		time.Sleep(100 * time.Millisecond)
		assert.FileExists(t, lock, "the lock was released from inside the sandbox")
		assert.NoError(t, run.Process.Signal(syscall.Signal(0)), "guard run is gone")
		// Its own children it still signals.
		_, stderr, code = tr.sh(t, "sleep 30 & kill -TERM $!; wait $!; echo $?")
		assert.Equal(t, 0, code, stderr)
	})
}

// Nor can it connect to an abstract Unix socket made outside it (ABI 6).
func TestSandboxCannotReachAnAbstractSocketOutside(t *testing.T) {
	sbNeedLandlock(t)
	sbNeedPython(t)
	if sandbox.ABI() < 6 {
		t.Skipf("Landlock ABI %d cannot scope abstract sockets (ABI 6, Linux 6.12, can)", sandbox.ABI())
	}
	name := "guard-sandbox-test-" + strconv.Itoa(os.Getpid())
	l, err := net.Listen("unix", "@"+name)
	require.NoError(t, err)
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("hello"))
			c.Close()
		}
	}()
	script := `/usr/bin/python3 -c "
import errno, socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect('\0` + name + `'); print(s.recv(5).decode())
except OSError as e:
    print(errno.errorcode[e.errno])
"`
	sbModes(t, func(t *testing.T, tr sbTree) {
		stdout, stderr, code := tr.sh(t, script)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, "EPERM\n", stdout)
	})
	// Outside, the socket answers: the refusal is the sandbox's.
	out, err := exec.Command("/usr/bin/python3", "-c", "import socket; s=socket.socket(socket.AF_UNIX); s.connect('\\0"+name+"'); print(s.recv(5).decode())").Output()
	require.NoError(t, err)
	assert.Equal(t, "hello\n", string(out))
}

// The agents' settings that run guard's hook (the project's and the user's) and the
// git hooks guard installed cannot be changed from inside: no sandboxed command can
// switch guard off for the commands after it.
func TestSandboxKeepsGuardsHooksAndTheAgentsSettings(t *testing.T) {
	sbNeedLandlock(t)
	require.True(t, strings.HasPrefix(install.Marker, guard.ManagedHookMarker), "guard.ManagedHookMarker must start install.Marker")
	sbModes(t, func(t *testing.T, tr sbTree) {
		for _, rel := range []string{"proj/.claude/settings.json", "proj/.claude/settings.local.json", "proj/.gemini/settings.json",
			"proj/.codex/hooks.json", "proj/.codex/config.toml", "home/.claude/settings.json", "home/.codex/config.toml"} {
			ctWrite(t, tr.base, rel, "{\"hooks\": \"guard\"}\n")
		}
		ctWrite(t, tr.base, "proj/.git/HEAD", "ref: refs/heads/main\n")
		ctWrite(t, tr.base, "proj/.git/hooks/pre-commit", "#!/bin/sh\n"+install.Marker+"\nexec guard hook pre-commit\n")
		ctWrite(t, tr.base, "proj/.git/hooks/post-merge", "#!/bin/sh\n")
		ctWrite(t, tr.base, "proj/.vscode/settings.json", "{}\n")
		for _, script := range []string{
			"echo '{}' > .claude/settings.json", "rm -f .claude/settings.local.json", "echo x >> .gemini/settings.json",
			"echo '{}' > .codex/hooks.json", "echo > .codex/config.toml", "echo '{}' > \"$HOME/.claude/settings.json\"",
			"echo > \"$HOME/.codex/config.toml\"", "echo 'exit 0' > .git/hooks/pre-commit", "rm -f .git/hooks/pre-commit",
			// A new settings file in a project's agent folder, or the folder moved away.
			"echo '{\"disableAllHooks\": true}' > .claude/settings.new.json", "mkdir .gemini/extra", "mv .codex .codex-off",
		} {
			_, stderr, code := tr.sh(t, script)
			assert.NotEqual(t, 0, code, "%s: %s", script, stderr)
		}
		assert.Equal(t, "{\"hooks\": \"guard\"}\n", ctRead(t, filepath.Join(tr.proj, ".claude", "settings.json")))
		assert.FileExists(t, filepath.Join(tr.proj, ".claude", "settings.local.json"))
		assert.NoFileExists(t, filepath.Join(tr.proj, ".claude", "settings.new.json"))
		assert.DirExists(t, filepath.Join(tr.proj, ".codex"))
		assert.Equal(t, "{\"hooks\": \"guard\"}\n", ctRead(t, filepath.Join(tr.home, ".claude", "settings.json")))
		assert.Contains(t, ctRead(t, filepath.Join(tr.proj, ".git", "hooks", "pre-commit")), "exec guard hook pre-commit")
		if !tr.landlock { // Landlock alone cannot refuse a chmod
			_, stderr, code := tr.sh(t, "chmod -x .git/hooks/pre-commit")
			assert.Equal(t, 1, code, stderr)
			st, err := os.Stat(filepath.Join(tr.proj, ".git", "hooks", "pre-commit"))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
		}
		// Another program's settings and a hook guard did not write stay the user's.
		_, stderr, code := tr.sh(t, "echo '{\"a\":1}' > .vscode/settings.json && echo 'exit 0' >> .git/hooks/post-merge")
		assert.Equal(t, 0, code, stderr)
	})
}

// The exact sandbox as most people run it: as an ordinary user, who has no
// capability outside and keeps its own uid inside (nobody becomes root). The test
// runs as root and becomes nobody (65534) for guard.
func TestExactSandboxAsAnOrdinaryUser(t *testing.T) {
	sbNeedLandlock(t)
	sbNeedExact(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to become another user")
	}
	tr := sbNewTree(t)
	const nobody = 65534
	bin := filepath.Join(tr.base, "guard")
	b, err := os.ReadFile(guardBin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, b, 0o755))
	for _, d := range []string{filepath.Dir(tr.base), tr.base} {
		require.NoError(t, os.Chmod(d, 0o755))
	}
	require.NoError(t, filepath.WalkDir(tr.base, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	}))
	cmd := exec.Command(bin, "sandbox", "--", "/bin/sh", "-c", "id -u; echo $GUARD_SANDBOX_MODE; grep CapEff /proc/self/status; "+
		"echo pwned > locked/data.txt; touch -d 2000-01-01 locked/LOCK.txt; mv locked l2; echo new > new-at-root.txt && echo made")
	cmd.Dir = tr.proj
	cmd.Env = tr.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	assert.Equal(t, "65534\nexact\nCapEff:\t0000000000000000\nmade\n", out.String())
	stderr := errb.String()
	assert.Contains(t, stderr, "locked/data.txt: Read-only file system")
	assert.Contains(t, stderr, "locked/LOCK.txt': Read-only file system")
	assert.Contains(t, stderr, "cannot move 'locked' to 'l2': Device or resource busy")
	assert.Equal(t, "orig\n", ctRead(t, filepath.Join(tr.proj, "locked", "data.txt")))
	assert.Equal(t, "new\n", ctRead(t, filepath.Join(tr.proj, "new-at-root.txt")))
}

// A read-only area that does not exist yet (a mapped scope nobody created) cannot
// hold a mount: Landlock holds it, with its limits around it, while the rest of the
// exact sandbox stays as it is.
func TestExactSandboxHoldsAMissingAreaWithLandlock(t *testing.T) {
	sbNeedLandlock(t)
	sbNeedExact(t)
	tr := sbNewTree(t)
	ctWrite(t, tr.proj, "gen/.guard.toml", "[scopes]\nserver = [\"server/**\"]\n")
	ctWrite(t, tr.proj, "gen/LOCK.server.txt", "owner: alice\n"+sbLive)
	_, stderr, code := tr.sh(t, "mkdir gen/server")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "cannot create directory 'gen/server': Permission denied")
	assert.NoDirExists(t, filepath.Join(tr.proj, "gen", "server"))
	assert.Contains(t, stderr, "  nothing could be created, removed or renamed directly in (existing files there stayed writable): ")
	_, stderr, code = tr.sh(t, "echo x > free/new.txt && echo pwned > locked/data.txt")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "locked/data.txt: Read-only file system")
	assert.Equal(t, "x\n", ctRead(t, filepath.Join(tr.proj, "free", "new.txt")))
}

// A folder handed to COMMAND as its standard input was opened outside the mount
// namespace and would lead around every mount in it: guard refuses (2).
func TestExactSandboxRefusesAFolderAsStandardInput(t *testing.T) {
	sbNeedLandlock(t)
	sbNeedExact(t)
	tr := sbNewTree(t)
	dir, err := os.Open(tr.proj)
	require.NoError(t, err)
	defer dir.Close()
	cmd := exec.Command(guardBin, "sandbox", "--", "/bin/sh", "-c", "echo ran")
	cmd.Dir, cmd.Env, cmd.Stdin = tr.proj, ctEnv(t, tr.env()), dir
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, string(out))
	assert.Equal(t, 2, ee.ExitCode())
	assert.NotContains(t, string(out), "ran")
	assert.Contains(t, string(out), "guard: sandbox: standard input is a folder; a folder opened outside the sandbox would lead around it; COMMAND was not run")
}
