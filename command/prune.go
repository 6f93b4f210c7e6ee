package command

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/webhook"
	"github.com/guardlocks/guard/lockcore"
)

// PruneOptions are the inputs of `guard prune`.
type PruneOptions struct {
	Env *guard.Env
	RootsInput
	DryRun bool
	JSON   bool
	// Webhook, when set, is the URL that gets PruneNotice after real removals.
	Webhook string
	// WebhookTimeout bounds the post (webhook.Timeout when 0).
	WebhookTimeout time.Duration
}

// PruneJSON is `guard prune --json`.
type PruneJSON struct {
	DryRun      bool         `json:"dry_run"`
	Removed     []string     `json:"removed"`
	WouldRemove []string     `json:"would_remove"`
	Kept        []string     `json:"kept"`
	Errors      []PruneError `json:"errors"`
	// OK is the verdict key every command's JSON shares: true exactly when the
	// command exits 0 (every expired lock that was due went).
	OK bool `json:"ok"`
}

// PruneNotice is what guard prune --webhook posts: the JSON of --json plus the time
// (CONTRACT.md section 9: {"removed": [paths], "time"}), and, for receivers written for
// the reference's notifier, its event name, paths and timestamp (the reference's
// "removed" is a count; guard's is the list, as the contract says).
type PruneNotice struct {
	PruneJSON
	Time      string   `json:"time"`
	Event     string   `json:"event"`
	Paths     []string `json:"paths"`
	Timestamp string   `json:"timestamp"`
}

// PruneError is a lock prune could not remove.
type PruneError struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// RunPrune removes the expired locks under the roots that are not protected, legacy
// or until locks, printing "removed <path>" (or, with DryRun, "would remove <path>")
// for each. A lock that a live one replaced since the scan is kept and reported on
// stderr. Exit 0, or 2 when a lock could not be removed.
func RunPrune(ctx context.Context, o PruneOptions) error {
	env := o.Env
	if err := requireRoots(env, o.Roots); err != nil {
		return err
	}
	if o.Webhook != "" {
		if err := webhook.Check(o.Webhook); err != nil {
			return guard.Fail(guard.BadInput, "prune: --webhook: %w (nothing was pruned)", err)
		}
	}
	rc, roots, err := ResolveRoots(env, o.RootsInput)
	if err != nil {
		return err
	}
	now := env.Clock.Now()
	res := scanLocks(env, "prune", rc, roots)
	actions := lockcore.Prune(res.Locks, now, o.DryRun, now.Location())
	// The event of a pruned lock carries the lock's own fields (name, kind, owner,
	// host, ...), as every event does: the lock as the scan read it, which prune
	// checked again (still prunable) before removing it.
	scanned := make(map[string]*lockcore.Lock, len(res.Locks))
	for _, l := range res.Locks {
		scanned[l.Path] = l
	}

	out := PruneJSON{DryRun: o.DryRun, Removed: []string{}, WouldRemove: []string{}, Kept: []string{}, Errors: []PruneError{}}
	failed := false
	for _, a := range actions {
		switch {
		case o.DryRun:
			out.WouldRemove = append(out.WouldRemove, a.Path)
			if !o.JSON {
				fmt.Fprintf(env.Stdout, "would remove %s\n", a.Path)
			}
		case a.Removed:
			recordLock(env, guard.EventPruned, scanned[a.Path], a.Path, "", "prune")
			out.Removed = append(out.Removed, a.Path)
			if !o.JSON {
				fmt.Fprintf(env.Stdout, "removed %s\n", a.Path)
			}
		case errors.Is(a.Err, lockcore.ErrReplaced):
			out.Kept = append(out.Kept, a.Path)
			fmt.Fprintf(env.Stderr, "guard prune: kept %v\n", a.Err)
		case errors.Is(a.Err, lockcore.ErrGone):
			fmt.Fprintf(env.Stderr, "guard prune: %v\n", a.Err)
		default:
			failed = true
			out.Errors = append(out.Errors, PruneError{Path: a.Path, Error: a.Err.Error()})
			fmt.Fprintf(env.Stderr, "guard prune: could not remove %s: %v\n", a.Path, a.Err)
		}
	}
	out.OK = !failed
	if o.JSON {
		if err := writeJSON(env.Stdout, out); err != nil {
			return err
		}
	}
	if o.Webhook != "" && !o.DryRun && len(out.Removed) > 0 {
		at := env.Clock.Now().Format(time.RFC3339)
		notice := PruneNotice{PruneJSON: out, Time: at, Event: "lock_expired", Paths: out.Removed, Timestamp: at}
		// The notification is a courtesy: its failure is said, and the prune's outcome
		// stands as it is.
		if err := webhook.Post(ctx, o.Webhook, notice, o.WebhookTimeout); err != nil {
			fmt.Fprintf(env.Stderr, "guard prune: warning: %v (the locks were pruned all the same)\n", err)
		}
	}
	if failed {
		return guard.Explained(guard.BadInput)
	}
	return nil
}
