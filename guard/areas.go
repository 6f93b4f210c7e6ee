package guard

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
)

// ReadOnlyArea is a part of the file system that an identity may not change: the area
// of a lock that refuses its edit, a lock file it does not own, a publication marker,
// a permissions file, a .guard.toml, or a folder guard could not read.
type ReadOnlyArea struct {
	// Path is absolute: a folder (with everything below it) or one file. It need not
	// exist: a mapped scope may name a folder nobody created yet.
	Path string
	// Lock is the lock whose area Path is, or the lock file Path itself; nil for
	// markers, configuration files and unreadable folders.
	Lock *lockcore.Lock
	// Reason says why, in a sentence.
	Reason string
	// TeamClaim is set when the area is another agent's claim in a team lock of the
	// caller's own host.
	TeamClaim bool
}

// ReadOnlySet is the answer of ReadOnlyAreas.
type ReadOnlySet struct {
	// Areas are sorted by path; a path may appear once per lock that makes it
	// read-only.
	Areas []ReadOnlyArea
	// Warnings are soft locks and scope fallbacks, as Check reports them.
	Warnings []string
	now      time.Time
}

// IsProtectedName reports whether a file name alone makes it one of guard's control
// files (ControlFile) in any folder: the publication markers, the permissions files
// and .guard.toml (lock files are judged by their owner). Names are compared ignoring
// case, as IsMarkerName does: a near-miss on a case-insensitive file system is the
// same file (fail closed).
func IsProtectedName(name string) bool {
	return IsMarkerName(name) || strings.EqualFold(name, ConfigFileName) || isPermissionsName(name)
}

// ReadOnlyAreas answers "which areas under these roots refuse this identity's edit?",
// the question `guard sandbox` turns into a kernel ruleset. It reads every lock under
// roots (to each root's depth), in every directory above them (a lock there covers
// them), and in the same places of the other working trees of their repositories;
// for each active lock that Check would let refuse an edit (exclusive, user,
// condition, until, team locks of other hosts, the claims of other agents in team
// locks of this host; soft locks and the identity's own locks excepted) it returns the
// lock's area: its directory, a scope's mapped paths (a glob from where its first
// wildcard starts: guard cannot follow a pattern, so the folder it starts in is
// read-only), its folder, or all of its directory when neither exists (fail closed).
// It also returns the file of every active hard lock the identity does not own (a
// team lock of its own host is its team's), every publication marker, permissions
// file and .guard.toml (IsProtectedName) outside the areas the identity locked
// itself, and every folder that could not be read. Areas in one working
// tree are repeated at the same place in the others (CONTRACT.md section 2).
func (p *Policy) ReadOnlyAreas(roots []lockcore.ScanRoot, skipDirs []string) *ReadOnlySet {
	set := &ReadOnlySet{now: p.now}
	warned := map[string]bool{}
	warn := func(s string) {
		if !warned[s] {
			warned[s] = true
			set.Warnings = append(set.Warnings, s)
		}
	}
	scanRoots := p.areaRoots(roots)
	res := lockcore.Scan(scanRoots, lockcore.ScanOptions{SkipDirs: skipDirs, Loc: p.loc, Also: isControlCandidate})
	var areas []ReadOnlyArea
	for _, e := range res.Errors {
		areas = append(areas, ReadOnlyArea{Path: e.Path,
			Reason: fmt.Sprintf("could not read directory %s (%v); guard cannot see whether a lock covers it, so it treats it as locked (fail closed)", e.Path, e.Err)})
	}
	for _, path := range append(res.Also, p.outsideControlFiles(scanRoots)...) {
		what := ControlFile(path)
		switch {
		case what == "":
			// A settings.json of another program: not guard's.
		case IsProtectedName(filepath.Base(path)) && p.holdsArea(filepath.Dir(path)):
			// The markers and configuration of an area the identity locked itself.
		default:
			areas = append(areas, ReadOnlyArea{Path: path, Reason: protectedReason(path, what)})
		}
	}
	for _, dir := range p.agentDirs(scanRoots) {
		areas = append(areas, ReadOnlyArea{Path: dir, Reason: fmt.Sprintf("%s is the folder of an agent's project settings (they run guard's hook); "+
			"a sandboxed command may not add, change or remove a settings file in it", dir)})
	}
	for _, l := range res.Locks {
		// An expired lock stops nobody, and `guard prune` removes it: only the files
		// of live locks are kept from the identity, a soft lock's too (it stops no
		// edit, but whoever removed it would silence its warning for everyone).
		if l.Active(p.now) && !p.ownsLockFile(l) {
			areas = append(areas, ReadOnlyArea{Path: l.Path, Lock: l,
				Reason: fmt.Sprintf("lock file %s belongs to %s; only its owner may change or remove it", l.Path, orUnknown(l.Owner))})
		}
		areas = append(areas, p.mirrored(p.lockAreas(l, warn))...)
	}
	sort.SliceStable(areas, func(i, j int) bool { return areas[i].Path < areas[j].Path })
	seen := map[[2]string]bool{}
	for _, a := range areas {
		key := [2]string{a.Path, a.Reason}
		if !seen[key] {
			seen[key] = true
			set.Areas = append(set.Areas, a)
		}
	}
	return set
}

