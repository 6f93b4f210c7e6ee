//go:build !windows

package lockcore

import "syscall"

// syscallENOTDIR is returned when a root's parent is a file.
const syscallENOTDIR = syscall.ENOTDIR
