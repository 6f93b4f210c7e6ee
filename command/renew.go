package command

import (
	"context"
	"errors"
	"fmt"

	"github.com/guardlocks/guard/backend"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// RenewOptions are the inputs of `guard renew`.
type RenewOptions struct {
	Env *guard.Env
	// Target is the DIR or LOCKFILE argument (empty: the current directory).
	Target string
	LockNaming
	Owner string
	// Expires, when set, also replaces expires_after.
	Expires string
	JSON    bool
	// Resource is --resource: the resource whose lock is renewed.
	Resource string
}

// RenewJSON is `guard renew --json`: the renewed lock object itself (as it always
// was), with beside its keys the shape of `guard lock --json` (ok, action, and the
// lock again under "lock"), so that one reader takes both commands' answers.
type RenewJSON struct {
	lockcore.JSON
	OK     bool          `json:"ok"`
	Action string        `json:"action"`
	Lock   lockcore.JSON `json:"lock"`
}

// RunRenew moves created to now for the caller's own live lock (CONTRACT.md `guard
// renew`) and prints its path. Exit 1 when the lock is missing, expired or someone
// else's; 2 on bad input.
func RunRenew(ctx context.Context, o RenewOptions) error {
	env := o.Env
	path, err := resolveTarget(env, "renew", o.Target, o.LockNaming)
	if o.Resource != "" {
		path, err = resourcePath(env, "renew", o.Resource, o.Target, o.LockNaming, false)
	}
	if err != nil {
		return err
	}
	if o.Expires != "" {
		if p := lockcore.ExpiresProblem(o.Expires); p != "" {
			return guard.Fail(guard.BadInput, "renew: --expires %q %s", o.Expires, p)
		}
	}
	id, pb, err := heldLockActor(env, "renew", o.Resource, path, o.Owner)
	if err != nil {
		return err
	}
	now := env.Clock.Now()
	l, err := onHeldLock(pb,
		func() (*lockcore.Lock, bool, error) {
			return backend.Renew(ctx, pb, path, o.Resource, id.Owner, o.Expires, now)
		},
		func() (*lockcore.Lock, error) { return lockcore.Renew(path, id.Owner, o.Expires, now, now.Location()) })
	switch {
	case errors.Is(err, lockcore.ErrNoLock):
		return guard.Fail(guard.NotFound, "renew: no lock at %s%s", path, otherLocks(path))
	case errors.Is(err, lockcore.ErrNotOwner), errors.Is(err, lockcore.ErrExpired):
		return guard.Fail(guard.Conflict, "renew refused: %w", err)
	case err != nil:
		return guard.Fail(guard.BadInput, "renew: %w", err)
	}
	recordLock(env, guard.EventRenewed, l, path, id.Owner, "renew")
	if o.JSON {
		lj := l.ToJSON(now)
		return writeJSON(env.Stdout, RenewJSON{JSON: lj, OK: true, Action: "renewed", Lock: lj})
	}
	fmt.Fprintln(env.Stdout, path)
	return nil
}
