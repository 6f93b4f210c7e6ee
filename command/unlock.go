package command

import (
	"context"
	"errors"
	"fmt"

	"github.com/guardlocks/guard/backend"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// UnlockOptions are the inputs of `guard unlock`.
type UnlockOptions struct {
	Env *guard.Env
	// Target is the DIR or LOCKFILE argument (empty: the current directory).
	Target string
	LockNaming
	Owner string
	// Token is compared with the lock's token field when it has one.
	Token string
	Force bool
	JSON  bool
	// Resource is --resource: the resource whose lock is released.
	Resource string
	// All is --all: release every lock Owner holds under the roots.
	All   bool
	Roots RootsInput
}

// UnlockJSON is `guard unlock --json`.
type UnlockJSON struct {
	Path    string        `json:"path"`
	Removed bool          `json:"removed"`
	Lock    lockcore.JSON `json:"lock"`
	// OK is the verdict key every command's JSON shares: a document is only written
	// for a lock that was removed, so it is always true.
	OK bool `json:"ok"`
}

// RunUnlock removes a lock (CONTRACT.md `guard unlock`): the caller's own lock (0);
// someone else's only with --force; a user lock only with --force from a terminal.
// It prints the removed lock's path on stdout. Exit 1 when refused or when there is
// no such lock, 2 on bad input.
func RunUnlock(ctx context.Context, o UnlockOptions) error {
	env := o.Env
	if o.All {
		return runUnlockAll(ctx, o)
	}
	path, err := unlockTarget(o)
	if err != nil {
		return err
	}
	id, pb, err := heldLockActor(env, "unlock", o.Resource, path, o.Owner)
	if err != nil {
		return err
	}
	now := env.Clock.Now()
	l, err := onHeldLock(pb,
		func() (*lockcore.Lock, bool, error) {
			return backend.Release(ctx, pb, path, o.Resource, id.Owner, o.Force, env.StdinTTY, now.Location())
		},
		func() (*lockcore.Lock, error) {
			return lockcore.Release(path, lockcore.ReleaseOptions{
				Owner: id.Owner, Token: o.Token, Force: o.Force, Interactive: env.StdinTTY, Now: now,
			})
		})
	switch {
	case errors.Is(err, lockcore.ErrNoLock):
		return guard.Fail(guard.NotFound, "unlock: no lock at %s%s", path, otherLocks(path))
	case errors.Is(err, lockcore.ErrUserLock):
		return guard.Fail(guard.Refused, "unlock refused: %s is a user lock; only a person removes it (guard unlock --force from a terminal)", path)
	case errors.Is(err, lockcore.ErrNotOwner), errors.Is(err, lockcore.ErrNotRegular):
		return guard.Fail(guard.Refused, "unlock refused: %w", err)
	case err != nil:
		return guard.Fail(guard.BadInput, "unlock: %w", err)
	}
	recordLock(env, guard.EventReleased, l, path, id.Owner, "unlock")
	if o.JSON {
		out := UnlockJSON{Path: path, Removed: true, OK: true}
		if l != nil {
			out.Lock = l.ToJSON(now)
		}
		return writeJSON(env.Stdout, out)
	}
	fmt.Fprintln(env.Stdout, path)
	return nil
}

// unlockTarget is the lock file guard unlock acts on: the resource's (--resource),
// or the one resolveTarget finds.
func unlockTarget(o UnlockOptions) (string, error) {
	if len(o.Roots.Roots) > 0 || o.Roots.RootsFile != "" {
		return "", guard.Fail(guard.BadInput, "unlock: ROOTs and --roots-file go with --all")
	}
	if o.Resource != "" {
		return resourcePath(o.Env, "unlock", o.Resource, o.Target, o.LockNaming, false)
	}
	return resolveTarget(o.Env, "unlock", o.Target, o.LockNaming)
}
