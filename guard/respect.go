package guard

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
)

// CheckClaim is RESPECT (CONTRACT.md section 4, `guard lock`): does a live lock stop
// the claim spec here? It is the one answer for every way of claiming (guard lock,
// guard run, the agent's claim on write, the web API). A live lock of another owner
// (a team lock: of another host; an unreadable one: of anybody) stops the claim when
//
//   - it lies in spec.Dir and its scope overlaps the claim's (same scope, one of them
//     the project, one nested in the other with dots; or either covers all of
//     spec.Dir because its scope maps to no folder: the fail-closed fallback);
//   - it lies above spec.Dir, or in another working tree of the repository, and its
//     area includes spec.Dir, exactly as guard check reads it (scope mappings
//     included);
//   - it lies below spec.Dir, inside the area the new lock would cover: claiming a
//     folder claims what is inside it.
//
// Soft locks only warn. path is the lock file the claim would write (the lock of that
// name is lockcore's business: renewed, taken over or refused as another's).
//
// The error is a *lockcore.ConflictError naming the lock, or an error naming a
// directory guard could not read (fail closed). CheckClaim reads the file system
// afresh on every call, whatever p read before, so that lockcore.Acquire can ask it
// under the creation mutex (AcquireOptions.Respect = p.CheckClaim; AcquireOptions.
// MutexDir = ClaimMutexDir(dir)). The claim's identity is the spec's owner and host
// (a team lock's host is its team host), not p's; p gives the world, and the moment is
// that of the call (env's clock), so a claim that waits sees locks expire.
func (p *Policy) CheckClaim(spec lockcore.Spec, path string) ([]string, error) {
	me := Identity{Owner: spec.Owner, Host: spec.Host}
	if spec.Kind == lockcore.Team {
		me.Host = spec.TeamHost
	}
	// A fresh Policy: a fresh reading, at the moment of asking (a claim that waits
	// asks again and again).
	q := NewPolicy(p.env, me)
	c := &claimCheck{p: q, dir: filepath.Clean(spec.Dir), scope: spec.ScopeOrProject(), path: path, me: me}
	return c.run()
}

// CheckResourceClaim is RESPECT for a resource lock (guard lock --resource): the
// resources directory alone, by scope. Folder locks above it (a lockdown of the home
// folder) do not lock resources, resource locks of other URIs never overlap (their
// scopes differ and name no folder, which here is no fallback to the whole
// directory), and a project lock in the resources directory holds every resource.
func (p *Policy) CheckResourceClaim(spec lockcore.Spec, path string) ([]string, error) {
	me := Identity{Owner: spec.Owner, Host: spec.Host}
	q := NewPolicy(p.env, me)
	c := &claimCheck{p: q, dir: filepath.Clean(spec.Dir), scope: spec.ScopeOrProject(), path: path, me: me, resource: true}
	return c.run()
}

// ClaimMutexDir is the directory whose creation mutex a claim in dir holds
// (lockcore.AcquireOptions.MutexDir). RESPECT reads above and below the claimed
// directory, and the same folder in every working tree of the repository, so all
// claims in one repository take one mutex, that of the repository's root (the
// smallest real path of its working trees, which all of them agree on); a claim in
// DIR and one in DIR/sub are then never judged at the same time. Outside a
// repository it is dir itself.
func ClaimMutexDir(dir string) string {
	top := gitrun.RepoTop(dir)
	if top == "" {
		return dir
	}
	var real []string
	for _, t := range gitrun.WorkingTrees(top) {
		if r, err := filepath.EvalSymlinks(t); err == nil {
			real = append(real, r)
		}
	}
	if len(real) == 0 {
		return top
	}
	sort.Strings(real)
	return real[0]
}

type claimCheck struct {
	p     *Policy
	dir   string
	scope string
	path  string
	me    Identity
	warns []string
	// resource: the resources directory's rule (CheckResourceClaim).
	resource bool
}

