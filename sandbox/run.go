package sandbox

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/child"
	"github.com/guardlocks/guard/internal/execpath"
	"github.com/guardlocks/guard/lockcore"
)

// Options are the inputs of `guard sandbox`.
type Options struct {
	Env *guard.Env
	// Owner and Host are --owner and --host (the identity's flags).
	Owner, Host string
	// Allow are --allow paths (relative to Env.Dir), exempted deliberately.
	Allow []string
	// BestEffort runs COMMAND unsandboxed, with a warning, where the kernel cannot
	// sandbox it.
	BestEffort bool
	// Command is COMMAND and its arguments.
	Command []string
	// Exec replaces guard with COMMAND once the sandbox holds, instead of running it
	// as a child: nothing is explained when it fails, but it is exactly the process
	// its parent started (guard run --sandbox, which signals process groups).
	Exec bool
	// ExtraRoots are more trees to read locks from, to their depths: the roots of the
	// roots file (cmd/guard resolves them as guard scan does).
	ExtraRoots []lockcore.ScanRoot
}

// Run runs COMMAND so that neither it nor anything it starts can change an area whose
// lock refuses the identity's edit, nor a lock file, marker or configuration it does
// not own (Roots says where guard looks). It exits with COMMAND's own code (128+N
// for signal N; 127 when COMMAND is not found, 126 when it cannot be run, as a shell
// says); when COMMAND fails, stderr lists the read-only areas and their locks. Where
// the kernel cannot sandbox, it refuses (2) unless BestEffort.
func Run(o Options) error {
	env := o.Env
	if len(o.Command) == 0 {
		return guard.Fail(guard.BadInput, "sandbox: name a COMMAND to run: guard sandbox [flags] -- COMMAND [ARGS...]")
	}
	subject, err := guard.ResolveSubject(env, env.Dir, guard.Identity{Owner: o.Owner, Host: o.Host})
	if err != nil {
		return guard.Fail(guard.BadInput, "sandbox: %w", err)
	}
	set := subject.Policy(env).ReadOnlyAreas(append(Roots(subject), o.ExtraRoots...), nil)
	for _, w := range set.Warnings {
		fmt.Fprintf(env.Stderr, "guard sandbox: warning: %s\n", w)
	}
	var allow []string
	for _, a := range o.Allow {
		allow = append(allow, absUnder(env.Dir, a))
	}
	var paths []string
	for _, a := range set.Areas {
		paths = append(paths, a.Path)
	}
	abi := ABI()
	if abi >= 1 {
		exactErr := exactHere(env)
		if exactErr == nil {
			// Started only now: a child started before the walk of the tree slowed
			// that walk more than its own start cost (bench/README.md, sandbox).
			var c *exactChild
			if c, exactErr = startExact(o); exactErr == nil {
				fallback, err := runExactly(o, c, set, paths, allow, abi)
				if fallback == "" {
					return err
				}
				exactErr = errors.New(fallback)
			}
		}
		if len(set.Areas) > 0 {
			fmt.Fprintf(env.Stderr, "guard sandbox: note: no exact sandbox here (%v); Landlock alone enforces it: "+
				"nothing can be created, removed or renamed directly in a folder that holds a read-only area, and chmod, chown, "+
				"utime and extended attributes of what is in an area are not refused\n", exactErr)
		}
	}
	plan, err := NewPlan(paths, allow)
	if err != nil {
		return guard.Fail(guard.BadInput, "sandbox: %w", err)
	}
	for _, u := range plan.Unlisted {
		fmt.Fprintf(env.Stderr, "guard sandbox: warning: could not list %s; its entries stay read-only (fail closed)\n", u)
	}
	sandboxed := false
	switch {
	case abi < 1 && !o.BestEffort:
		return guard.Fail(guard.BadInput, "sandbox: this kernel offers no Landlock (Linux 5.13 or later with Landlock enabled at boot, e.g. lsm=...,landlock), so guard cannot make locked areas read-only; "+
			"COMMAND was not run. Run it unsandboxed with --best-effort, or check the areas first with `guard check PATH`")
	case abi < 1:
		fmt.Fprintf(env.Stderr, "guard sandbox: warning: this kernel offers no Landlock; running COMMAND WITHOUT a sandbox (--best-effort)\n")
	default:
		if err := Enforce(plan, abi); err != nil {
			if !o.BestEffort {
				return guard.Fail(guard.BadInput, "sandbox: could not restrict COMMAND: %w; COMMAND was not run (--best-effort runs it unsandboxed)", err)
			}
			fmt.Fprintf(env.Stderr, "guard sandbox: warning: could not restrict COMMAND (%v); running it WITHOUT a sandbox (--best-effort)\n", err)
		} else {
			sandboxed = true
			if abi < 3 {
				fmt.Fprintf(env.Stderr, "guard sandbox: warning: Landlock ABI %d cannot refuse truncate(2) of an existing file (ABI 3, Linux 6.2, can)\n", abi)
			}
		}
	}
	mode := "none"
	if sandboxed {
		mode = "landlock"
	}
	code, err := start(o, mode, abi)
	if err != nil {
		return err
	}
	if code != 0 && sandboxed && len(set.Areas) > 0 {
		explain(env.Stderr, o.Command[0], code, set, plan.Boundary, false)
	}
	return guard.CommandExit(code)
}

// NamespacesVar, set to 0 in guard sandbox's environment, keeps it from the exact
// sandbox: it uses Landlock alone, as where the kernel offers no user namespaces (to
// test that fallback, or to step around a kernel whose namespaces misbehave).
const NamespacesVar = "GUARD_SANDBOX_NAMESPACES"

