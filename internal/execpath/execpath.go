// Package execpath is what a wrapper of other programs (guard publish, guard run)
// needs to run one as a shell would: the program found in the PATH of the
// environment it will get rather than in guard's own, and its exit code as a shell
// reports it.
package execpath

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Look finds prog as a shell would: a name with a slash is a path (relative to dir);
// otherwise the first executable file of that name in path (a list; empty or
// relative entries are taken from dir).
func Look(prog, dir, path string) (string, error) {
	if strings.Contains(prog, "/") {
		p := prog
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if isExecutable(p) {
			return p, nil
		}
		return "", fmt.Errorf("%s: not an executable file", p)
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		if p := filepath.Join(d, prog); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: executable not found in PATH", prog)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// Value reads key from an environment list (the last entry wins, as for exec).
func Value(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// With is environ with each of set ("KEY=VALUE") in place of every entry of its key,
// set's entries last: the environment a wrapped command gets when guard adds
// variables of its own (GUARD_LOCK_HELD, GUARD_SANDBOX). It never returns nil, since
// an exec.Cmd with a nil Env would get guard's whole process environment instead.
func With(environ []string, set ...string) []string {
	out := make([]string, 0, len(environ)+len(set))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, k+"=") }) {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// Status is the exit code, as a shell reports it, of the command that cmd.Run or
// cmd.Wait returned err for; err is returned instead when it is not the command's
// exit (it could not be started or waited for).
func Status(cmd *exec.Cmd, err error) (int, error) {
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 0, err
	}
	return ExitStatus(cmd.ProcessState), nil
}

// ExitStatus is a finished process's exit code as a shell reports it: 128+N when
// signal N ended it.
func ExitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
