package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// RootsInput is how a command that walks trees (scan, prune) was told where to look.
type RootsInput struct {
	// Roots are the ROOT arguments (relative to Env.Dir); they replace the roots of
	// the roots file but keep its depths and skip_dirs.
	Roots []string
	// RootsFile is --roots-file (relative to Env.Dir).
	RootsFile string
	// MaxDepth, when > 0, overrides default_max_depth (and the shallow depth) for
	// every root (--max-depth); 0 keeps the roots file's depths.
	MaxDepth int
}

// Expander returns the $VAR/~ expander for configured paths: the command's
// environment and home directory.
func Expander(env *guard.Env) lockcore.Expander {
	home := env.Env("HOME")
	if home == "" {
		home = env.Env("USERPROFILE")
	}
	return lockcore.Expander{Getenv: env.Getenv, Home: home}
}

// ResolveRoots turns a RootsInput into the roots file's configuration and the roots
// to walk: ROOTs given, else the roots of the roots file (--roots-file, else
// roots_file in .guard.toml, relative to that file), else the current directory
// with the default depths. A missing or malformed roots file or .guard.toml is an
// error (exit 2).
func ResolveRoots(env *guard.Env, in RootsInput) (*lockcore.RootsConfig, []lockcore.ScanRoot, error) {
	exp := Expander(env)
	file := in.RootsFile
	if file != "" {
		file = absUnder(env.Dir, exp.Expand(file))
	} else if len(in.Roots) == 0 {
		subject, err := guard.ResolveSubject(env, "", guard.Identity{})
		if err != nil {
			return nil, nil, guard.Exitf(guard.ExitUsage, "%w", err)
		}
		if cfg := subject.Config; cfg.RootsFile != "" {
			file = absUnder(cfg.Dir, exp.Expand(cfg.RootsFile))
		}
	}
	rc := lockcore.DefaultRootsConfig()
	if file != "" {
		var err error
		if rc, err = lockcore.LoadRootsConfig(file, exp); err != nil {
			return nil, nil, guard.Exitf(guard.ExitUsage, "%w", err)
		}
	}
	if in.MaxDepth > 0 {
		rc.DefaultMaxDepth, rc.ShallowDepth = in.MaxDepth, in.MaxDepth
	}
	switch {
	case len(in.Roots) > 0:
		rc.Roots = nil
		for _, r := range in.Roots {
			rc.Roots = append(rc.Roots, lockcore.Root{Path: r})
		}
	case file == "":
		rc.Roots = []lockcore.Root{{Path: env.Dir}}
	}
	// Roots named in a roots file are taken relative to the directory the command
	// runs in, as the reference does.
	return rc, rc.ScanRoots(env.Dir), nil
}

// cacheDir is where LOCK-CACHE.md goes when the roots file configures no caches:
// beside the roots file, else in the current directory.
func cacheDir(env *guard.Env, rc *lockcore.RootsConfig) string {
	if rc.File != "" {
		return filepath.Dir(rc.File)
	}
	return env.Dir
}

// absUnder is p made absolute against base (an empty p is base), cleaned.
func absUnder(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// scanLocks walks the roots and reports unreadable directories on stderr (the scan
// goes on without them).
func scanLocks(env *guard.Env, cmd string, rc *lockcore.RootsConfig, roots []lockcore.ScanRoot) *lockcore.ScanResult {
	res := lockcore.Scan(roots, lockcore.ScanOptions{SkipDirs: rc.SkipDirs, Loc: env.Clock.Now().Location()})
	for _, e := range res.Errors {
		fmt.Fprintf(env.Stderr, "guard %s: could not read %s: %v (skipped)\n", cmd, e.Path, e.Err)
	}
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
			return guard.Exitf(guard.ExitUsage, "ROOT %s: no such directory", r)
		case err == nil && !st.IsDir():
			return guard.Exitf(guard.ExitUsage, "ROOT %s: not a directory", r)
		}
	}
	return nil
}