// exactHere is Exact, unless NamespacesVar turns the exact sandbox off.
func exactHere(env *guard.Env) error {
	if env.Getenv != nil && env.Getenv(NamespacesVar) == "0" {
		return fmt.Errorf("%s=0 turns it off", NamespacesVar)
	}
	return Exact()
}

// runExactly runs COMMAND in the exact sandbox, in the namespace child c. A non-empty fallback says why the
// namespaces could not be set up; nothing ran, and the caller falls back to Landlock
// alone. err is guard's final answer (COMMAND's code as guard.CommandExit, or a refusal).
func runExactly(o Options, c *exactChild, set *guard.ReadOnlySet, paths, allow []string, abi int) (fallback string, err error) {
	env := o.Env
	plan, err := NewExactPlan(paths, allow)
	if err != nil {
		c.cancel()
		return "", guard.Fail(guard.BadInput, "sandbox: %w", err)
	}
	path, err := execpath.Look(o.Command[0], env.Dir, execpath.Value(env.Environ, "PATH"))
	if err != nil {
		c.cancel()
		fmt.Fprintf(env.Stderr, "guard sandbox: %v\n", err)
		return "", guard.Explained(guard.CommandNotFound)
	}
	code, fallback, err := c.run(o, plan, path, o.Command, sandboxEnviron(env.Environ, "exact", abi), abi)
	if err != nil {
		return "", guard.Fail(guard.BadInput, "%w", err)
	}
	if fallback != "" {
		return fallback, nil
	}
	if code != 0 && !o.Exec && len(set.Areas) > 0 {
		var boundary []string
		if len(plan.Missing) > 0 {
			if p, err := NewPlan(plan.Missing, allow); err == nil {
				boundary = p.Boundary
			}
		}
		explain(env.Stderr, o.Command[0], code, set, boundary, true)
	}
	return "", guard.CommandExit(code)
}

// Roots are where the sandbox reads locks, besides the roots file: the project of
// the subject (the working tree that holds it, else its directory), walked to any
// depth. The policy adds the directories above it and the repository's other working
// trees.
func Roots(s *guard.Subject) []lockcore.ScanRoot {
	top := s.Top
	if top == "" {
		top = s.Dir
	}
	return []lockcore.ScanRoot{{Path: top, MaxDepth: math.MaxInt32}}
}

// start runs COMMAND in its working directory and environment: as guard's child, or
// in guard's place with Exec.
func start(o Options, mode string, abi int) (int, error) {
	env := o.Env
	path, err := execpath.Look(o.Command[0], env.Dir, execpath.Value(env.Environ, "PATH"))
	if err != nil {
		fmt.Fprintf(env.Stderr, "guard sandbox: %v\n", err)
		return 127, nil
	}
	environ := sandboxEnviron(env.Environ, mode, abi)
	if o.Exec {
		err := execInPlace(path, o.Command, environ)
		fmt.Fprintf(env.Stderr, "guard sandbox: %s: %v\n", o.Command[0], err)
		return 126, nil
	}
	cmd := exec.Command(path, o.Command[1:]...)
	cmd.Args[0] = o.Command[0]
	cmd.Dir = env.Dir
	cmd.Env = environ
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	code, err := child.Run(cmd)
	if err != nil {
		fmt.Fprintf(env.Stderr, "guard sandbox: %s: %v\n", o.Command[0], err)
		return 126, nil
	}
	return code, nil
}

// sandboxEnviron is COMMAND's environment: GUARD_SANDBOX tells COMMAND (and an agent
// hook inside it) that it already runs sandboxed, and at which Landlock ABI ("0":
// unsandboxed, --best-effort); GUARD_SANDBOX_MODE says how: "exact" (namespaces and
// Landlock), "landlock" (Landlock alone) or "none".
func sandboxEnviron(environ []string, mode string, abi int) []string {
	level := "0"
	if mode != "none" {
		level = strconv.Itoa(abi)
	}
	return execpath.With(environ, "GUARD_SANDBOX="+level, "GUARD_SANDBOX_MODE="+mode)
}

// explain tells a user whose COMMAND failed which areas the sandbox kept read-only,
// one line per lock: the kernel does not say which write it refused, and a failure
// that has nothing to do with the sandbox (a grep that found nothing) should cost a
// few lines, not a page.
func explain(w io.Writer, name string, code int, set *guard.ReadOnlySet, boundary []string, exact bool) {
	errs := `a "Permission denied" or "Invalid cross-device link"`
	if exact {
		errs = `a "Read-only file system", "Device or resource busy" or "Invalid cross-device link"`
	}
	fmt.Fprintf(w, "guard sandbox: %s exited with status %d. While it ran, these areas were read-only "+
		"(%s there came from the sandbox, not from the files' permissions):\n", name, code, errs)
	set.Summary(w)
	var folders []string
	for _, b := range boundary {
		if b != string(filepath.Separator) {
			folders = append(folders, b)
		}
	}
	if len(folders) > 0 {
		fmt.Fprintf(w, "  nothing could be created, removed or renamed directly in (existing files there stayed writable): %s\n", listed(folders, 10))
	}
	fmt.Fprintf(w, "  what now: `guard status DIR` shows a lock in full; ask its holder, wait for it to go, or exempt a path deliberately with guard sandbox --allow PATH\n")
}

// listed joins paths, at most max of them.
func listed(paths []string, max int) string {
	if len(paths) <= max {
		return strings.Join(paths, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(paths[:max], ", "), len(paths)-max)
}

// absUnder is p made absolute against base, cleaned.
func absUnder(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
