package guard

import (
	"context"
	"encoding/json"
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
