// Package hooks runs guard's git hooks: it asks git which paths a commit or a push
// would publish and asks the policy (package guard) whether the locks allow it. The
// hooks never decide on their own; they gather inputs and report the policy's answer.
//
// guard calls the git binary rather than reading the repository with go-git: on a
// repository of 100,000 files git's index diff is the floor, and go-git's is far
// slower (bench/README.md, "## hooks").
package hooks

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// Git runs the git binary in one repository. Dir is the directory git runs in; Env is
// its whole environment (nil: an empty environment plus nothing, so callers pass the
// environment they were given, including GIT_DIR and GIT_INDEX_FILE as git sets them
// for hooks).
type Git struct {
	Dir string
	Env []string
}

// GitError is a failed git command: the arguments, git's exit code and its stderr.
type GitError struct {
	Args   []string
	Code   int
	Stderr string
	Err    error
}

// Error names the git command and gives git's message (its stderr, else the exec error).
func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

// Unwrap returns the exec error, so that errors.As finds an *exec.ExitError.
func (e *GitError) Unwrap() error { return e.Err }

// Run runs git with args and returns its stdout. A non-zero exit is a *GitError that
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
	p := &Process{cmd: exec.CommandContext(ctx, "git", args...), args: args}
	p.cmd.Dir = g.Dir
	p.cmd.Env = g.Env
	if input != nil {
		p.cmd.Stdin = bytes.NewReader(input)
	}
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		return nil, &GitError{Args: args, Code: -1, Err: err}
	}
	return p, nil
}

// Wait waits for the command and returns its stdout; a non-zero exit is a *GitError.
func (p *Process) Wait() ([]byte, error) {
	if err := p.cmd.Wait(); err != nil {
		return p.stdout.Bytes(), gitError(p.args, p.stderr.String(), err)
	}
	return p.stdout.Bytes(), nil
}

// gitError wraps the error of a finished git command, with git's exit code (-1 when
// it did not exit normally) and stderr.
func gitError(args []string, stderr string, err error) *GitError {
	ge := &GitError{Args: args, Code: -1, Stderr: stderr, Err: err}
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

// ChangedPaths returns the paths (relative to the repository's top level, sorted,
// unique) changed by the commits reachable from head but not from base: both sides of
// every rename or copy, deletions included. An empty base means every commit reachable
// from head, a root commit contributing its whole tree.
func ChangedPaths(ctx context.Context, g Git, base, head string) ([]string, error) {
	rng := []string{head}
	if base != "" {
		rng = []string{head, "--not", base}
	}
	return LogPaths(ctx, g, rng...)
}

// LogPaths returns the paths changed by the commits that `git log revs...` lists, with
// a single git process whatever the number of commits: `git log --name-only -z` over
// the range. Renames are not detected (--no-renames), so both sides of a rename appear
// as a deletion and an addition. Root commits contribute their whole tree (git log
// shows a root commit's diff against the empty tree). A merge commit contributes the
// paths it changed relative to every parent (conflict resolutions, "evil" merges); the
// commits it merges are in the range themselves or already published.
func LogPaths(ctx context.Context, g Git, revs ...string) ([]string, error) {
	var paths []string
	err := LogPathsFunc(ctx, g, revs, func(batch []string) error {
		paths = append(paths, batch...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	return paths, nil
}

// logBatch is how many new paths LogPathsFunc gathers before handing them on: large
// enough to keep the calls few, small enough that checking starts while git is still
// walking history.
const logBatch = 64

// LogPathsFunc is LogPaths streamed: fn receives the paths, each once, in batches as
// git prints them, so that the caller's work (reading lock directories) overlaps
// git's. An error from fn stops git and is returned.
func LogPathsFunc(ctx context.Context, g Git, revs []string, fn func([]string) error) error {
	args := append([]string{"-c", "core.quotePath=false", "-c", "log.showRoot=true", "log", "--no-renames", "--name-only", "-z", "--format=", "--diff-merges=combined", "--no-ext-diff", "--no-textconv"}, revs...)
	args = append(args, "--")
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.Dir
	cmd.Env = g.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("git log: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return &GitError{Args: args, Code: -1, Err: err}
	}
	seen := make(map[string]struct{})
	var batch []string
	r := bufio.NewReaderSize(out, 64*1024)
	var fnErr error
	for fnErr == nil {
		field, rerr := r.ReadString(0)
		if s := strings.TrimLeft(strings.TrimSuffix(field, "\x00"), "\n"); s != "" {
			if _, ok := seen[s]; !ok {
				seen[s] = struct{}{}
				batch = append(batch, s)
				if len(batch) >= logBatch {
					fnErr = fn(batch)
					batch = nil
				}
			}
		}
		if rerr != nil {
			break
		}
	}
	if fnErr != nil {
		cancel()
		_ = cmd.Wait()
		return fnErr
	}
	if err := cmd.Wait(); err != nil {
		return gitError(args, stderr.String(), err)
	}
	if len(batch) > 0 {
		return fn(batch)
	}
	return nil
}

// uniqueZ splits NUL-separated git output into sorted unique non-empty names. git log
// with --format= separates commits with an extra newline, which is trimmed away.
func uniqueZ(out []byte) []string {
	seen := make(map[string]struct{})
	var paths []string
	for _, f := range bytes.Split(out, []byte{0}) {
		s := strings.TrimLeft(string(f), "\n")
		if s == "" {
			continue
		}
		if _, ok := seen[s]; ok {
			continue
		}
		seen[s] = struct{}{}
		paths = append(paths, s)
	}
	slices.Sort(paths)
	return paths
}
