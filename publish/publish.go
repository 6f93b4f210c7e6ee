// Package publish guards publication: it tells which publication operation a command
// performs and on which project (package classify), asks the guard package whether markers
// and locks allow it, runs PUBLIC.txt checks before and chores after the command
// (`guard publish`), and reports readiness (`guard preflight`).
package publish

import (
	"fmt"
	"github.com/guardlocks/guard/classify"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/child"
	"github.com/guardlocks/guard/internal/execpath"
)

// PublishOptions are the inputs of `guard publish`.
type PublishOptions struct {
	Env *guard.Env
	// Identity is who publishes (zero: resolved from the environment and .guard.toml).
	Identity guard.Identity
	// Args is the wrapped command, program first.
	Args []string
	// DryRun reports what would happen and runs nothing.
	DryRun bool
	// NoChores skips the PUBLIC.txt chores after the command.
	NoChores bool
	// Signals delivers the signals guard receives (SIGINT, SIGTERM, SIGHUP): one that
	// came while the PUBLIC.txt checks ran stops guard publish before the command
	// starts. While the command runs, internal/child passes guard's signals on to it.
	// nil: none.
	Signals <-chan os.Signal
}

// RunPublish is `guard publish`: classify the command, decide with the markers and
// the locks for the project it acts on, run the PUBLIC.txt checks, run the command
// with guard's own stdin, stdout and stderr, pass its exit code through, then run
// the chores. The command, the checks and the chores get Env.Environ, whose PATH
// finds the command. Commands that publish nothing, and dry-run forms, run unguarded.
func RunPublish(opts PublishOptions) error {
	env := opts.Env
	if len(opts.Args) == 0 {
		return guard.Fail(guard.BadInput, "publish: no command given (guard publish -- COMMAND [ARGS...])")
	}
	// The command is read where it runs ([publish.commands] of the current directory's
	// configuration); the decision is the project's, as guard check on that project
	// decides it.
	here, err := guard.ResolveSubject(env, "", guard.Identity{})
	if err != nil {
		return guard.Fail(guard.BadInput, "publish: %w", err)
	}
	c, err := classify.Classify(opts.Args, env.Dir, here.Config)
	if err != nil {
		return guard.Fail(guard.BadInput, "publish: %w", err)
	}
	cmdline := strings.Join(opts.Args, " ")
	if len(c.Words) == 0 {
		return guard.Fail(guard.BadInput, "publish: %q runs no command", cmdline)
	}
	if !c.Known {
		fmt.Fprintf(env.Stderr, "guard: refused: cannot tell what %q publishes (%s).\n  what now: if it publishes, say what it does in .guard.toml:\n\n%s\n\n  (or run the publishing command itself through guard publish)\n",
			cmdline, c.Why, indent(c.ConfigHint(), "    "))
		return guard.Explained(guard.BadInput)
	}
	if !c.Publishes() {
		if c.DryRun {
			fmt.Fprintf(env.Stderr, "guard: %s: a dry run, not guarded (%s)\n", cmdline, c.Why)
		}
		if opts.DryRun {
			fmt.Fprintf(env.Stdout, "would run unguarded: %s\n  (%s)\n", cmdline, c.Why)
			return nil
		}
		code, err := runWrapped(opts)
		if err != nil {
			return err
		}
		return exitWith(code)
	}

	// Every project the command publishes decides: the one it acts on, and those of
	// the artifacts it uploads (npm publish ../priv/pkg.tgz). Each project's own
	// .guard.toml (owner, host, require_public) governs it.
	d, err := decideAll(env, opts.Identity, c)
	if err != nil {
		return guard.Fail(guard.BadInput, "publish: %w", err)
	}
	d.Explain(env.Stderr)
	if !d.Allowed {
		guard.RecordDecision(env, "publish", d.Actor, d.Locks)
		if d.Locks == nil || d.Locks.Allowed {
			guard.RecordGate(env, guard.EventRefused, "publish", d.Actor, c.ProjectDir, c.Op+" refused by the project's markers: "+cmdline)
		}
		fmt.Fprintf(env.Stderr, "guard: %s was not run.\n", cmdline)
		return guard.Explained(guard.Refused)
	}
	sh := shell{environ: env.Environ, out: env.Stderr}
	if opts.DryRun {
		writePlan(env, opts, c, d, sh)
		return nil
	}
	fmt.Fprintf(env.Stderr, "guard: %s of %s allowed (%s)\n", c.Op, c.ProjectDir, approval(d))
	if results, ok := runChecks(sh, d.Markers.Public); !ok {
		last := results[len(results)-1]
		detail := fmt.Sprintf("exit %d", last.ExitCode)
		if last.Error != "" {
			detail = last.Error
		}
		fmt.Fprintf(env.Stderr, "guard: refused %s of %s: the check %q from %s failed (%s).\n  what now: make the check pass, then publish again. %s was not run.\n",
			c.Op, c.ProjectDir, last.Command, last.Marker, detail, cmdline)
		return guard.Explained(guard.Refused)
	}
	// A Ctrl-C or kill that arrived while the checks ran means "stop": guard kept
	// running only to forward signals to the command, which has not started.
	select {
	case s := <-opts.Signals:
		fmt.Fprintf(env.Stderr, "guard: %v received before %s started; it was not run.\n", s, cmdline)
		// As a shell reports a process the signal ended.
		return guard.CommandExit(128 + signalNumber(s))
	default:
	}
	code, err := runWrapped(opts)
	if err != nil {
		return err
	}
	if code != 0 {
		fmt.Fprintf(env.Stderr, "guard: %s exited %d; no chores run.\n", cmdline, code)
		return guard.CommandExit(code)
	}
	if opts.NoChores {
		return nil
	}
	if writeChoreSummary(env.Stderr, runChores(sh, d.Markers.Public, env.Clock.Now())) > 0 {
		return guard.Explained(guard.Refused)
	}
	return nil
}

