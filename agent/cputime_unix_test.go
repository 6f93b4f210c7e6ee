//go:build unix

package agent

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used (user and system): on a loaded
// machine it shows the work a benchmark does apart from the waits for a CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
