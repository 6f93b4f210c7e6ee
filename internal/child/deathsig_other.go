//go:build unix && !linux

package child

import "syscall"

// dieWithParent does nothing where the kernel has no parent-death signal; no sandbox
// runs there without --best-effort anyway.
func dieWithParent(*syscall.SysProcAttr) {}
