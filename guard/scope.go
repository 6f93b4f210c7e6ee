package guard

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/lockcore"
)

type teamRead struct {
	tl  *lockcore.TeamLock
	err error
}

// config returns the .guard.toml governing dir (cached); a broken one is remembered as
// an error so that scoped locks fall back to their whole directory (fail closed).
func (p *Policy) config(dir string) (*Config, error) {
	if c, ok := p.configs[dir]; ok {
		return c, p.cfgErrs[dir]
	}
	c, err := FindConfig(dir)
	if err != nil {
		c = &Config{}
	}
	p.configs[dir], p.cfgErrs[dir] = c, err
	return c, err
}

// covers reports whether lock l's area includes target (a path in or below l.Dir).
// note is a warning to show when guard fell back to the whole directory.
func (p *Policy) covers(l *lockcore.Lock, target string) (bool, string) {
	if l.Kind == lockcore.Legacy {
		return true, ""
	}
	return p.coversScope(l.Dir, l.Scope, l.Path, target)
}

// scopeProbe is a name no scope mapping means on purpose: a lock covers dir/scopeProbe
// only when it covers all of dir.
const scopeProbe = ".guard-scope-probe"

// CoversWholeDir reports whether lock l's area is all of its directory: a project or
// legacy lock, a scope mapped to a glob like "**", or a scope with neither mapping nor
// folder (the fail-closed fallback). guard lock's RESPECT asks it so that it refuses
// exactly where guard check would.
func (p *Policy) CoversWholeDir(l *lockcore.Lock) bool {
	ok, _ := p.covers(l, filepath.Join(l.Dir, scopeProbe))
	return ok
}

// ScopeCoversWholeDir is CoversWholeDir for a lock of scope in dir that does not
// exist yet.
func (p *Policy) ScopeCoversWholeDir(dir, scope string) bool {
	if scope == "" {
		return true
	}
	ok, _ := p.coversScope(dir, scope, filepath.Join(dir, "LOCK."+scope+".txt"), filepath.Join(dir, scopeProbe))
	return ok
}

// coversScope reports whether a lock of scope in dir (at lockPath, for messages)
// covers target.
func (p *Policy) coversScope(dir, scope, lockPath, target string) (bool, string) {
	if strings.EqualFold(scope, lockcore.ProjectScope) {
		return true, ""
	}
	rel, err := filepath.Rel(dir, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false, ""
	}
	rel = filepath.ToSlash(rel)
	cfg, cfgErr := p.config(dir)
	if cfgErr == nil {
		for name, globs := range cfg.Scopes {
			if !strings.EqualFold(name, scope) {
				continue
			}
			for _, g := range globs {
				if globCovers(g, rel) {
					return true, ""
				}
			}
			return false, ""
		}
	}
	folder := filepath.Join(dir, filepath.FromSlash(strings.ReplaceAll(scope, ".", "/")))
	if p.isDir(folder) {
		return rel == "." || within(filepath.Join(dir, filepath.FromSlash(rel)), folder), ""
	}
	why := fmt.Sprintf("no [scopes] entry in .guard.toml and no folder %s", folder)
	if cfgErr != nil {
		why = fmt.Sprintf("the configuration could not be read (%v)", cfgErr)
	}
	return true, fmt.Sprintf("%s: scope %q has %s; guard treats the lock as covering all of %s (fail closed)", lockPath, scope, why, dir)
}

// teamClaimBlocks is TeamClaimBlocks with the team lock's sections read once per
// Policy: every path of a commit in the area asks about the same claims.
func (p *Policy) teamClaimBlocks(l *lockcore.Lock, target string) (string, bool) {
	r, ok := p.teams[l.Path]
	if !ok {
		r.tl, r.err = lockcore.ReadTeamLock(l.Path)
		p.teams[l.Path] = r
	}
	return teamClaimBlocks(l, r.tl, r.err, target, p.id)
}

// isDir reports whether folder is a directory, asking the file system once per Policy:
// a scoped lock is judged for every path of a commit.
func (p *Policy) isDir(folder string) bool {
	if ok, seen := p.folders[folder]; seen {
		return ok
	}
	st, err := os.Stat(folder)
	ok := err == nil && st.IsDir()
	p.folders[folder] = ok
	return ok
}

// globCovers reports whether glob (relative to the lock's directory, slash-separated;
// "*" within a segment, "**" across segments) matches rel or one of its parent folders
// (a folder glob covers the folder's subtree). rel "." is the lock's directory itself,
// which a scoped lock covers only in part: it collides.
func globCovers(glob, rel string) bool {
	glob = strings.Trim(filepath.ToSlash(strings.TrimSpace(glob)), "/")
	if rel == "." {
		return true
	}
	parts := strings.Split(rel, "/")
	for i := len(parts); i >= 1; i-- {
		if MatchGlob(glob, strings.Join(parts[:i], "/")) {
			return true
		}
	}
	return false
}

// MatchGlob matches a slash-separated path against a glob where "*" (and "?", "[...]")
// stay within one segment and "**" spans any number of segments, including none.
func MatchGlob(glob, name string) bool {
	return matchSegs(strings.Split(glob, "/"), strings.Split(name, "/"))
}

func matchSegs(g, n []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for len(g) > 0 && g[0] == "**" {
				g = g[1:]
			}
			if len(g) == 0 {
				return true
			}
			for i := 0; i <= len(n); i++ {
				if matchSegs(g, n[i:]) {
					return true
				}
			}
			return false
		}
		if len(n) == 0 {
			return false
		}
		if ok, err := path.Match(g[0], n[0]); err != nil || !ok {
			return false
		}
		g, n = g[1:], n[1:]
	}
	return len(n) == 0
}
