// Package exitcode is the one place that turns what happened (a guard.Outcome) into
// CONTRACT.md's exit codes (section 3). The layers below return outcomes and never a
// number; guard's main exits with Of(err), and hands Of to guard mcp and guard serve,
// whose answers carry the same number. Tests of the layers below assert with it.
package exitcode

import (
	"errors"

	"github.com/guardlocks/guard/guard"
)

// Exit codes of every guard command (CONTRACT.md section 3).
const (
	OK      = 0
	Refused = 1 // a lock, a marker or a check said no
	Usage   = 2 // usage error, bad input or config, internal error (hooks fail closed)
	Lost    = 3 // guard lock lost a contest and removed its own lock
	Ask     = 4 // guard permissions answered ask
	LostRun = 5 // guard run lost its lock while COMMAND ran, and stopped COMMAND
	// As a shell reports a COMMAND that could not be started (guard run).
	CannotRun = 126
	NotFound  = 127
)

// Of is the process exit code of a command that returned err: 0 for nil, the code of
// the outermost guard.Outcome it carries, COMMAND's own status for one guard passes
// on, and 2 for anything else (an unexpected failure fails closed).
func Of(err error) int {
	if err == nil {
		return OK
	}
	var oe *guard.OutcomeError
	if !errors.As(err, &oe) {
		return Usage
	}
	switch o := oe.Outcome; {
	case o.IsRefusal():
		return Refused
	case o == guard.ContestLost:
		return Lost
	case o == guard.Ask:
		return Ask
	case o == guard.LockLost:
		return LostRun
	case o == guard.CommandNotFound:
		return NotFound
	case o == guard.CannotRun:
		return CannotRun
	case o == guard.Exited:
		return oe.Status
	}
	return Usage
}
