package command

import (
	"fmt"
	"os"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// StatusOptions are the inputs of `guard status`.
type StatusOptions struct {
	Env *guard.Env
	// Dir is the directory asked about (relative to Env.Dir; "" is Env.Dir).
	Dir  string
	JSON bool
	// Resource is --resource: whether that resource is locked.
	Resource string
}

// StatusJSON is `guard status --json`.
type StatusJSON struct {
	Dir    string `json:"dir"`
	Locked bool   `json:"locked"`
	// OK is the verdict key every command's JSON shares: true exactly when the
	// command exits 0 (here: nothing covers Dir, the opposite of Locked).
	OK    bool            `json:"ok"`
	Locks []lockcore.JSON `json:"locks"`
	// Unreadable lists directories on the way that could not be read; any makes
	// the answer "locked" (fail closed).
	Unreadable []string `json:"unreadable,omitempty"`
	// Resource is the URI asked about with --resource (Dir is then the resources
	// directory).
	Resource string `json:"resource,omitempty"`
}

// RunStatus answers whether an active lock covers Dir (in it, in any directory above
// it, or in the same place of another working tree of its repository): exit 0 free,
// 1 locked. A directory on the way that cannot be read counts as locked (fail
// closed). A Dir that does not exist is exit 2.
func RunStatus(o StatusOptions) error {
	env := o.Env
	if o.Resource != "" {
		return resourceStatus(o)
	}
	dir := absUnder(env.Dir, o.Dir)
	st, err := os.Stat(dir)
	if err != nil {
		return guard.Fail(guard.BadInput, "status: %w", err)
	}
	if !st.IsDir() {
		return guard.Fail(guard.BadInput, "status: %s is not a directory", dir)
	}
	subject, err := guard.ResolveSubject(env, dir, guard.Identity{})
	if err != nil {
		return guard.Fail(guard.BadInput, "status: %w", err)
	}
	pol := subject.Policy(env)
	now := pol.Now()
	locks, errs := pol.Covering(dir)

	out := StatusJSON{Dir: dir, Locks: []lockcore.JSON{}}
	for _, l := range locks {
		out.Locks = append(out.Locks, l.ToJSON(now))
	}
	for _, e := range errs {
		out.Unreadable = append(out.Unreadable, e.Error())
	}
	out.Locked = len(locks) > 0 || len(errs) > 0
	out.OK = !out.Locked

	if o.JSON {
		if err := writeJSON(env.Stdout, out); err != nil {
			return err
		}
	} else {
		switch {
		case !out.Locked:
			fmt.Fprintf(env.Stdout, "guard status: %s is free\n", dir)
		case len(locks) == 0:
			fmt.Fprintf(env.Stdout, "guard status: %s counts as locked: a directory on the way could not be read (fail closed)\n", dir)
		default:
			fmt.Fprintf(env.Stdout, "guard status: %d active lock(s) cover %s:\n", len(locks), dir)
			for _, l := range locks {
				writeLockLines(env.Stdout, l, now)
			}
		}
	}
	for _, e := range errs {
		fmt.Fprintf(env.Stderr, "guard status: %v: counted as locked (fail closed)\n", e)
	}
	if out.Locked {
		return guard.Explained(guard.Refused)
	}
	return nil
}
