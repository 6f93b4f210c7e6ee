// Package gitrun is guard's one way of running git: a runner bound to a directory and
// an environment, the allowlist that environment is built from, repository discovery
// and the history queries the hooks and ci share. It imports nothing of guard's, so
// every package (hooks, install, publish) can use it.
//
// guard calls the git binary rather than reading the repository with go-git: on a
// repository of 100,000 files git's index diff is the floor, and go-git's is far
// slower (bench/README.md, "## hooks").
package gitrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Git runs the git binary in one repository. Dir is the directory git runs in; Env is
// its whole environment. Build it with New, which takes the allowlisted variables
// (GIT_DIR and GIT_INDEX_FILE included, as git sets them for hooks) from the
// environment the caller was given; a nil Env would let git inherit the process's.
type Git struct {
	Dir string
	Env []string
}

// New returns a Git that runs in dir with the environment Environ builds from getenv.
func New(dir string, getenv func(string) string) Git {
	return Git{Dir: dir, Env: Environ(getenv)}
}

// At returns a Git for the repository at dir itself, whatever repository the
// environment names: the variables that point git at one (GIT_DIR, set while guard
// runs from a hook, GIT_WORK_TREE, GIT_INDEX_FILE, ...) are left out.
func At(dir string, getenv func(string) string) Git {
	return New(dir, func(k string) string {
		if repoVars[k] {
			return ""
		}
		return getenv(k)
	})
}

// repoVars are the variables of passedVars that name a repository or its parts.
var repoVars = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_COMMON_DIR": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_QUARANTINE_PATH": true,
	"GIT_NAMESPACE": true, "GIT_CEILING_DIRECTORIES": true,
}

// Error is a failed git command: the arguments, git's exit code and its stderr.
type Error struct {
	Args   []string
	Code   int
	Stderr string
	Err    error
}

// Error names the git command and gives git's message (its stderr, else the exec error).
func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

// Unwrap returns the exec error, so that errors.As finds an *exec.ExitError.
func (e *Error) Unwrap() error { return e.Err }

// Run runs git with args and returns its stdout. A non-zero exit is a *Error that
// names the command and carries git's stderr.
func (g Git) Run(ctx context.Context, args ...string) ([]byte, error) {
	return g.RunInput(ctx, nil, args...)
}

// RunInput is Run with stdin fed from input (nil: no input).
func (g Git) RunInput(ctx context.Context, input []byte, args ...string) ([]byte, error) {
	p, err := g.Start(ctx, input, args...)
	if err != nil {
		return nil, err
	}
	return p.Wait()
}

// Process is a git command started by Start.
type Process struct {
	cmd            *exec.Cmd
	args           []string
	stdout, stderr bytes.Buffer
}

// Start starts git with args (stdin fed from input, nil: none) without waiting for
// it, so that a hook can do its own work while git does its part.
func (g Git) Start(ctx context.Context, input []byte, args ...string) (*Process, error) {
	p := &Process{cmd: g.command(ctx, args...), args: args}
	if input != nil {
		p.cmd.Stdin = bytes.NewReader(input)
	}
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		return nil, &Error{Args: args, Code: -1, Err: err}
	}
	return p, nil
}

// Stream runs git with args and hands its stdout to fn while git is still writing it,
// so that the caller's work on the first lines overlaps git's on the last. When fn
// returns an error git is stopped and that error is returned; otherwise Stream waits
// for git and returns its failure, if any, as a *Error. fn must read until EOF (or
// fail): git blocks on a full pipe.
func (g Git) Stream(ctx context.Context, args []string, fn func(io.Reader) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := g.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	if err := cmd.Start(); err != nil {
		return &Error{Args: args, Code: -1, Err: err}
	}
	if err := fn(out); err != nil {
		cancel()
		_ = cmd.Wait()
		return err
	}
	if err := cmd.Wait(); err != nil {
		return newError(args, stderr.String(), err)
	}
	return nil
}

// command is the one place guard builds a git process: in g.Dir with g.Env.
func (g Git) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.Dir
	cmd.Env = g.Env
	return cmd
}

// Wait waits for the command and returns its stdout; a non-zero exit is a *Error.
func (p *Process) Wait() ([]byte, error) {
	if err := p.cmd.Wait(); err != nil {
		return p.stdout.Bytes(), newError(p.args, p.stderr.String(), err)
	}
	return p.stdout.Bytes(), nil
}

// newError wraps the error of a finished git command, with git's exit code (-1 when
// it did not exit normally) and stderr.
func newError(args []string, stderr string, err error) *Error {
	ge := &Error{Args: args, Code: -1, Stderr: stderr, Err: err}
	var xe *exec.ExitError
	if errors.As(err, &xe) {
		ge.Code = xe.ExitCode()
	}
	return ge
}

// Line runs git and returns its stdout's first line, trimmed.
func (g Git) Line(ctx context.Context, args ...string) (string, error) {
	out, err := g.Run(ctx, args...)
	if err != nil {
		return "", err
	}
	s := string(out)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s), nil
}