func (c *claimCheck) run() ([]string, error) {
	here := c.p.readDir(c.dir)
	if here.err != nil {
		return nil, here.err
	}
	for _, l := range here.locks {
		if l.Path == c.path {
			continue // the lock of the same name is lockcore's business
		}
		if reason, ok := c.overlapsHere(l); ok {
			if err := c.judge(l, reason); err != nil {
				return nil, err
			}
		}
	}
	if c.resource {
		return c.warns, nil
	}
	locks, errs := c.p.Covering(c.dir)
	if len(errs) > 0 {
		return nil, fmt.Errorf("guard could not see whether a lock covers %s (fail closed): %w", c.dir, errs[0])
	}
	for _, l := range locks {
		if l.Dir == c.dir {
			continue // judged above, by scope
		}
		if err := c.judge(l, "it covers "+c.dir); err != nil {
			return nil, err
		}
	}
	for _, h := range c.p.below(c.dir) {
		if h.err != nil {
			return nil, fmt.Errorf("guard could not see whether a lock lies inside %s (fail closed): %w", c.dir, h.err)
		}
		if !c.reaches(h.lock.Dir) {
			continue
		}
		reason := fmt.Sprintf("it lies inside %s, in the area your lock would cover (claiming a folder claims what is inside it)", c.dir)
		if err := c.judge(h.lock, reason); err != nil {
			return nil, err
		}
	}
	return c.warns, nil
}

// judge refuses (or warns about) l when it is live and stops the claimant.
func (c *claimCheck) judge(l *lockcore.Lock, reason string) error {
	if !l.Active(c.p.now) || !claimStoppedBy(l, c.me) {
		return nil
	}
	if l.Soft() {
		c.warns = append(c.warns, fmt.Sprintf("soft lock %s (%s) also covers %s", l.Path, l.Owner, c.dir))
		return nil
	}
	return &lockcore.ConflictError{Lock: l, Reason: reason}
}

// claimStoppedBy is whom a lock stops, as guard check judges it: never its own owner,
// a team lock never its own host (a host-less one every host), an unreadable lock
// everybody (its owner is unknown).
func claimStoppedBy(l *lockcore.Lock, me Identity) bool {
	if l.ReadErr != nil {
		return true
	}
	if l.Kind == lockcore.Team && l.Name.Host != "" && strings.EqualFold(l.Name.Host, me.Host) {
		return false
	}
	return l.Owner == "" || l.Owner != me.Owner
}

// overlapsHere reports whether lock l in the claimed directory overlaps the claim, and
// the reason to give.
func (c *claimCheck) overlapsHere(l *lockcore.Lock) (string, bool) {
	if lockcore.ScopesOverlap(c.scope, l.Scope) || l.Kind == lockcore.Legacy {
		return "it covers " + c.dir, true
	}
	if c.resource {
		return "", false
	}
	mineWide := c.p.ScopeCoversWholeDir(c.dir, c.scope)
	theirsWide := c.p.CoversWholeDir(l)
	if !mineWide && !theirsWide {
		return "", false
	}
	return c.fallbackReason(l, mineWide, theirsWide), true
}

