package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/guardlocks/guard/internal/child"
)

// NamespaceArg is the first argument of guard's binary started as the exact
// sandbox's namespace child: cmd/guard's main hands it to InNamespace before
// anything else. A Go process cannot move itself into a new mount namespace (it has
// threads), so guard starts itself again already inside one.
const NamespaceArg = "__guard-sandbox-namespace"

// nsSpec is what guard sends the namespace child on descriptor 3.
type nsSpec struct {
	Plan ExactPlan
	Path string
	Args []string
	Env  []string
	Dir  string
	ABI  int
}

// Lines the namespace child writes on descriptor 4 when it does not become COMMAND:
// "fallback MSG" when the namespace cannot do its job here (guard then uses Landlock
// alone), "refuse MSG" when this run cannot be sandboxed at all.
const (
	nsFallback = "fallback "
	nsRefuse   = "refuse "
)

// nsFailed is the namespace child's exit code when COMMAND never ran.
const nsFailed = 125

// exactChild is the namespace child, started before it is told what to mount.
type exactChild struct {
	specR, specW, statusR, statusW *os.File
	status                         bytes.Buffer
	read                           chan struct{}
	done                           chan struct{}
	code                           int
	err                            error // the child could not be started
}

// startExact starts the namespace child: guard's binary in a new user namespace that
// maps the caller's uid and gid to themselves (nobody inside becomes root) and a new
// mount namespace. It waits for its spec (exactChild.run) or for the end of it
// (exactChild.cancel).
func startExact(o Options) (*exactChild, error) {
	c := &exactChild{read: make(chan struct{}), done: make(chan struct{})}
	var err error
	if c.specR, c.specW, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("sandbox: pipe: %w", err)
	}
	if c.statusR, c.statusW, err = os.Pipe(); err != nil {
		c.specR.Close()
		c.specW.Close()
		return nil, fmt.Errorf("sandbox: pipe: %w", err)
	}
	go func() {
		_, _ = io.Copy(&c.status, c.statusR)
		close(c.read)
	}()
	cmd := exec.Command(o.Env.Executable, NamespaceArg)
	cmd.Env = []string{}
	cmd.Dir = o.Env.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Env.Stdin, o.Env.Stdout, o.Env.Stderr
	cmd.ExtraFiles = []*os.File{c.specR, c.statusW}
	uid, gid := os.Geteuid(), os.Getegid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		// A uid other than 0 loses at exec the capabilities the new namespace gave
		// it: the two the child needs to mount and then give them up are kept as
		// ambient ones across the exec of guard's binary (dropCapabilities clears
		// them before COMMAND).
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP},
	}
	go func() {
		// child.Run passes guard's signals on and ties the child's life to guard's.
		c.code, c.err = child.Run(cmd)
		close(c.done)
	}()
	return c, nil
}

// cancel ends the child before it was told anything: it exits, and nothing ran.
func (c *exactChild) cancel() {
	c.specW.Close()
	c.wait()
}

func (c *exactChild) wait() {
	<-c.done
	c.specR.Close()
	c.statusW.Close()
	<-c.read
	c.statusR.Close()
}

// run sends the child its spec (plan, COMMAND as path, argv and environ) and waits
// for COMMAND: the child mounts plan, applies Landlock's scopes (and plan.Missing)
// and becomes COMMAND. It returns COMMAND's exit code, or a non-empty fallback when
// the namespaces could not be set up here and nothing ran.
func (c *exactChild) run(o Options, plan *ExactPlan, path string, argv, environ []string, abi int) (code int, fallback string, err error) {
	spec, err := json.Marshal(nsSpec{Plan: *plan, Path: path, Args: argv, Env: environ, Dir: o.Env.Dir, ABI: abi})
	if err != nil {
		c.cancel()
		return 0, "", fmt.Errorf("sandbox: %w", err)
	}
	go func() {
		// A child that is gone (clone refused) reads nothing: the write fails.
		_, _ = c.specW.Write(spec)
		c.specW.Close()
	}()
	c.wait()
	if c.err != nil {
		// clone(2) refused the namespaces (a seccomp filter, an AppArmor profile,
		// the user namespace limit): nothing ran.
		return 0, fmt.Sprintf("guard could not create a user namespace: %v", c.err), nil
	}
	msg := strings.TrimSpace(c.status.String())
	switch {
	case strings.HasPrefix(msg, nsFallback):
		return 0, strings.TrimPrefix(msg, nsFallback), nil
	case strings.HasPrefix(msg, nsRefuse):
		return 0, "", fmt.Errorf("sandbox: %s; COMMAND was not run", strings.TrimPrefix(msg, nsRefuse))
	}
	return c.code, "", nil
}

