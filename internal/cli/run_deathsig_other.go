//go:build unix && !linux

package cli

import "syscall"

// setDeathSignal: only Linux has a parent-death signal; elsewhere COMMAND is
// stopped by guard itself, which a SIGKILL of guard prevents.
func setDeathSignal(*syscall.SysProcAttr) {}
