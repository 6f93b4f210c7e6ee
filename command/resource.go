package command

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// identityDir is the directory whose .guard.toml gives the identity that acts on the
// lock at path: the lock's own directory, except for a resource lock, whose
// directory holds no project: there it is the current directory, whose .guard.toml
// also names the resources directory.
func identityDir(env *guard.Env, resource, path string) string {
	if resource != "" {
		return env.Dir
	}
	return filepath.Dir(path)
}

// resourceDir is the resources directory for the command's working directory
// (CONTRACT.md section 8), created when create is set.
func resourceDir(env *guard.Env, cmd string, create bool) (string, error) {
	subject, err := guard.ResolveSubject(env, env.Dir, guard.Identity{})
	if err != nil {
		return "", guard.Fail(guard.BadInput, "%s: %w", cmd, err)
	}
	dir, err := guard.ResourcesDir(env, subject.Config)
	if err != nil {
		return "", guard.Fail(guard.BadInput, "%s: %w", cmd, err)
	}
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", guard.Fail(guard.BadInput, "%s: resources directory: %w", cmd, err)
		}
	}
	return dir, nil
}

// resourcePath is the lock file of resource uri, after checking that no folder
// naming was given with it.
func resourcePath(env *guard.Env, cmd, uri, target string, n LockNaming, create bool) (string, error) {
	if p := lockcore.ResourceProblem(uri); p != "" {
		return "", guard.Fail(guard.BadInput, "%s: --resource %q %s", cmd, uri, p)
	}
	if target != "" {
		return "", guard.Fail(guard.BadInput, "%s: --resource names the lock; a DIR or LOCKFILE (%s) cannot be given with it", cmd, target)
	}
	if n != (LockNaming{}) {
		return "", guard.Fail(guard.BadInput, "%s: --resource locks are exclusive locks of their own name; --scope, --team, --user, --condition and --until do not go with it", cmd)
	}
	dir, err := resourceDir(env, cmd, create)
	if err != nil {
		return "", err
	}
	return lockcore.ExistingLockPath(filepath.Join(dir, lockcore.ResourceFileName(uri))), nil
}

// claimResource is claimLock for --resource: the lock file of the resource in the
// resources directory, with the resources' RESPECT (guard.Policy.CheckResourceClaim).
func claimResource(ctx context.Context, o LockOptions, cmd string, wait time.Duration) (*lockClaim, error) {
	env := o.Env
	path, err := resourcePath(env, cmd, o.Resource, o.Dir, o.LockNaming, true)
	if err != nil {
		return nil, err
	}
	if o.ReleaseCondition != "" {
		return nil, guard.Fail(guard.BadInput, "%s: --release-condition does not go with --resource (a resource lock always has a lifetime)", cmd)
	}
	dir := filepath.Dir(path)
	subject, err := guard.ResolveSubject(env, identityDir(env, o.Resource, path), guard.Identity{Owner: o.Owner, Host: o.Host})
	if err != nil {
		return nil, guard.Fail(guard.BadInput, "%s: %w", cmd, err)
	}
	id := subject.Identity
	spec := lockcore.Spec{
		Dir: dir, Kind: lockcore.Exclusive, Scope: lockcore.ResourceSlug(o.Resource),
		Owner: id.Owner, Host: id.Host, Expires: o.Expires, Mode: o.Mode, Purpose: o.Purpose,
		Operations: lockcore.SplitOperations(o.Operations), Resource: o.Resource,
	}
	if err := spec.Validate(); err != nil {
		return nil, guard.Fail(guard.BadInput, "%s: %w", cmd, err)
	}
	pb, err := guard.SubjectBackend(env, subject)
	if err != nil {
		return nil, guard.Fail(guard.BadInput, "%s: %w", cmd, err)
	}
	return hold(ctx, o, cmd, wait, guard.NewPolicy(env, id).ResourceClaimRequest(spec, o.Force), pb)
}

// resourceStatus is guard status --resource: 0 when no active lock holds the
// resource, 1 when one does (also when its lock file cannot be read: fail closed).
func resourceStatus(o StatusOptions) error {
	env := o.Env
	path, err := resourcePath(env, "status", o.Resource, o.Dir, LockNaming{}, false)
	if err != nil {
		return err
	}
	now := env.Clock.Now()
	out := StatusJSON{Dir: filepath.Dir(path), Resource: o.Resource, Locks: []lockcore.JSON{}}
	l, err := lockcore.ReadLock(path, now.Location())
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		out.Unreadable = append(out.Unreadable, err.Error())
	case l.Active(now):
		out.Locks = append(out.Locks, l.ToJSON(now))
	}
	out.Locked = len(out.Locks) > 0 || len(out.Unreadable) > 0
	if o.JSON {
		if err := writeJSON(env.Stdout, out); err != nil {
			return err
		}
	} else {
		switch {
		case !out.Locked:
			fmt.Fprintf(env.Stdout, "guard status: resource %s is free\n", o.Resource)
		case l == nil:
			fmt.Fprintf(env.Stdout, "guard status: resource %s counts as locked: %s could not be read (fail closed)\n", o.Resource, path)
		default:
			fmt.Fprintf(env.Stdout, "guard status: resource %s is locked:\n", o.Resource)
			writeLockLines(env.Stdout, l, now)
		}
	}
	if out.Locked {
		return guard.Explained(guard.Refused)
	}
	return nil
}

// ResourceFlag is the value of a --resource flag: a resource URI that, once the flag
// is given, must not be empty. An empty one (`--resource=`, or a shell variable that
// was never set) would otherwise read as "no --resource" and act on the current
// folder instead, which is a different lock than the one asked for.
type ResourceFlag struct{ URI *string }

// String returns the URI.
func (f ResourceFlag) String() string {
	if f.URI == nil {
		return ""
	}
	return *f.URI
}

// Set takes the flag's argument, refusing an empty one.
func (f ResourceFlag) Set(s string) error {
	if s == "" {
		return errors.New("the resource URI is empty (a resource lock needs its name, such as db://staging; to lock the current folder, leave --resource out)")
	}
	*f.URI = s
	return nil
}

// Type names the flag's argument in the help.
func (f ResourceFlag) Type() string { return "string" }
