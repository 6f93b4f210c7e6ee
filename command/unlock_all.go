package command

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// UnlockAllJSON is `guard unlock --all --json`.
type UnlockAllJSON struct {
	Owner    string         `json:"owner"`
	Released []string       `json:"released"`
	Kept     []KeptLockJSON `json:"kept"`
	Errors   []string       `json:"errors"`
	// OK is the verdict key every command's JSON shares: true exactly when the
	// command exits 0 (no errors).
	OK bool `json:"ok"`
}

// KeptLockJSON is a lock of the owner that --all left in place, and why.
type KeptLockJSON struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// runUnlockAll is guard unlock --all (CONTRACT.md section 8): every lock the owner
// holds under the roots (found as guard scan finds them, expired ones included)
// and in the resources directory, released one by one with the usual checks. User
// locks are never released (only a person removes them), nor a lock that carries a
// token (it needs --token, which names one lock). Exit 0, also when there was
// nothing to release; 2 when a release failed.
func runUnlockAll(ctx context.Context, o UnlockOptions) error {
	env := o.Env
	if o.Target != "" || o.Resource != "" || o.LockNaming != (LockNaming{}) || o.Force || o.Token != "" {
		return guard.Fail(guard.BadInput, "unlock --all: takes ROOTs, --roots-file and --owner; a DIR, LOCKFILE, --resource, naming flags, --token or --force name one lock")
	}
	subject, err := guard.ResolveSubject(env, env.Dir, guard.Identity{Owner: o.Owner})
	if err != nil {
		return guard.Fail(guard.BadInput, "unlock: %w", err)
	}
	id := subject.Identity
	rc, roots, err := ResolveRoots(env, o.Roots)
	if err != nil {
		return err
	}
	if dir, err := resourceDir(env, "unlock", false); err == nil {
		roots = append(roots, lockcore.ScanRoot{Path: dir, MaxDepth: 0})
	}
	now := env.Clock.Now()
	res := scanShown(env, "unlock --all", roots, lockcore.ScanOptions{SkipDirs: rc.SkipDirs, Loc: now.Location()})
	out := UnlockAllJSON{Owner: id.Owner, Released: []string{}, Kept: []KeptLockJSON{}, Errors: []string{}}
	for _, e := range res.Errors {
		fmt.Fprintf(env.Stderr, "guard unlock --all: could not read %v\n", e)
	}
	for _, l := range res.Locks {
		// An unreadable lock's owner is unknown: it is nobody's to release here.
		if l.ReadErr != nil || l.Owner != id.Owner {
			continue
		}
		keep := ""
		switch {
		case l.Kind == lockcore.User:
			keep = "a user lock: only a person removes it"
		case l.Token() != "":
			keep = "it carries a token: guard unlock --token T " + l.Path
		}
		if keep == "" {
			// A lock a backend holds goes there first, its file with it.
			found, err := guard.ReleaseHeld(ctx, env, l.Path, id.Owner)
			if !found && err == nil {
				_, err = lockcore.Release(l.Path, lockcore.ReleaseOptions{Owner: id.Owner, Now: now})
			}
			switch {
			case err == nil:
				recordLock(env, guard.EventReleased, l, l.Path, id.Owner, "unlock --all")
				out.Released = append(out.Released, l.Path)
				if !o.JSON {
					fmt.Fprintf(env.Stdout, "released %s\n", l.Path)
				}
				continue
			case errors.Is(err, lockcore.ErrNoLock):
				continue // released by someone else meanwhile
			default:
				keep = err.Error()
				out.Errors = append(out.Errors, fmt.Sprintf("%s: %v", l.Path, err))
			}
		}
		out.Kept = append(out.Kept, KeptLockJSON{Path: l.Path, Reason: keep})
		fmt.Fprintf(env.Stderr, "guard unlock --all: kept %s (%s)\n", l.Path, keep)
	}
	// Locks the owner holds in a backend with no file in this clone (claimed on
	// another machine, in a folder that is not here).
	var paths []string
	for _, r := range roots {
		paths = append(paths, r.Path)
	}
	done := map[string]bool{}
	for _, p := range out.Released {
		done[strings.ToLower(p)] = true
	}
	for _, k := range out.Kept {
		done[strings.ToLower(k.Path)] = true
	}
	for _, pb := range guard.RootBackends(env, paths) {
		held, _, err := pb.HeldLocks(ctx, now.Location())
		if err != nil {
			out.Errors = append(out.Errors, err.Error())
			fmt.Fprintf(env.Stderr, "guard unlock --all: %v\n", err)
			continue
		}
		for _, l := range held {
			if l.Owner != id.Owner || done[strings.ToLower(l.Path)] {
				continue
			}
			if l.Kind == lockcore.User || l.ContentUser {
				out.Kept = append(out.Kept, KeptLockJSON{Path: l.Path, Reason: "a user lock: only a person removes it"})
				continue
			}
			if _, err := guard.ReleaseHeld(ctx, env, l.Path, id.Owner); err != nil {
				out.Errors = append(out.Errors, fmt.Sprintf("%s: %v", l.Path, err))
				continue
			}
			recordLock(env, guard.EventReleased, l, l.Path, id.Owner, "unlock --all")
			out.Released = append(out.Released, l.Path)
			if !o.JSON {
				fmt.Fprintf(env.Stdout, "released %s (held in %s)\n", l.Path, l.HeldIn)
			}
		}
	}
	out.OK = len(out.Errors) == 0
	if o.JSON {
		if err := writeJSON(env.Stdout, out); err != nil {
			return err
		}
	}
	if len(out.Errors) > 0 {
		return guard.Explained(guard.BadInput)
	}
	return nil
}