// decideAll is the publication decision for every project of c: the first
// project's decision, refused when any project's is, with the warnings and refusals
// of all and the PUBLIC.txt markers of all (their checks run before and their chores
// after the command, each marker once). Who publishes is id, else each project's
// configured identity.
func decideAll(env *guard.Env, id guard.Identity, c classify.Classification) (*guard.PublicationDecision, error) {
	projects := c.Projects
	if len(projects) == 0 {
		projects = []string{c.ProjectDir}
	}
	var all *guard.PublicationDecision
	for _, project := range projects {
		subject, err := guard.ResolveSubject(env, project, guard.Identity{})
		if err != nil {
			return nil, err
		}
		who := id
		if who == (guard.Identity{}) {
			who = subject.Identity
		}
		d, err := guard.CheckPublication(guard.NewPolicy(env, who), project, c.Op, subject.Config)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = d
			continue
		}
		all.Warnings = append(all.Warnings, d.Warnings...)
		if len(d.Refusals) > 0 && len(all.Refusals) == 0 {
			// The history names who was refused: the first refusing project's judge.
			all.Actor = d.Actor
		}
		all.Refusals = append(all.Refusals, d.Refusals...)
		for _, m := range d.Markers.Public {
			if !slices.ContainsFunc(all.Markers.Public, func(x *guard.Marker) bool { return x.Path == m.Path }) {
				all.Markers.Public = append(all.Markers.Public, m)
			}
		}
		if !d.Locks.Allowed && all.Locks.Allowed {
			all.Locks = d.Locks
		}
		all.Allowed = all.Allowed && d.Allowed
	}
	return all, nil
}

// approval names what approved the publication.
func approval(d *guard.PublicationDecision) string {
	if len(d.Markers.Public) > 0 {
		return "approved by " + d.Markers.Public[0].Path
	}
	return "no marker"
}

// writePlan is --dry-run's report: what guard would run, in order.
func writePlan(env *guard.Env, opts PublishOptions, c classify.Classification, d *guard.PublicationDecision, sh shell) {
	w := env.Stdout
	fmt.Fprintf(w, "%s of %s: allowed (%s)\n", c.Op, c.ProjectDir, approval(d))
	for _, m := range d.Markers.Public {
		for _, ch := range m.Checks {
			fmt.Fprintf(w, "would run check: %s  (in %s)\n", ch, m.Dir)
		}
	}
	fmt.Fprintf(w, "would run: %s\n", strings.Join(opts.Args, " "))
	if opts.NoChores {
		return
	}
	for _, m := range d.Markers.Public {
		rec, err := loadChoreRecord(choreRecordPath(m.Dir, sh.environ))
		for _, ch := range m.Chores {
			switch {
			case err == nil && rec.IsDone(m.Path, ch):
				fmt.Fprintf(w, "chore already done: %s\n", ch)
			default:
				fmt.Fprintf(w, "would run chore: %s  (in %s)\n", ch, m.Dir)
			}
		}
	}
}

// runWrapped runs the command with guard's stdin, stdout and stderr in the working
// directory and returns its exit code as a shell reports it (128+N when signal N
// ended it). It runs as guard run's and guard sandbox's children do (child.Run):
// guard's signals reach it, a ^C typed at the terminal reaches it once, and it dies
// with guard, SIGKILL included. The program is looked up in the PATH of Env.Environ.
func runWrapped(opts PublishOptions) (int, error) {
	env := opts.Env
	prog, err := execpath.Look(opts.Args[0], env.Dir, execpath.Value(env.Environ, "PATH"))
	if err != nil {
		return 0, guard.Fail(guard.BadInput, "publish: %w", err)
	}
	cmd := exec.Command(prog, opts.Args[1:]...)
	cmd.Args[0] = opts.Args[0]
	cmd.Dir = env.Dir
	cmd.Env = execpath.With(env.Environ)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	code, err := child.Run(cmd)
	if err != nil {
		return 0, guard.Fail(guard.BadInput, "publish: starting %s: %w", opts.Args[0], err)
	}
	return code, nil
}

// signalNumber is s's number (SIGTERM's for a signal that has none).
func signalNumber(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return int(n)
	}
	return int(syscall.SIGTERM)
}

func exitWith(code int) error {
	if code == 0 {
		return nil
	}
	return guard.CommandExit(code)
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
