package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// ABI is the Landlock ABI version the running kernel offers: 0 when it has none (older
// than 5.13, or Landlock not enabled at boot).
func ABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// configs are go-landlock's presets by ABI version: each handles every file-system
// right its version offers.
var configs = []landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// Rights are the file-system rights a ruleset handles at an ABI version and how the
// plan grants them.
type Rights struct {
	// Handled is every file-system right of the ABI: what is not granted is refused.
	Handled landlock.AccessFSSet
	// Read is granted everywhere: executing, reading files, listing folders and
	// connecting to sockets change nothing.
	Read landlock.AccessFSSet
	// File is granted on the files of boundary folders: reading, writing,
	// truncating, device ioctls; removing and renaming are rights of the folder.
	File landlock.AccessFSSet
}

// RightsFor returns the rights at abi (at least 1; capped at the newest version
// go-landlock knows).
func RightsFor(abi int) Rights {
	abi = max(1, min(abi, len(configs)-1))
	h := configs[abi].HandledAccessFS
	return Rights{
		Handled: h,
		Read:    h & (ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir | ll.AccessFSResolveUnix),
		File:    h & (ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev),
	}
}

// Scopes are the IPC scopes a ruleset at abi restricts: from ABI 6 (Linux 6.12) a
// sandboxed process can neither signal a process outside its sandbox (a `kill` of
// another owner's `guard run`, which would release that owner's lock) nor connect to
// an abstract Unix socket made outside it. Below ABI 6 neither can be refused.
// Whatever the ABI, a Landlock domain already keeps its processes from ptracing one
// outside it, and from following /proc/PID/root, cwd or fd of one (ptrace access).
func Scopes(abi int) uint64 {
	if abi < 6 {
		return 0
	}
	return ll.ScopeSignal | ll.ScopeAbstractUnixSocket
}

// Enforce restricts this process (every thread), and everything it starts from now
// on, to plan, handling every file-system right of abi (ABI()), and to Scopes(abi).
// A nil plan restricts no file access (the exact sandbox's mounts do that), only
// the scopes and ptrace. It cannot be undone. As Landlock requires, it sets
// no_new_privs: set-user-ID programs gain nothing.
func Enforce(plan *Plan, abi int) error {
	fd, err := newRuleset(plan, abi)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := ll.AllThreadsPrctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := ll.AllThreadsLandlockRestrictSelf(fd, 0); err != nil {
		if errors.Is(err, unix.E2BIG) {
			return fmt.Errorf("landlock_restrict_self: too many nested sandboxes (16 at most): %w", err)
		}
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// Build creates the ruleset of plan without enforcing it, and closes it: what
// Enforce costs before the kernel takes over (the benchmark's measure).
func Build(plan *Plan, abi int) error {
	fd, err := newRuleset(plan, abi)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// newRuleset creates the kernel ruleset of plan. go-landlock's RestrictPaths opens
// every rule's path from /, one after the other; a boundary folder can hold
// thousands of entries, so the rules are added here with go-landlock's system calls,
// each entry opened relative to its folder, by as many threads as there are CPUs.
// Entries are opened without following links: a link put in an entry's place
// between listing and opening must not carry the rights to its target.
func newRuleset(plan *Plan, abi int) (int, error) {
	if abi < 1 {
		return -1, errors.New("the kernel offers no Landlock")
	}
	r := RightsFor(abi)
	attr := ll.RulesetAttr{HandledAccessFS: uint64(r.Handled), Scoped: Scopes(abi)}
	if plan == nil {
		// Only the scopes. Below ABI 6 a ruleset must handle some access to exist:
		// making block devices, which needs a capability nobody here has anyway.
		attr.HandledAccessFS = 0
		if attr.Scoped == 0 {
			attr.HandledAccessFS = ll.AccessFSMakeBlock
		}
	}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return -1, fmt.Errorf("landlock_create_ruleset (ABI %d): %w", abi, err)
	}
	if plan == nil {
		return fd, nil
	}
	if err := addRule(fd, unix.AT_FDCWD, "/", r.Read, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, runtime.GOMAXPROCS(0))
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(plan.groups) {
					return
				}
				if err := addGroup(fd, plan.groups[i], r); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// addGroup adds the rules of one folder's entries.
func addGroup(rulesetFD int, g group, r Rights) error {
	dirFD := unix.AT_FDCWD
	if g.dir != "" {
		fd, err := unix.Open(g.dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
				return nil // gone since it was listed: nothing there to grant
			}
			return fmt.Errorf("%s: %w", g.dir, err)
		}
		defer unix.Close(fd)
		dirFD = fd
	}
	for _, name := range g.dirs {
		if err := addRule(rulesetFD, dirFD, name, r.Handled, true); err != nil {
			return err
		}
	}
	for _, name := range g.files {
		if err := addRule(rulesetFD, dirFD, name, r.File, false); err != nil {
			return err
		}
	}
	return nil
}

// addRule grants access on name (relative to dirFD) and everything below it. An entry
// that is gone, or is no longer a folder where one was listed, gets no rule.
func addRule(rulesetFD, dirFD int, name string, access landlock.AccessFSSet, dir bool) error {
	flags := unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if dir {
		flags |= unix.O_DIRECTORY
	}
	fd, err := unix.Openat(dirFD, name, flags, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return nil
		}
		return fmt.Errorf("open %s: %w", name, err)
	}
	defer unix.Close(fd)
	attr := ll.PathBeneathAttr{ParentFd: fd, AllowedAccess: uint64(access)}
	if err := ll.LandlockAddPathBeneathRule(rulesetFD, &attr, 0); err != nil {
		if errors.Is(err, unix.EINVAL) && !dir {
			return nil // a file that became a folder since it was listed: no rule, read-only
		}
		return fmt.Errorf("landlock_add_rule %s: %w", name, err)
	}
	return nil
}
