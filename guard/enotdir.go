package guard

import "syscall"

// syscallENOTDIR: a path component that is a file, not a folder, hides no locks.
const syscallENOTDIR = syscall.ENOTDIR
