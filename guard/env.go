package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/guardlocks/guard/lockcore"
)

// Identity is who is acting: a lock does not stop its own owner, and a team lock does
// not stop agents on its own host.
type Identity struct {
	Owner string
	Host  string
}

// Env is the world a command runs in. main builds it from the process (os.Args,
// os.Getenv, time.Now, os.Hostname are read there and only there); tests build it with
// in-memory streams, a fixed clock and a pinned identity.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Clock  lockcore.Clock
	// User and Hostname are the OS user name and machine host name, the last fallback
	// of the identity.
	User     string
	Hostname string
	// Dir is the working directory (absolute).
	Dir string
	// Getenv reads the environment the command may see.
	Getenv func(string) string
	// Environ is that environment as a list (main reads both from one snapshot of
	// the process's): what a command guard runs for the user starts from (guard run's
	// and guard sandbox's COMMAND, guard publish's command, PUBLIC.txt checks and
	// chores), with guard's own variables put in by execpath.With.
	Environ []string
	// StdinTTY and StdoutTTY report whether those streams are terminals: a user lock is
	// only removed by a person at a terminal, and colour is only for terminals.
	StdinTTY  bool
	StdoutTTY bool
	// StderrTTY reports whether stderr is a terminal: progress lines that rewrite
	// themselves (guard lock --wait) are only for terminals.
	StderrTTY bool
	// ParentPID is the process that started guard (os.Getppid): guard mcp and the
	// agent hook find their agent client through it (ClientPID).
	ParentPID int
	// Executable is the absolute path of the running guard binary (recorded by
	// install).
	Executable string
	// Recorder, when set, receives the events guard's commands and gates record (see
	// Record); main points it at the history.
	Recorder func(Event)
	// OpenBackend connects to a [backend] (CONTRACT.md section 10); main points it at
	// backend/etcd. Nil: a configuration with [backend] is exit 2.
	OpenBackend BackendOpener
	// BackendLocker makes claims in a project with a backend (see LockerFor); main
	// points it at package backend.
	BackendLocker func(*ProjectBackend) lockcore.Locker
	// BackendRelease releases owner's lock at path in pb's backend (see
	// ReleaseHeld); main points it at package backend.
	BackendRelease func(ctx context.Context, pb *ProjectBackend, path, owner string) (found bool, err error)
	// backends are the connections OpenBackend made, one per project.
	backends *backends
}

// Env returns the value of an environment variable ("" when Getenv is nil).
func (e *Env) Env(key string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(key)
}

// Home is the user's home directory as the command's environment gives it: HOME,
// else USERPROFILE (Windows); "" when neither is set.
func (e *Env) Home() string {
	if home := e.Env("HOME"); home != "" {
		return home
	}
	return e.Env("USERPROFILE")
}

// Expander returns the $VAR/~ expander for configured paths: the command's
// environment and home directory.
func (e *Env) Expander() lockcore.Expander {
	return lockcore.Expander{Getenv: e.Getenv, Home: e.Home()}
}

// ResolveIdentity applies CONTRACT.md section 2: owner is the flag, else GUARD_OWNER,
// else owner in .guard.toml, else <user>@<host>; host is the flag, else GUARD_HOST,
// else host in .guard.toml, else the machine's host name. cfg may be nil.
func ResolveIdentity(env *Env, flagOwner, flagHost string, cfg *Config) Identity {
	id := Identity{Owner: flagOwner, Host: flagHost}
	if id.Host == "" {
		id.Host = env.Env("GUARD_HOST")
	}
	if id.Host == "" && cfg != nil {
		id.Host = cfg.Host
	}
	if id.Host == "" {
		id.Host = env.Hostname
	}
	if id.Owner == "" {
		id.Owner = env.Env("GUARD_OWNER")
	}
	if id.Owner == "" && cfg != nil {
		id.Owner = cfg.Owner
	}
	if id.Owner == "" {
		id.Owner = env.User + "@" + env.Hostname
	}
	return id
}

// Exit codes of every guard command (CONTRACT.md section 3).
//
// Deprecated: cmd/guard maps an Outcome to its code; these go once every caller returns
// an Outcome.
const (
	ExitOK      = 0
	ExitRefused = 1 // a lock, a marker or a check said no
	ExitUsage   = 2 // usage error, bad input or config, internal error (hooks fail closed)
	ExitLost    = 3 // guard lock lost a contest and removed its own lock
	ExitAsk     = 4 // guard permissions answered ask
	ExitLostRun = 5 // guard run lost its lock while COMMAND ran, and stopped COMMAND
)

// ExitError is the old name of OutcomeError.
//
// Deprecated: use OutcomeError.
type ExitError = OutcomeError

// legacyOutcome is what an old exit code meant, while callers move to Fail.
func legacyOutcome(code int) Outcome {
	switch code {
	case ExitRefused:
		return Refused
	case ExitUsage:
		return BadInput
	case ExitLost:
		return ContestLost
	case ExitAsk:
		return Ask
	case ExitLostRun:
		return LockLost
	case 126:
		return CannotRun
	case 127:
		return CommandNotFound
	}
	return Exited
}

// Exitf returns an *OutcomeError with a formatted message (wrapping any %w argument).
//
// Deprecated: use Fail with an Outcome.
func Exitf(code int, format string, args ...any) error {
	return &OutcomeError{Outcome: legacyOutcome(code), Status: code, Err: fmt.Errorf(format, args...)}
}

// Silent returns an *OutcomeError whose explanation was already written.
//
// Deprecated: use Explained with an Outcome, or CommandExit.
func Silent(code int) error { return &OutcomeError{Outcome: legacyOutcome(code), Status: code} }

// ExitCode maps an error to the process exit code.
//
// Deprecated: cmd/guard maps outcomes; tests assert OutcomeOf.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *OutcomeError
	if errors.As(err, &ee) {
		switch ee.Outcome {
		case Refused, Conflict, NotFound:
			return ExitRefused
		case ContestLost:
			return ExitLost
		case Ask:
			return ExitAsk
		case LockLost:
			return ExitLostRun
		case CommandNotFound:
			return 127
		case CannotRun:
			return 126
		case Exited:
			return ee.Status
		}
	}
	return ExitUsage
}

// WriteJSON writes v as the one indented JSON document a --json command prints on
// stdout. A failure to write is an internal error (exit 2) naming what was written.
func WriteJSON(w io.Writer, what string, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return Fail(Internal, "%s: writing JSON: %w", what, err)
	}
	return nil
}