// InNamespace is the namespace child's whole life (see runExact): it reads its spec
// on descriptor 3, mounts, restricts itself and becomes COMMAND. It returns only when
// COMMAND could not be started, with the process's exit code.
func InNamespace() int {
	// Capabilities and securebits belong to a thread: the one that gives them up
	// (dropCapabilities) must be the one that execs COMMAND.
	runtime.LockOSThread()
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	status := os.NewFile(4, "guard-sandbox-status")
	say := func(kind string, err error) int {
		_, _ = fmt.Fprintf(status, "%s%v\n", kind, err)
		return nsFailed
	}
	b, err := io.ReadAll(os.NewFile(3, "guard-sandbox-spec"))
	var spec nsSpec
	if err != nil || json.Unmarshal(b, &spec) != nil {
		return nsFailed // guard died before saying what to run, or is not guard
	}
	for fd, name := range []string{"standard input", "standard output", "standard error"} {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			// A folder opened outside the namespace leads past every mount in it.
			return say(nsRefuse, fmt.Errorf("%s is a folder; a folder opened outside the sandbox would lead around it", name))
		}
	}
	if err := mountPlan(&spec.Plan); err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.ENOSYS) {
			return say(nsFallback, err)
		}
		return say(nsRefuse, err)
	}
	var ll *Plan
	if len(spec.Plan.Missing) > 0 {
		if ll, err = NewPlan(spec.Plan.Missing, spec.Plan.Allow); err != nil {
			return say(nsRefuse, err)
		}
	}
	if err := Enforce(ll, spec.ABI); err != nil {
		return say(nsRefuse, fmt.Errorf("could not restrict COMMAND: %w", err))
	}
	if err := dropCapabilities(); err != nil {
		return say(nsRefuse, err)
	}
	// The working directory still lies in the mounts as they were before: enter it
	// again through the new ones.
	if err := unix.Chdir(spec.Dir); err != nil {
		return say(nsRefuse, fmt.Errorf("chdir %s: %w", spec.Dir, err))
	}
	err = syscall.Exec(spec.Path, spec.Args, spec.Env)
	// exec failed: as a shell says it, and COMMAND counts as having been tried.
	_ = status.Close()
	fmt.Fprintf(os.Stderr, "guard sandbox: %s: %v\n", spec.Args[0], err)
	return 126
}

// mountPlan makes this mount namespace private to it and mounts plan: the pinned
// folders onto themselves, then each read-only path onto itself read-only, then the
// exemptions over them writable. Every path is opened without following a link and
// mounted through its descriptor, so a link put in a path's place meanwhile cannot
// carry a mount elsewhere.
func mountPlan(plan *ExactPlan) error {
	// An exemption is mounted from the file system as it was, before any mount
	// here made its area read-only.
	allowFDs := make([]int, len(plan.Allow))
	for i, a := range plan.Allow {
		fd, err := unix.Open(a, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("--allow %s: %w", a, err)
		}
		defer unix.Close(fd)
		allowFDs[i] = fd
	}
	// Mounts made here must not reach the caller's namespace (the kernel already
	// keeps them from it across user namespaces; this says so), and the caller's
	// mounts still arrive.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("making / a slave mount: %w", err)
	}
	for _, d := range plan.Pinned {
		if err := bindSelf(d); err != nil {
			return err
		}
	}
	for _, p := range plan.ReadOnly {
		if err := bindSelf(p); err != nil {
			return err
		}
		if err := readOnly(p); err != nil {
			return err
		}
	}
	for i, a := range plan.Allow {
		if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", allowFDs[i]), a, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("mounting --allow %s writable: %w", a, err)
		}
	}
	return nil
}

// bindSelf bind-mounts path (and the mounts below it) onto itself.
func bindSelf(path string) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%s changed while the sandbox was set up (run again): %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return fmt.Errorf("%s became a symbolic link while the sandbox was set up (run again)", path)
	}
	self := fmt.Sprintf("/proc/self/fd/%d", fd)
	if err := unix.Mount(self, self, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bind-mounting %s onto itself: %w", path, err)
	}
	return nil
}

// readOnly makes the mount at path, and every mount below it, read-only, keeping
// its other flags (nosuid, nodev, noexec, atime: in a user namespace the kernel
// refuses to drop flags a mount was given outside it).
func readOnly(path string) error {
	err := unix.MountSetattr(unix.AT_FDCWD, path, unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW,
		&unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	if !errors.Is(err, unix.ENOSYS) {
		if err != nil {
			return fmt.Errorf("making %s read-only: %w", path, err)
		}
		return nil
	}
	// Before Linux 5.12: a remount of the top mount alone, its flags restated.
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range [][2]int64{{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_SYNCHRONOUS, unix.MS_SYNCHRONOUS}, {unix.ST_MANDLOCK, unix.MS_MANDLOCK}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME}} {
		if st.Flags&f[0] != 0 {
			flags |= uintptr(f[1])
		}
	}
	if err := unix.Mount("", path, "", flags, ""); err != nil {
		return fmt.Errorf("remounting %s read-only: %w", path, err)
	}
	return nil
}

// dropCapabilities gives up, for COMMAND and everything it starts, every capability
// the new user namespace gave this process: COMMAND runs with the caller's uid, which
// keeps none across exec anyway, but a caller who is root would keep them all and
// could unmount what makes the areas read-only. The bounding set is emptied, the
// inheritable and ambient sets cleared, and root is told it gains nothing at exec
// (SECBIT_NOROOT, locked).
func dropCapabilities() error {
	const (
		secbitNoroot       = 1 << 0
		secbitNorootLocked = 1 << 1
	)
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, secbitNoroot|secbitNorootLocked, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_SECUREBITS): %w", err)
	}
	last := 63
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%d", &last); err != nil {
			last = 63
		}
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}