// fallbackReason explains an overlap that exists only because a scope maps to no
// folder, so that it covers all of the directory (fail closed): which scopes, and the
// .guard.toml lines that would let the two locks sit side by side (LOCK-SYSTEM.md's
// "several agents work in parallel on different components using scoped locks").
func (c *claimCheck) fallbackReason(l *lockcore.Lock, mineWide, theirsWide bool) string {
	cfg, cfgErr := c.p.config(c.dir)
	var wide []string
	switch {
	case mineWide && theirsWide:
		wide = []string{l.Scope, c.scope}
	case theirsWide:
		wide = []string{l.Scope}
	default:
		wide = []string{c.scope}
	}
	var b strings.Builder
	switch {
	case mineWide && theirsWide:
		fmt.Fprintf(&b, "its scope %q and yours (%q) both map to no folder", l.Scope, c.scope)
	case theirsWide:
		fmt.Fprintf(&b, "its scope %q maps to no folder", l.Scope)
	default:
		fmt.Fprintf(&b, "your scope %q maps to no folder", c.scope)
	}
	if cfgErr != nil {
		fmt.Fprintf(&b, " (the configuration could not be read: %v)", cfgErr)
	} else {
		var folders []string
		for _, s := range wide {
			folders = append(folders, scopeFolder(c.dir, s))
		}
		fmt.Fprintf(&b, " (no [scopes] entry in .guard.toml, no folder %s)", strings.Join(folders, " or "))
	}
	if len(wide) == 2 {
		fmt.Fprintf(&b, ", so each covers all of %s and they overlap (fail closed)", c.dir)
	} else {
		fmt.Fprintf(&b, ", so it covers all of %s and overlaps your claim (fail closed)", c.dir)
	}
	cfgPath := cfg.Path
	if cfgPath == "" {
		base := gitrun.RepoTop(c.dir)
		if base == "" {
			base = c.dir
		}
		cfgPath = filepath.Join(base, ConfigFileName)
	}
	fmt.Fprintf(&b, ".\n  To let them sit side by side, say which paths each scope covers (globs relative to %s) in %s, e.g.:\n\n    [scopes]\n", c.dir, cfgPath)
	scopes := []string{l.Scope, c.scope}
	if strings.EqualFold(l.Scope, c.scope) {
		scopes = scopes[:1]
	}
	for _, s := range scopes {
		if globs, ok := lookupScope(cfg, s); ok && cfgErr == nil {
			fmt.Fprintf(&b, "    %s = %s   # already mapped\n", s, tomlList(globs))
			continue
		}
		fmt.Fprintf(&b, "    %s = [%q]\n", s, strings.ReplaceAll(s, ".", "/")+"/**")
	}
	b.WriteString("\n  (or create the folders")
	for i, s := range wide {
		if i > 0 {
			b.WriteString(" and")
		}
		fmt.Fprintf(&b, " %s", scopeFolder(c.dir, s))
	}
	b.WriteString(")")
	return b.String()
}

func scopeFolder(dir, scope string) string {
	return filepath.Join(dir, filepath.FromSlash(strings.ReplaceAll(scope, ".", "/"))) + string(filepath.Separator)
}

func lookupScope(cfg *Config, scope string) ([]string, bool) {
	for name, globs := range cfg.Scopes {
		if strings.EqualFold(name, scope) {
			return globs, true
		}
	}
	return nil, false
}

func tomlList(globs []string) string {
	q := make([]string, len(globs))
	for i, g := range globs {
		q[i] = fmt.Sprintf("%q", g)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// reaches reports whether the area of the claim (its scope in c.dir) includes any part
// of folder sub (below c.dir): the project, a scope that falls back to all of c.dir,
// a scope folder that holds sub or lies inside it, or a mapping glob that can match a
// path in sub. It errs towards "yes": the lock in sub is taken to cover all of sub.
func (c *claimCheck) reaches(sub string) bool {
	if strings.EqualFold(c.scope, lockcore.ProjectScope) {
		return true
	}
	rel, err := filepath.Rel(c.dir, sub)
	if err != nil {
		return true
	}
	rel = filepath.ToSlash(rel)
	cfg, cfgErr := c.p.config(c.dir)
	if cfgErr == nil {
		if globs, ok := lookupScope(cfg, c.scope); ok {
			for _, g := range globs {
				if globMayReach(g, rel) {
					return true
				}
			}
			return false
		}
	}
	folder := filepath.Join(c.dir, filepath.FromSlash(strings.ReplaceAll(c.scope, ".", "/")))
	if st, err := os.Stat(folder); err == nil && st.IsDir() {
		return within(sub, folder) || within(folder, sub)
	}
	return true // no mapping, no folder: all of c.dir (fail closed)
}

// globMayReach reports whether glob (a [scopes] glob, relative to the lock's
// directory) covers folder rel or some path inside it: it matches rel or a folder
// above it (a folder glob covers its subtree), or it could match something below rel.
func globMayReach(glob, rel string) bool {
	glob = strings.Trim(filepath.ToSlash(strings.TrimSpace(glob)), "/")
	return mayReachSegs(strings.Split(glob, "/"), strings.Split(rel, "/"))
}

func mayReachSegs(g, n []string) bool {
	switch {
	case len(g) == 0:
		return true // the glob matched a folder at or above rel
	case len(n) == 0:
		return true // what is left of the glob can match something inside rel
	case g[0] == "**":
		return true
	}
	if ok, err := path.Match(g[0], n[0]); err != nil || !ok {
		return false
	}
	return mayReachSegs(g[1:], n[1:])
}
