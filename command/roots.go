package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/progress"
	"github.com/guardlocks/guard/lockcore"
)

// RootsInput is how a command that walks trees (scan, prune) was told where to look.
type RootsInput = guard.RootsInput

// ResolveRoots is guard.ResolveRoots for the current directory's .guard.toml, its
// errors (a missing or malformed roots file or .guard.toml) exit 2.
func ResolveRoots(env *guard.Env, in RootsInput) (*lockcore.RootsConfig, []lockcore.ScanRoot, error) {
	rc, roots, err := guard.ResolveRoots(env, in, nil)
	if err != nil {
		return nil, nil, guard.Fail(guard.BadInput, "%w", err)
	}
	return rc, roots, nil
}

// cacheDir is where LOCK-CACHE.md goes when the roots file configures no caches:
// beside the roots file, else in the current directory.
func cacheDir(env *guard.Env, rc *lockcore.RootsConfig) string {
	if rc.File != "" {
		return filepath.Dir(rc.File)
	}
	return env.Dir
}

// absUnder is p made absolute against base (an empty p is base), where the kernel
// reaches it (guard.KernelPath: a/link/.. is above where link points, as os.Stat and
// every other system call see it). A loop of links keeps the lexical path, on which
// the caller's own system calls then fail with ELOOP.
func absUnder(base, p string) string {
	if p == "" {
		return filepath.Clean(base)
	}
	abs, _ := guard.KernelPath(base, p)
	return abs
}

// scanLocks walks the roots and reports unreadable directories on stderr (the scan
// goes on without them). A walk that lasts shows the folders walked at a terminal
// (stderr), on one line erased before anything else is written.
func scanLocks(env *guard.Env, cmd string, rc *lockcore.RootsConfig, roots []lockcore.ScanRoot) *lockcore.ScanResult {
	res := scanShown(env, cmd, roots, lockcore.ScanOptions{SkipDirs: rc.SkipDirs, Loc: env.Clock.Now().Location()})
	for _, e := range res.Errors {
		fmt.Fprintf(env.Stderr, "guard %s: could not read %s: %v (skipped)\n", cmd, e.Path, e.Err)
	}
	return res
}

// scanShown is lockcore.Scan with, at a terminal (stderr), the folders walked shown
// once the walk has lasted progress.Delay ("guard scan: 4800 folders walked"), on one
// line erased before the scan returns.
func scanShown(env *guard.Env, cmd string, roots []lockcore.ScanRoot, opts lockcore.ScanOptions) *lockcore.ScanResult {
	line := progress.New(env.Stderr, env.StderrTTY, env.Clock.Now, progress.Delay)
	if line != nil {
		var mu sync.Mutex
		opts.Progress = func(dirs int64) {
			mu.Lock()
			line.Show("guard %s: %d folders walked", cmd, dirs)
			mu.Unlock()
		}
	}
	res := lockcore.Scan(roots, opts)
	line.Clear()
	return res
}

// requireRoots refuses ROOTs that were typed but do not exist: "no active locks" under
// a mistyped path would read as "free" (scan) or as done (prune). Roots of a roots file
// that do not exist are skipped, as the reference does (one file lists the roots of
// several machines), and lockdown skips a missing ROOT as it always did. Another error
// (a loop, no permission) is the scan's to report as unreadable.
func requireRoots(env *guard.Env, roots []string) error {
	for _, r := range roots {
		st, err := os.Stat(absUnder(env.Dir, r))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return guard.Fail(guard.BadInput, "ROOT %s: no such directory", r)
		case err == nil && !st.IsDir():
			return guard.Fail(guard.BadInput, "ROOT %s: not a directory", r)
		}
	}
	return nil
}
