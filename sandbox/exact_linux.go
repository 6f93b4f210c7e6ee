package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Exact reports whether the exact sandbox can run here: nil when this process may
// create a user namespace with a mount namespace of its own and mount in it (what
// keeps each read-only area read-only by a bind mount, so that everything beside it
// stays writable); else an error saying why, naming the setting that forbids it. It
// reads a few files of /proc and starts nothing, so an agent hook can ask it before
// every command; it cannot see a seccomp filter or an AppArmor profile that refuses
// namespaces to a confined process: guard sandbox then finds out when it starts
// COMMAND, and falls back to Landlock alone, saying so.
func Exact() error {
	return exactAt("/proc")
}

// exactAt is Exact reading the proc file system mounted at proc (tests point it at a
// tree of their own).
func exactAt(proc string) error {
	read := func(rel string) (string, bool) {
		b, err := os.ReadFile(proc + "/" + rel)
		if err != nil {
			return "", false
		}
		return strings.TrimSpace(string(b)), true
	}
	max, ok := read("sys/user/max_user_namespaces")
	switch {
	case !ok:
		return errors.New("this kernel offers no user namespaces (no /proc/sys/user/max_user_namespaces: built without CONFIG_USER_NS)")
	case max == "0":
		return errors.New("user namespaces are disabled (user.max_user_namespaces=0)")
	}
	// Privileged callers (CAP_SYS_ADMIN) are exempt from both switches below.
	if privileged(proc) {
		return nil
	}
	// Debian's and older Ubuntu's kernels carry this switch; upstream has none.
	if v, ok := read("sys/kernel/unprivileged_userns_clone"); ok && v == "0" {
		return errors.New("unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)")
	}
	// Ubuntu 23.10 and later: an unconfined process may create a user namespace, but
	// AppArmor moves it into the unprivileged_userns profile, which denies every
	// capability inside it, so mount(2) fails there. A process confined by a profile
	// that grants "userns," keeps them; whether this one's does, only trying says.
	if v, ok := read("sys/kernel/apparmor_restrict_unprivileged_userns"); ok && v == "1" {
		label, _ := read("self/attr/apparmor/current")
		if label == "" {
			label, _ = read("self/attr/current")
		}
		if label == "" || label == "unconfined" {
			return errors.New("AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1): " +
				"a namespace guard creates gets no right to mount; an AppArmor profile for guard's binary that allows \"userns,\" lifts it")
		}
	}
	return nil
}

// privileged reports whether this process holds CAP_SYS_ADMIN (bit 21 of CapEff in
// /proc/self/status), which creates user namespaces whatever the switches say.
func privileged(proc string) bool {
	b, err := os.ReadFile(proc + "/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			var caps uint64
			if _, err := fmt.Sscanf(strings.TrimSpace(hex), "%x", &caps); err != nil {
				return false
			}
			return caps&(1<<21) != 0
		}
	}
	return false
}
