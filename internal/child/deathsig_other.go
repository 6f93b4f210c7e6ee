//go:build unix && !linux

package child

import "syscall"

// DieWithParent does nothing where the kernel has no parent-death signal; no sandbox
// runs there without --best-effort anyway, and guard run stops its command itself.
func DieWithParent(*syscall.SysProcAttr) {}
