package command

import (
	"errors"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// heldLockActor resolves, for a command that acts on the existing lock at path
// (renew, unlock), who acts and the backend that may hold the lock (nil: the lock
// files alone). The lock's own directory governs, as it did for guard lock: a lock
// made with DIR/.guard.toml's owner is that owner's to renew or unlock; a resource
// lock, like guard lock --resource, takes the current directory's. Errors exit 2,
// prefixed with cmd.
func heldLockActor(env *guard.Env, cmd, resource, path, owner string) (guard.Identity, *guard.ProjectBackend, error) {
	subject, err := guard.ResolveSubject(env, identityDir(env, resource, path), guard.Identity{Owner: owner})
	if err != nil {
		return guard.Identity{}, nil, guard.Fail(guard.BadInput, "%s: %w", cmd, err)
	}
	pb, err := guard.SubjectBackend(env, subject)
	if err != nil {
		return guard.Identity{}, nil, guard.Fail(guard.BadInput, "%s: %w", cmd, err)
	}
	return subject.Identity, pb, nil
}

// onHeldLock does an operation to the lock at path where the lock is held: in the
// project's backend when there is one and it holds the lock (the backend's lock goes
// first; the file follows it), else on the lock file alone. An unreachable backend is
// not passed over for the file: its error is returned, which the caller exits 2 with.
func onHeldLock(pb *guard.ProjectBackend, inBackend func() (*lockcore.Lock, bool, error), inFile func() (*lockcore.Lock, error)) (*lockcore.Lock, error) {
	if pb != nil {
		l, found, err := inBackend()
		if found || errors.As(err, new(*guard.UnreachableError)) {
			return l, err
		}
	}
	return inFile()
}
