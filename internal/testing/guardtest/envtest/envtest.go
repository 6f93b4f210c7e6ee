// Package envtest builds the *guard.Env a test hands to guard's run functions: every
// part of the world pinned (clock, identity, working directory, streams, environment
// variables), the output streams in buffers the test reads back. It is part of the
// guardtest kit; it stands apart because it imports package guard, which guard's and
// lockcore's own tests cannot.
package envtest

import (
	"bytes"
	"io"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// Now is the instant an Env's clock reads unless At or Clock says otherwise.
var Now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// Env is a built guard.Env and the buffers its Stdout and Stderr write to (unless an
// option gave other writers).
type Env struct {
	*guard.Env
	Out, Err *bytes.Buffer
}

// Option sets one part of the world of an Env.
type Option func(*guard.Env)

// New returns an Env with empty stdin, buffered stdout and stderr, a clock fixed at
// Now, user "tester" on host "testhost", no working directory and no environment
// variables, then applies opts in order.
func New(opts ...Option) *Env {
	e := &Env{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}
	e.Env = &guard.Env{
		Stdin: strings.NewReader(""), Stdout: e.Out, Stderr: e.Err,
		Clock: lockcore.FixedClock(Now), User: "tester", Hostname: "testhost",
		Getenv: func(string) string { return "" },
	}
	for _, o := range opts {
		o(e.Env)
	}
	return e
}

// Dir sets the working directory.
func Dir(dir string) Option { return func(e *guard.Env) { e.Dir = dir } }

// At fixes the clock at t.
func At(t time.Time) Option { return func(e *guard.Env) { e.Clock = lockcore.FixedClock(t) } }

// Clock sets the clock (a guardtest.Clock the test advances, or lockcore.ClockFunc(time.Now)
// for a test of real waiting).
func Clock(c lockcore.Clock) Option { return func(e *guard.Env) { e.Clock = c } }

// Identity sets the OS user name and host name, the last fallback of the identity.
func Identity(user, host string) Option {
	return func(e *guard.Env) { e.User, e.Hostname = user, host }
}

// Vars sets the environment variables the command sees (read when Getenv is called,
// so the test may change the map afterwards).
func Vars(vars map[string]string) Option {
	return func(e *guard.Env) { e.Getenv = func(k string) string { return vars[k] } }
}

// Stdin sets what the command reads.
func Stdin(s string) Option { return func(e *guard.Env) { e.Stdin = strings.NewReader(s) } }

// Streams sets stdout and stderr to writers of the test's own (the Env's buffers
// then stay empty).
func Streams(stdout, stderr io.Writer) Option {
	return func(e *guard.Env) { e.Stdout, e.Stderr = stdout, stderr }
}

// Executable sets the path recorded as guard's binary (install writes it into hooks).
func Executable(path string) Option { return func(e *guard.Env) { e.Executable = path } }

// With applies f to the guard.Env, for a field no option covers.
func With(f func(*guard.Env)) Option { return f }