// areaRoots is roots, the same places in the other working trees of their
// repositories, and every directory above all of them (read, not descended).
func (p *Policy) areaRoots(roots []lockcore.ScanRoot) []lockcore.ScanRoot {
	var out []lockcore.ScanRoot
	for _, r := range roots {
		r.Path = filepath.Clean(r.Path)
		out = append(out, r)
		top := p.repoTop(r.Path)
		if top == "" {
			continue
		}
		rel, err := filepath.Rel(top, r.Path)
		if err != nil {
			continue
		}
		for _, tree := range p.workingTrees(top) {
			if tree != top {
				out = append(out, lockcore.ScanRoot{Path: filepath.Join(tree, rel), MaxDepth: r.MaxDepth})
			}
		}
	}
	for _, r := range out[:len(out):len(out)] {
		for d := filepath.Dir(r.Path); ; d = filepath.Dir(d) {
			out = append(out, lockcore.ScanRoot{Path: d, MaxDepth: 0})
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return out
}

// ownsLockFile reports whether the identity may change lock file l: its own lock, or a
// team lock of its own host (the team's agents record their claims in it).
func (p *Policy) ownsLockFile(l *lockcore.Lock) bool {
	if l.ReadErr != nil {
		return false
	}
	if l.Kind == lockcore.Team && l.Name.Host != "" && strings.EqualFold(l.Name.Host, p.id.Host) {
		return true
	}
	return l.Owner != "" && l.Owner == p.id.Owner
}

// holdsArea reports whether one of the identity's own active locks covers dir: the
// markers and configuration of an area it locked itself are its to change.
func (p *Policy) holdsArea(dir string) bool {
	locks, _ := p.Covering(dir)
	for _, l := range locks {
		if l.ReadErr == nil && l.Owner != "" && l.Owner == p.id.Owner && !l.Soft() {
			return true
		}
	}
	return false
}

// lockAreas is the read-only area of lock l for the identity: nothing when Check would
// not let l refuse an edit of its own directory (expired, soft, the identity's own,
// a team lock of its host with no other agent's claim, operations without edit).
func (p *Policy) lockAreas(l *lockcore.Lock, warn func(string)) []ReadOnlyArea {
	// The lock's directory is in its area whatever its scope, so judging an edit there
	// asks exactly whether l stops this identity.
	d := &Decision{}
	p.judge(d, l.Dir, hit{lock: l, target: l.Dir}, []string{"edit"}, warn)
	if len(d.Blocking) == 0 {
		return nil
	}
	b := d.Blocking[0]
	if b.TeamClaim {
		return p.claimAreas(l)
	}
	var out []ReadOnlyArea
	for _, path := range p.scopePaths(l) {
		out = append(out, ReadOnlyArea{Path: path, Lock: l, Reason: b.Reason})
	}
	return out
}

// scopePaths are the paths lock l covers, following coversScope: a project or legacy
// lock its directory; a mapped scope the base of each of its globs; else the scope's
// folder; else the whole directory (fail closed).
func (p *Policy) scopePaths(l *lockcore.Lock) []string {
	if l.Kind == lockcore.Legacy || strings.EqualFold(l.Scope, lockcore.ProjectScope) {
		return []string{l.Dir}
	}
	if cfg, err := p.config(l.Dir); err == nil {
		var out []string
		mapped := false
		for name, globs := range cfg.Scopes {
			if !strings.EqualFold(name, l.Scope) {
				continue
			}
			mapped = true
			for _, g := range globs {
				if base, ok := globBase(g); ok {
					out = append(out, filepath.Join(l.Dir, filepath.FromSlash(base)))
				}
			}
		}
		if mapped {
			sort.Strings(out)
			return out
		}
	}
	folder := filepath.Join(l.Dir, filepath.FromSlash(strings.ReplaceAll(l.Scope, ".", "/")))
	if p.isDir(folder) {
		return []string{folder}
	}
	return []string{l.Dir}
}

// globBase is the literal part of a scope glob before its first wildcard segment
// ("src/api/**/*.go" is "src/api"; "**" is ""). ok is false for a glob that can
// match nothing below the lock's directory (a "." or ".." or empty segment: the
// paths it is compared with are clean).
func globBase(glob string) (string, bool) {
	glob = strings.Trim(filepath.ToSlash(strings.TrimSpace(glob)), "/")
	var lit []string
	for _, seg := range strings.Split(glob, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", false
		}
		if strings.ContainsAny(seg, `*?[\`) {
			break
		}
		lit = append(lit, seg)
	}
	return strings.Join(lit, "/"), true
}

// claimAreas are the paths other agents claimed in team lock l of the identity's own
// host; all of its directory when its claims cannot be read (fail closed).
func (p *Policy) claimAreas(l *lockcore.Lock) []ReadOnlyArea {
	r, ok := p.teams[l.Path]
	if !ok {
		r.tl, r.err = lockcore.ReadTeamLock(l.Path)
		p.teams[l.Path] = r
	}
	if r.err != nil {
		if errors.Is(r.err, os.ErrNotExist) {
			return nil
		}
		reason, _ := teamClaimBlocks(l, r.tl, r.err, l.Dir, p.id)
		return []ReadOnlyArea{{Path: l.Dir, Lock: l, Reason: reason, TeamClaim: true}}
	}
	var out []ReadOnlyArea
	for _, b := range r.tl.FileClaims {
		if !b.Active() || casefoldEqual(b.Agent, p.id.Owner) {
			continue
		}
		for _, res := range b.Resources {
			rel := strings.Trim(strings.ReplaceAll(res, `\`, "/"), "/")
			path := l.Dir
			if rel != "" && rel != "." {
				path = filepath.Join(l.Dir, filepath.FromSlash(rel))
			}
			if !within(path, l.Dir) {
				continue // a claim outside the lock's directory holds nothing there
			}
			if reason, blocked := teamClaimBlocks(l, r.tl, nil, path, p.id); blocked {
				out = append(out, ReadOnlyArea{Path: path, Lock: l, Reason: reason, TeamClaim: true})
			}
		}
	}
	return out
}

// mirrored adds, for each area inside a working tree, the same place in the
// repository's other working trees: a lock in one tree stops edits in all of them.
func (p *Policy) mirrored(areas []ReadOnlyArea) []ReadOnlyArea {
	out := areas
	for _, a := range areas {
		if a.Lock == nil {
			continue
		}
		top := p.repoTop(a.Lock.Dir)
		if top == "" {
			continue
		}
		rel, err := filepath.Rel(top, a.Path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		for _, tree := range p.workingTrees(top) {
			if tree != top {
				m := a
				m.Path = filepath.Join(tree, rel)
				out = append(out, m)
			}
		}
	}
	return out
}

// outsideControlFiles are the control files a scan of roots does not reach: the
// user-level copies of the agents' settings (under HOME), and the git hooks guard
// installed in the repositories of roots.
func (p *Policy) outsideControlFiles(roots []lockcore.ScanRoot) []string {
	var out []string
	if home := p.env.Home(); home != "" && filepath.IsAbs(home) {
		for _, rel := range AgentSettingsFiles {
			out = append(out, existing(filepath.Join(home, filepath.FromSlash(rel)))...)
		}
		if entries, err := os.ReadDir(filepath.Join(home, ".claude")); err == nil {
			for _, e := range entries {
				if path := filepath.Join(home, ".claude", e.Name()); e.Type().IsRegular() && IsAgentSettings(path) {
					out = append(out, path)
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, r := range roots {
		top := p.repoTop(r.Path)
		if top == "" || seen[top] {
			continue
		}
		seen[top] = true
		common := gitrun.CommonDir(top)
		if common == "" || seen[common] {
			continue
		}
		seen[common] = true
		hooks := filepath.Join(common, "hooks")
		entries, _ := os.ReadDir(hooks)
		for _, e := range entries {
			if path := filepath.Join(hooks, e.Name()); e.Type().IsRegular() && IsManagedHook(path) {
				out = append(out, path)
			}
		}
	}
	sort.Strings(out)
	return out
}

// agentDirs are the agents' settings folders (AgentSettingsDirs) at the top of each
// project of roots: read-only as a whole, so that no settings file can be added there
// either (a new .claude/settings.local.json could switch guard's hook off). A project
// without one keeps the name free: a folder that does not exist cannot be mounted
// over (the README's limits).
func (p *Policy) agentDirs(roots []lockcore.ScanRoot) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range roots {
		if r.MaxDepth == 0 {
			continue // a folder above the project, read for its locks only
		}
		top := p.repoTop(r.Path)
		if top == "" {
			top = r.Path
		}
		if seen[top] {
			continue
		}
		seen[top] = true
		for _, d := range AgentSettingsDirs {
			if st, err := os.Lstat(filepath.Join(top, d)); err == nil && st.IsDir() {
				out = append(out, filepath.Join(top, d))
			}
		}
	}
	return out
}

// existing is path when a file is there, else nothing.
func existing(path string) []string {
	if _, err := os.Lstat(path); err != nil {
		return nil
	}
	return []string{path}
}

// protectedReason says why a control file (ControlFile says what) is read-only.
func protectedReason(path, what string) string {
	base := filepath.Base(path)
	switch {
	case IsMarkerName(base):
		return fmt.Sprintf("%s is a publication marker; a sandboxed command may not add, change or remove what approves or refuses a publication", path)
	case strings.EqualFold(base, ConfigFileName):
		return fmt.Sprintf("%s is guard's configuration (identity, scopes); a sandboxed command may not change it", path)
	case isPermissionsName(base):
		return fmt.Sprintf("%s is a permissions file; a sandboxed command may not change its rules", path)
	default:
		return fmt.Sprintf("%s is %s; a sandboxed command may not change it", path, what)
	}
}

// Summary writes the read-only areas, one line per lock (or per reason, for areas
// without one): the paths, then whose lock, until when and why. Ten paths at most per
// line.
func (s *ReadOnlySet) Summary(w io.Writer) {
	type group struct {
		lock  *lockcore.Lock
		why   string
		paths []string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, a := range s.Areas {
		key := a.Reason
		if a.Lock != nil && !a.TeamClaim {
			key = a.Lock.Path
		}
		g := byKey[key]
		if g == nil {
			g = &group{lock: a.Lock, why: a.Reason}
			byKey[key] = g
			groups = append(groups, g)
		}
		if a.Lock != nil && a.Path == a.Lock.Path && !a.TeamClaim {
			continue // the lock's own file: the line names it
		}
		g.paths = append(g.paths, a.Path)
	}
	const max = 10
	for _, g := range groups {
		paths := g.paths
		more := ""
		if len(paths) > max {
			more = fmt.Sprintf(" and %d more", len(paths)-max)
			paths = paths[:max]
		}
		lead := strings.Join(paths, ", ") + more
		if g.lock == nil || g.lock.ReadErr != nil {
			if lead == "" {
				fmt.Fprintf(w, "  %s\n", g.why)
			} else {
				fmt.Fprintf(w, "  %s: %s\n", lead, g.why)
			}
			continue
		}
		l := g.lock
		why := reasonFor(l, []string{"edit"})
		if len(g.paths) == 0 {
			// Only the file is kept (a lock for other operations): say that.
			why = g.why
		}
		if until, ok := l.ExpiresAt(); ok {
			why += ", until " + until.In(s.now.Location()).Format("2006-01-02 15:04")
		}
		if l.Purpose != "" {
			why += ": " + l.Purpose
		}
		if lead == "" {
			fmt.Fprintf(w, "  %s\n", why)
		} else {
			fmt.Fprintf(w, "  %s: %s\n", lead, why)
		}
	}
}
