//go:build !linux

package child

// Supervise is Linux's: elsewhere StartGroup starts no supervisor, and a process
// started with SupervisorArg is a usage error.
func Supervise() int { return 2 }
