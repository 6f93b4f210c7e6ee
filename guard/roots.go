package guard

import (
	"path/filepath"

	"github.com/guardlocks/guard/lockcore"
)

// RootsInput is how a command that walks trees (scan, prune, watch, serve, audit
// github) was told where to look.
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

// ResolveRoots turns a RootsInput into the roots file's configuration and the roots
// to walk: ROOTs given, else the roots of the roots file (--roots-file, else
// roots_file in .guard.toml, relative to that file), else the current directory
// with the default depths. cfg is the .guard.toml that may name the roots file; nil
// resolves the current directory's, and only when neither ROOTs nor --roots-file
// were given, so a broken .guard.toml does not stop a command that does not need it.
// A missing or malformed roots file or .guard.toml is an error (the caller's exit 2).
func ResolveRoots(env *Env, in RootsInput, cfg *Config) (*lockcore.RootsConfig, []lockcore.ScanRoot, error) {
	exp := env.Expander()
	file := in.RootsFile
	if file != "" {
		file = absUnder(env.Dir, exp.Expand(file))
	} else if len(in.Roots) == 0 {
		if cfg == nil {
			subject, err := ResolveSubject(env, "", Identity{})
			if err != nil {
				return nil, nil, err
			}
			cfg = subject.Config
		}
		if cfg.RootsFile != "" {
			file = absUnder(cfg.Dir, exp.Expand(cfg.RootsFile))
		}
	}
	rc := lockcore.DefaultRootsConfig()
	if file != "" {
		var err error
		if rc, err = lockcore.LoadRootsConfig(file, exp); err != nil {
			return nil, nil, err
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

// absUnder is p made absolute against base, cleaned.
func absUnder(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}
