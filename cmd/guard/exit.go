package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/guardlocks/guard/guard"
)

// Exit codes of every guard command (CONTRACT.md section 3). This file is the one
// place that picks them: the layers below say what happened (a guard.Outcome), and
// main, guard mcp and guard serve report the number exitCode gives.
const (
	exitOK      = 0
	exitRefused = 1 // a lock, a marker or a check said no
	exitUsage   = 2 // usage error, bad input or config, internal error (hooks fail closed)
	exitLost    = 3 // guard lock lost a contest and removed its own lock
	exitAsk     = 4 // guard permissions answered ask
	exitLostRun = 5 // guard run lost its lock while COMMAND ran, and stopped COMMAND
	// As a shell reports a COMMAND that could not be started (guard run).
	exitCannotRun = 126
	exitNotFound  = 127
)

// exitCode is the process exit code of a command that returned err: 0 for nil, the
// code of the outermost guard.Outcome it carries, COMMAND's own status for one guard
// passes on, and 2 for anything else (an unexpected failure fails closed).
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var oe *guard.OutcomeError
	if !errors.As(err, &oe) {
		return exitUsage
	}
	switch o := oe.Outcome; {
	case o.IsRefusal():
		return exitRefused
	case o == guard.ContestLost:
		return exitLost
	case o == guard.Ask:
		return exitAsk
	case o == guard.LockLost:
		return exitLostRun
	case o == guard.CommandNotFound:
		return exitNotFound
	case o == guard.CannotRun:
		return exitCannotRun
	case o == guard.Exited:
		return oe.Status
	}
	return exitUsage
}

// report writes err's explanation on w as main prints it, unless the command already
// wrote its own, and returns the exit code.
func report(w io.Writer, err error) int {
	if err != nil && !guard.IsExplained(err) {
		fmt.Fprintf(w, "guard: %v\n", err)
	}
	return exitCode(err)
}
