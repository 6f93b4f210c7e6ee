package child

import "syscall"

// dieWithParent makes the kernel kill the child when guard dies.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
