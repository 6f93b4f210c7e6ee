package command

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// LockdownOptions are the inputs of `guard lockdown`.
type LockdownOptions struct {
	Env *guard.Env
	// Roots are the ROOT arguments; RootsFile is --roots-file.
	Roots     []string
	RootsFile string
	Owner     string
	Reason    string
	Commit    bool
	Undo      bool
	JSON      bool
}

// LockdownJSON is `guard lockdown --json` (and --undo --json).
type LockdownJSON struct {
	Undo      bool   `json:"undo"`
	Committed bool   `json:"committed"`
	Manifest  string `json:"manifest"`
	*lockcore.LockdownResult
	*lockcore.UndoResult
}

// ManifestPath is where guard lockdown records what it locked:
// $XDG_STATE_HOME/guard/lockdown.json, else ~/.local/state/guard/lockdown.json.
func ManifestPath(env *guard.Env) (string, error) {
	dir, err := guard.StateDir(env)
	if err != nil {
		return "", guard.Fail(guard.BadInput, "lockdown: %w: nowhere to keep the manifest", err)
	}
	return filepath.Join(dir, "lockdown.json"), nil
}

// RunLockdown is LOCK-SYSTEM.md's immediate lockdown (CONTRACT.md `guard lockdown`):
// a dry run unless Commit; writes LOCK.txt with created_by: bulk into every top-level
// root without an active or protected lock, and records what it wrote in the
// manifest. With Undo it removes the manifest's locks that are still unprotected
// lockdown locks named LOCK.txt. Roots: ROOTs, else the roots file (--roots-file,
// else roots_file in .guard.toml). Prints one line per root: "locked <path>",
// "would lock <path>", "skipped <root> (<why>)", or for undo "unlocked <path>",
// "would unlock <path>", "kept <path> (<why>)". Exit 0; 2 on bad input or a failed
// write.
func RunLockdown(o LockdownOptions) error {
	env := o.Env
	manifest, err := ManifestPath(env)
	if err != nil {
		return err
	}
	now := env.Clock.Now()
	if o.Undo {
		return runUndo(o, manifest)
	}
	roots, err := lockdownRoots(o)
	if err != nil {
		return err
	}
	owner := o.Owner
	if owner == "" {
		owner = "user"
	}
	subject, err := guard.ResolveSubject(env, "", guard.Identity{Owner: owner})
	if err != nil {
		return guard.Fail(guard.BadInput, "lockdown: %w", err)
	}
	host := subject.Identity.Host
	res, err := lockcore.Lockdown(roots, lockcore.LockdownOptions{Owner: owner, Host: host, Reason: o.Reason, Now: now, Commit: o.Commit, MutexDir: guard.ClaimMutexDir})
	if res == nil {
		return guard.Fail(guard.BadInput, "lockdown: %w", err)
	}
	// Record what was written even when a later root failed, so --undo can remove it.
	if len(res.Locked) > 0 {
		merr := lockcore.UpdateLockdownManifest(manifest, func(m *lockcore.LockdownManifest) {
			m.Created, m.Owner, m.Reason = lockcore.FormatCreated(now), owner, o.Reason
			m.Add(res.Locked...)
		})
		err = errors.Join(err, merr)
	}
	return reportLockdown(o, lockdownWords, LockdownJSON{Committed: o.Commit, Manifest: manifest, LockdownResult: res}, res.Locked, res.WouldLock, res.Skipped, err)
}

func runUndo(o LockdownOptions, manifest string) error {
	env := o.Env
	m, err := lockcore.ReadLockdownManifest(manifest)
	if err != nil {
		return guard.Fail(guard.BadInput, "lockdown --undo: %w", err)
	}
	candidates := m.Locks
	if len(o.Roots) > 0 {
		// Restrict the undo to the locks of the given roots.
		var only []string
		for _, p := range m.Locks {
			for _, r := range o.Roots {
				if filepath.Dir(p) == absUnder(env.Dir, r) {
					only = append(only, p)
				}
			}
		}
		candidates = only
	}
	res, err := lockcore.UndoLockdown(candidates, o.Commit, env.Clock.Now().Location())
	if err != nil {
		return guard.Fail(guard.BadInput, "lockdown --undo: %w", err)
	}
	if o.Commit {
		done := map[string]bool{}
		for _, p := range candidates {
			done[p] = true
		}
		for _, p := range res.Remaining {
			done[p] = false
		}
		err = lockcore.UpdateLockdownManifest(manifest, func(m *lockcore.LockdownManifest) {
			var keep []string
			for _, p := range m.Locks {
				if !done[p] {
					keep = append(keep, p)
				}
			}
			m.Locks = keep
		})
	}
	return reportLockdown(o, undoWords, LockdownJSON{Undo: true, Committed: o.Commit, Manifest: manifest, UndoResult: res}, res.Unlocked, res.WouldUnlock, res.Kept, err)
}

// reportWords are the words of the lines of guard lockdown or its --undo.
type reportWords struct{ cmd, done, would, skipped, notDone string }

var (
	lockdownWords = reportWords{cmd: "lockdown", done: "locked", would: "would lock", skipped: "skipped", notDone: "nothing written"}
	undoWords     = reportWords{cmd: "lockdown --undo", done: "unlocked", would: "would unlock", skipped: "kept", notDone: "nothing removed"}
)

// reportLockdown prints what guard lockdown (or its --undo) did: doc with --json,
// else one line a root ("locked <path>", "would lock <path>", "skipped <root>
// (<why>)", in say's words), and on a dry run a note on stderr that says what was
// not done. err, which may follow a partial success, is then exit 2.
func reportLockdown(o LockdownOptions, say reportWords, doc LockdownJSON, done, would []string, skipped []lockcore.LockdownSkip, err error) error {
	env := o.Env
	if o.JSON {
		if jerr := writeJSON(env.Stdout, doc); jerr != nil {
			return jerr
		}
	} else {
		for _, p := range done {
			fmt.Fprintf(env.Stdout, "%s %s\n", say.done, p)
		}
		for _, p := range would {
			fmt.Fprintf(env.Stdout, "%s %s\n", say.would, p)
		}
		for _, s := range skipped {
			fmt.Fprintf(env.Stdout, "%s %s (%s)\n", say.skipped, s.Root, s.Reason)
		}
		if !o.Commit {
			fmt.Fprintf(env.Stderr, "guard %s: dry run; %s (use --commit)\n", say.cmd, say.notDone)
		}
	}
	if err != nil {
		return guard.Fail(guard.BadInput, "%s: %w", say.cmd, err)
	}
	return nil
}

// lockdownRoots returns the top-level roots: ROOTs, else those of the roots file.
func lockdownRoots(o LockdownOptions) ([]string, error) {
	env := o.Env
	if len(o.Roots) == 0 && o.RootsFile == "" {
		subject, err := guard.ResolveSubject(env, "", guard.Identity{})
		if err != nil {
			return nil, guard.Fail(guard.BadInput, "lockdown: %w", err)
		}
		if subject.Config.RootsFile == "" {
			return nil, guard.Fail(guard.BadInput, "lockdown: no roots: give ROOT arguments, --roots-file, or roots_file in %s", guard.ConfigFileName)
		}
	}
	_, roots, err := ResolveRoots(env, RootsInput{Roots: o.Roots, RootsFile: o.RootsFile})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range roots {
		out = append(out, r.Path)
	}
	if len(out) == 0 {
		return nil, guard.Fail(guard.BadInput, "lockdown: the roots file lists no roots")
	}
	return out, nil
}
