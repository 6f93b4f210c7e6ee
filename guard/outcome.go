package guard

import (
	"errors"
	"fmt"
)

// An Outcome says what happened to a command that did not simply succeed, in the words
// a caller acts on. Layers below the command return an *OutcomeError that names one;
// cmd/guard alone turns it into CONTRACT.md's exit code (section 3), so no layer picks a
// number, and a front end (guard mcp, guard serve) gets the same number from the same
// mapping.
type Outcome int

const (
	// Internal is a failure the user did not cause (an I/O error, a bug). An error that
	// carries no Outcome is Internal: unexpected failures fail closed.
	Internal Outcome = iota
	// BadInput is a usage error, bad input or a bad configuration.
	BadInput
	// Refused is a lock, a marker or a check saying no.
	Refused
	// Conflict is another holder's lock in the way of a claim, a renewal or a release.
	Conflict
	// NotFound is no lock where the command was told to find one.
	NotFound
	// ContestLost is guard lock losing a contest and removing its own lock.
	ContestLost
	// Ask is guard permissions answering ask.
	Ask
	// LockLost is guard run losing its lock while COMMAND ran, and stopping COMMAND.
	LockLost
	// CommandNotFound is a COMMAND that is not on its PATH (a shell says 127).
	CommandNotFound
	// CannotRun is a COMMAND that was found but could not be started (a shell says 126).
	CannotRun
	// Exited is COMMAND's own exit status, which guard run, guard sandbox and guard
	// publish pass on (OutcomeError.Status).
	Exited
)

var outcomeNames = [...]string{
	Internal: "internal error", BadInput: "bad input", Refused: "refused", Conflict: "conflict",
	NotFound: "not found", ContestLost: "contest lost", Ask: "ask", LockLost: "lock lost",
	CommandNotFound: "command not found", CannotRun: "cannot run", Exited: "exited",
}

// String names the outcome, for tests and logs.
func (o Outcome) String() string {
	if o >= 0 && int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// IsRefusal reports whether o is a no (CONTRACT.md's "a lock, a marker or a check said
// no"): Refused, Conflict or NotFound, which callers tell apart only in what they say.
func (o Outcome) IsRefusal() bool { return o == Refused || o == Conflict || o == NotFound }

// OutcomeError is a command's failure and what it was. Err is the explanation main
// prints on stderr; nil when the command already wrote its own (Explained), so main
// prints nothing more.
type OutcomeError struct {
	Outcome Outcome
	// Status is COMMAND's exit status, for Exited only.
	Status int
	Err    error
}

// Error is the explanation, or the outcome's name when it was already written.
func (e *OutcomeError) Error() string {
	if e.Err == nil {
		if e.Outcome == Exited {
			return fmt.Sprintf("exit status %d", e.Status)
		}
		return e.Outcome.String()
	}
	return e.Err.Error()
}

// Unwrap returns the explanation, so errors.Is and errors.As see through the outcome.
func (e *OutcomeError) Unwrap() error { return e.Err }

// Fail returns an *OutcomeError with a formatted explanation (wrapping any %w argument).
func Fail(o Outcome, format string, args ...any) error {
	return &OutcomeError{Outcome: o, Err: fmt.Errorf(format, args...)}
}

// Explained returns an *OutcomeError whose explanation the command already wrote.
func Explained(o Outcome) error { return &OutcomeError{Outcome: o} }

// CommandExit returns COMMAND's own exit status (128+N for a signal N) as the outcome
// of the command that ran it; whatever COMMAND said is on the streams already.
func CommandExit(status int) error { return &OutcomeError{Outcome: Exited, Status: status} }

// OutcomeOf is the outcome err carries: the outermost *OutcomeError's (an explanation
// that wraps another decides), Internal for an error with none, and for nil too.
func OutcomeOf(err error) Outcome {
	var oe *OutcomeError
	if errors.As(err, &oe) {
		return oe.Outcome
	}
	return Internal
}

// IsExplained reports whether err's explanation was already written: a front end that
// prints errors prints nothing more for it.
func IsExplained(err error) bool {
	var oe *OutcomeError
	return errors.As(err, &oe) && oe.Err == nil
}
