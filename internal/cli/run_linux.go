package cli

import "syscall"

// setDeathSignal makes the kernel kill COMMAND when guard dies, even by SIGKILL
// (the lock then stays until it expires). It fires when the thread that started
// COMMAND ends, which is why startChild keeps that thread for the child's life.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
