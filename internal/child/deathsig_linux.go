package child

import "syscall"

// DieWithParent makes the kernel kill the child when guard dies, even by SIGKILL. The
// signal fires when the OS thread that started the child ends, so the caller starts
// and waits for the child on one locked thread (runtime.LockOSThread).
func DieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
