package command

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// ScanOptions are the inputs of `guard scan`.
type ScanOptions struct {
	Env *guard.Env
	RootsInput
	// All adds expired locks to the listing.
	All  bool
	JSON bool
	// WriteCache writes LOCK-CACHE.md (the configured caches, else one file beside the
	// roots file or in the current directory).
	WriteCache bool
}

// RunScan lists the locks under the roots, sorted by path: active ones, or all with
// All. It exits 0 whatever it finds; unreadable directories are reported on stderr and
// skipped. A bad roots file is exit 2.
func RunScan(o ScanOptions) error {
	env := o.Env
	if err := requireRoots(env, o.Roots); err != nil {
		return err
	}
	rc, roots, err := ResolveRoots(env, o.RootsInput)
	if err != nil {
		return err
	}
	now := env.Clock.Now()
	res := scanLocks(env, "scan", rc, roots)
	active := res.Active(now)
	shown := active
	if o.All {
		shown = res.Locks
	}

	if o.JSON {
		out := make([]lockcore.JSON, 0, len(shown))
		for _, l := range shown {
			out = append(out, l.ToJSON(now))
		}
		if err := writeJSON(env.Stdout, out); err != nil {
			return err
		}
	} else {
		writeScanText(env.Stdout, shown, len(active), o.All, now)
	}

	if o.WriteCache {
		// With --json, stdout holds the JSON document only.
		w := env.Stdout
		if o.JSON {
			w = env.Stderr
		}
		for _, cf := range lockcore.RenderCaches(rc, active, now, env.Dir, cacheDir(env, rc)) {
			if err := lockcore.WriteCache(cf); err != nil {
				return guard.Fail(guard.BadInput, "scan: %w", err)
			}
			fmt.Fprintf(w, "guard scan --write-cache: %s (%d active lock(s))\n", cf.Path, cf.Locks)
		}
	}
	return nil
}

// writeScanText prints the listing in the reference's lock_scan layout.
func writeScanText(w io.Writer, locks []*lockcore.Lock, active int, all bool, now time.Time) {
	switch {
	case len(locks) == 0 && all:
		fmt.Fprintln(w, "guard scan: no locks found.")
		return
	case len(locks) == 0:
		fmt.Fprintln(w, "guard scan: no active locks found.")
		return
	case all:
		fmt.Fprintf(w, "guard scan: %d lock(s), %d active:\n", len(locks), active)
	default:
		fmt.Fprintf(w, "guard scan: %d active lock(s):\n", len(locks))
	}
	for _, l := range locks {
		writeLockLines(w, l, now)
	}
}

// writeLockLines prints one lock as scan and status list it: the reference's two
// lines, then what else its author wrote (purpose, release condition, fields guard
// does not interpret), so that nothing in the file goes unseen.
func writeLockLines(w io.Writer, l *lockcore.Lock, now time.Time) {
	fmt.Fprintf(w, "  %s%s\n", l.Path, lockTags(l))
	fmt.Fprintf(w, "      scope=%s owner=%s created=%s (%s) remaining=%s\n",
		l.Scope, orQuestion(l.Owner), l.Created.In(now.Location()).Format("2006-01-02T15:04"),
		l.CreatedSource, l.Remaining(now))
	if l.Purpose != "" {
		fmt.Fprintf(w, "      purpose: %s\n", l.Purpose)
	}
	if l.ReleaseCondition != "" {
		fmt.Fprintf(w, "      release_condition: %s\n", l.ReleaseCondition)
	}
	if extra := guard.UnknownFields(l); len(extra) > 0 {
		fmt.Fprintf(w, "      other fields: %s\n", strings.Join(extra, "; "))
	}
}

// lockTags marks what the path alone does not say.
func lockTags(l *lockcore.Lock) string {
	s := ""
	if l.Kind == lockcore.Legacy {
		s += " [LEGACY]"
	}
	if l.Kind != lockcore.Exclusive && l.Kind != lockcore.Legacy {
		s += " [" + string(l.Kind) + "]"
	}
	if l.Soft() {
		s += " [soft]"
	}
	switch {
	case l.Invalid():
		s += fmt.Sprintf(" [INVALID: %v]", l.ReadErr)
	case l.ReadErr != nil:
		s += fmt.Sprintf(" [UNREADABLE: %v]", l.ReadErr)
	}
	return s
}

func orQuestion(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// writeJSON writes one indented JSON document.
func writeJSON(w io.Writer, v any) error { return guard.WriteJSON(w, "guard", v) }
