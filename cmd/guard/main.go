// Command guard makes the LOCK-SYSTEM protocol enforceable: git hooks, a publish
// wrapper, audits and agent hooks that refuse to touch an area under someone else's
// active lock.
package main

import (
	"context"
	"github.com/guardlocks/guard/backend"
	"github.com/guardlocks/guard/backend/etcd"
	"os"
	"os/user"
	"path/filepath"
	"runtime/debug"
	"time"

	"golang.org/x/term"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/child"
	"github.com/guardlocks/guard/lockcore"
	"github.com/guardlocks/guard/sandbox"
)

// Set by the linker (see .goreleaser.yaml).
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

func main() {
	// guard run's supervisor (Linux) is guard's own binary again; it is no command.
	if len(os.Args) > 1 && os.Args[1] == child.SupervisorArg {
		os.Exit(child.Supervise())
	}
	// guard sandbox's namespace child (Linux) is guard's own binary again, already
	// in the sandbox's namespaces; it becomes COMMAND.
	if len(os.Args) > 1 && os.Args[1] == sandbox.NamespaceArg {
		os.Exit(sandbox.InNamespace())
	}
	os.Exit(run(os.Args[1:]))
}

// run is main's only job: read the process's world into a guard.Env, run the command
// tree, and turn the outcome into an exit code.
func run(args []string) int {
	env := processEnv()
	// Every command records its events in the history's journal; a journal that cannot
	// be written (no state directory, a full disk) loses the event, never the answer.
	env.Recorder = historyRecorder(env)
	// A [backend] in .guard.toml is reached through etcd's client; without one,
	// nothing connects.
	env.OpenBackend = etcd.Open
	env.BackendLocker = func(pb *guard.ProjectBackend) lockcore.Locker { return &backend.Locker{PB: pb} }
	env.BackendRelease = func(ctx context.Context, pb *guard.ProjectBackend, path, owner string) (bool, error) {
		_, found, err := backend.Release(ctx, pb, path, "", owner, false, false, nil)
		return found, err
	}
	defer guard.CloseBackends(env)
	mod, _ := debug.ReadBuildInfo()
	root := newRootCmd(env, withModuleInfo(buildInfo{version, commit, date}, mod))
	root.SetArgs(args)
	// The one context of the process, which every command receives (cmd.Context()).
	// It is not cancelled on a signal here: guard run, publish and sandbox pass
	// SIGINT, SIGTERM and SIGHUP on to COMMAND and must still release afterwards;
	// the commands a signal ends (lock --wait, watch, serve) derive their own.
	ctx := context.Background()
	return report(env.Stderr, root.ExecuteContext(ctx))
}

func processEnv() *guard.Env {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if name == "" {
		name = "unknown"
	}
	wd, _ := os.Getwd()
	exe, err := os.Executable()
	if err == nil {
		if p, err := filepath.EvalSymlinks(exe); err == nil {
			exe = p
		}
	}
	return &guard.Env{
		Stdin:      os.Stdin,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		Clock:      lockcore.ClockFunc(time.Now),
		User:       name,
		Hostname:   host,
		Dir:        wd,
		Getenv:     os.Getenv,
		Environ:    os.Environ(),
		StdinTTY:   term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY:  term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY:  term.IsTerminal(int(os.Stderr.Fd())),
		Executable: exe,
		ParentPID:  os.Getppid(),
	}
}
