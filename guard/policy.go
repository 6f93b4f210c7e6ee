package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
)

// Policy answers "may this identity do these operations on these paths now?". It is
// the one place where guard decides; hooks, publish, ci and the agent hook gather
// inputs and ask it. A Policy reads each directory at most once, so checking many
// paths of one commit costs one read per distinct directory; make a new Policy for
// each decision (it pins the moment it was made).
type Policy struct {
	env     *Env
	id      Identity
	now     time.Time
	loc     *time.Location
	dirs    map[string]dirLocks
	views   map[string]*dirView // what the files of one directory share, by directory
	configs map[string]*Config  // by directory
	cfgErrs map[string]error
	trees   map[string][]string // working trees by working-tree top
	real    map[string]string   // directories with symbolic links resolved
	tops    map[string]string   // working-tree top by directory
	gits    map[string]bool     // whether a directory has a .git entry (prefetched)
	folders map[string]bool     // whether a scope's folder exists, by path
	teams   map[string]teamRead // team locks' sections, by lock path
	// backendViews are the backends read, by working-tree top (nil: none there);
	// backendErr is the first that could not be consulted (reads fail closed on it),
	// backendWarnings those that fell back to the files.
	backendViews    map[string]*backendView
	backendErr      error
	backendWarnings []string
	// perPath makes every path take the way of a folder or symbolic link (an lstat and
	// its own walk up): the tests compare it with the per-directory views.
	perPath bool
	// lastViewDir and lastView are the view asked for last (see view).
	lastViewDir string
	lastView    *dirView
}

type teamRead struct {
	tl  *lockcore.TeamLock
	err error
}

type dirLocks struct {
	locks []*lockcore.Lock
	// special says which entries are not regular files.
	special lockcore.Listing
	err     error
}

// NewPolicy returns a Policy for identity id at the env's current time.
func NewPolicy(env *Env, id Identity) *Policy {
	now := env.Clock.Now()
	if env.backends == nil {
		env.backends = &backends{conns: map[string]Backend{}}
	}
	return &Policy{
		backendViews: map[string]*backendView{},
		env:          env, id: id, now: now, loc: now.Location(),
		dirs: map[string]dirLocks{}, views: map[string]*dirView{}, gits: map[string]bool{}, configs: map[string]*Config{}, cfgErrs: map[string]error{},
		trees: map[string][]string{}, real: map[string]string{}, tops: map[string]string{},
		folders: map[string]bool{}, teams: map[string]teamRead{},
	}
}

// Now is the moment the policy decides at.
func (p *Policy) Now() time.Time { return p.now }

// Identity is who the policy decides for.
func (p *Policy) Identity() Identity { return p.id }

// Request is one question to the policy.
type Request struct {
	// Ops are the operations (edit, commit, push, release-tag, registry-upload, ...). A
	// lock refuses the request when it blocks any of them. Empty means "edit".
	Ops []string
	// Paths are files or folders, absolute or relative to Env.Dir; they need not exist.
	Paths []string
	// Descend makes an existing folder in Paths also collide with the locks inside it
	// (an operation on a folder touches its whole subtree).
	Descend bool
	// Fence and FenceFile are the caller's LOCK_FENCE and LOCK_FENCE_FILE: a holder that
	// exported them is refused once its lease was superseded. RepoRoot, when set, is the
	// repository being changed; the fence file must lie inside it.
	Fence, FenceFile string
	RepoRoot         string
}

// Block is one reason the policy refuses.
type Block struct {
	// Path is the requested path that is blocked (absolute).
	Path string
	// Lock is the lock that blocks it; nil when the reason is not a lock file (an
	// unreadable directory, a superseded fence).
	Lock *lockcore.Lock
	// Reason says why, in a sentence.
	Reason string
	// TeamClaim is set when the block is another agent's claim in a team lock of the
	// caller's own host, not the lock itself.
	TeamClaim bool
}

// Decision is the policy's answer.
type Decision struct {
	Ops      []string
	Allowed  bool
	Blocking []Block
	// Warnings are soft locks, scope fallbacks and the like: they never refuse.
	Warnings []string
	now      time.Time
}

// Check answers req. The error is only for requests it cannot judge at all (a path
// that cannot be made absolute); everything that cannot be read is a Block (fail
// closed).
func (p *Policy) Check(req Request) (*Decision, error) {
	if len(req.Paths) >= prefetchMin && !p.perPath {
		// Many paths (a commit of a whole tree): one batch, whose directories are all
		// read, several at once, before its first path is judged.
		batch := make(chan []string, 1)
		batch <- req.Paths
		close(batch)
		req.Paths = nil
		return p.CheckStream(req, batch)
	}
	c := p.newChecking(req)
	for _, raw := range req.Paths {
		c.raw(raw)
	}
	return c.finish()
}

// checking is one Check under way: the decision so far and the warnings given.
type checking struct {
	p      *Policy
	req    Request
	ops    []string
	d      *Decision
	warned map[string]bool
}

func (p *Policy) newChecking(req Request) *checking {
	ops := req.Ops
	if len(ops) == 0 {
		ops = []string{OpEdit}
	}
	return &checking{p: p, req: req, ops: ops, d: &Decision{Ops: ops, Allowed: true, now: p.now}, warned: map[string]bool{}}
}

func (c *checking) warn(s string) {
	if !c.warned[s] {
		c.warned[s] = true
		c.d.Warnings = append(c.d.Warnings, s)
	}
}

// raw judges one path as given: absolute or relative, resolved as the kernel
// resolves it. A path guard cannot resolve (a loop of symbolic links) is refused: it
// cannot tell which area it reaches (fail closed).
func (c *checking) raw(raw string) {
	abs, err := c.p.abs(raw)
	if err != nil {
		c.d.Blocking = append(c.d.Blocking, Block{Path: abs,
			Reason: fmt.Sprintf("%v; guard cannot tell which folder this path reaches, so it treats it as locked (fail closed)", err)})
		return
	}
	c.path(abs)
}

// path judges one absolute, clean path.
func (c *checking) path(abs string) {
	c.p.eachHit(abs, c.req.Descend, func(h hit) { c.p.judge(c.d, abs, h, c.ops, c.warn) })
}

// finish adds the fence's verdict and the backends' warnings, and settles the
// decision.
func (c *checking) finish() (*Decision, error) {
	p, req, d := c.p, c.req, c.d
	if req.Fence != "" || req.FenceFile != "" {
		if b, ok := p.fenceBlock(req); ok {
			d.Blocking = append(d.Blocking, b)
		}
	}
	d.Blocking = dedupe(d.Blocking)
	d.Allowed = len(d.Blocking) == 0
	for _, w := range p.backendWarnings {
		c.warn(w)
	}
	if p.backendErr != nil {
		// A backend that cannot be consulted leaves the request unjudged: exit 2,
		// as CONTRACT.md section 10 says, not a refusal by some lock.
		return d, p.backendErr
	}
	return d, nil
}

// Covering returns the active locks that cover dir: every active lock in dir itself,
// and the locks above it (and in the other working trees of its repository) whose area
// includes dir. Unreadable directories on the way are returned as errors.
func (p *Policy) Covering(dir string) ([]*lockcore.Lock, []error) {
	var locks []*lockcore.Lock
	var errs []error
	abs, err := p.abs(dir)
	if err != nil {
		errs = append(errs, err)
	}
	seen := map[string]bool{}
	for _, h := range p.hits(abs, false) {
		if h.err != nil {
			errs = append(errs, h.err)
			continue
		}
		if seen[h.lock.Path] || !h.lock.Active(p.now) {
			continue
		}
		if h.lock.Dir != h.target {
			if ok, _ := p.covers(h.lock, h.target); !ok {
				continue
			}
		}
		seen[h.lock.Path] = true
		locks = append(locks, h.lock)
	}
	return locks, errs
}

// abs is raw as the kernel reaches it (KernelPath), absolute and clean; on an error
// the lexically cleaned path comes with it, for messages.
func (p *Policy) abs(raw string) (string, error) {
	if isCleanAbs(raw) {
		return raw, nil
	}
	return KernelPath(p.env.Dir, raw)
}

// isCleanAbs reports whether path is absolute and already what filepath.Clean would
// make of it, by one scan that allocates nothing: a hook asks about 100,000 absolute
// paths at once, and Clean copies each byte through its buffer to find out. Outside
// Unix-like systems it answers false and Clean decides.
func isCleanAbs(path string) bool {
	if filepath.Separator != '/' || len(path) == 0 || path[0] != '/' {
		return false
	}
	if len(path) == 1 {
		return true
	}
	if path[len(path)-1] == '/' {
		return false
	}
	// Every segment after a slash must be non-empty and neither "." nor "..".
	for i := 0; i < len(path); {
		j := i + 1
		for j < len(path) && path[j] != '/' {
			j++
		}
		switch path[i+1 : j] {
		case "", ".", "..":
			return false
		}
		i = j
	}
	return true
}

// hit is a lock (or an unreadable directory) found on the way up from a path, with
// target: the path as seen from the lock's working tree.
type hit struct {
	lock   *lockcore.Lock
	target string
	err    error
}

// hits collects every lock in the directory chain of abs (see eachHit).
func (p *Policy) hits(abs string, descend bool) []hit {
	var out []hit
	p.eachHit(abs, descend, func(h hit) { out = append(out, h) })
	return out
}

// eachHit calls fn with every lock in the directory chain of abs: its own directory
// (abs itself when it is a folder) and every directory above it to the file-system
// root, plus the same relative directories in the repository's other working trees;
// with descend, also the locks inside a folder. A file, or a path that does not exist,
// is judged from what its directory's view already holds, with no system call of its
// own: that is every path of a commit but its folders and symbolic links.
func (p *Policy) eachHit(abs string, descend bool, fn func(hit)) {
	if dir, base := splitClean(abs); dir != abs && !p.perPath {
		if v := p.view(dir); !v.mayBeSpecial(base) {
			v.eachHit(abs, base, fn)
			return
		}
	}
	start := abs
	// One lstat per path; a symbolic link also needs its target's type.
	lst, lerr := os.Lstat(abs)
	isLink := lerr == nil && lst.Mode()&os.ModeSymlink != 0
	isDir := lerr == nil && lst.IsDir()
	if isLink {
		st, err := os.Stat(abs)
		isDir = err == nil && st.IsDir()
	}
	if !isDir {
		start = filepath.Dir(abs)
	}
	out := fn
	visit := func(dir, target string) {
		dl := p.readDir(dir)
		if dl.err != nil {
			out(hit{target: target, err: dl.err})
		}
		for _, l := range dl.locks {
			out(hit{lock: l, target: target})
		}
	}
	chain := func(start, target string) {
		for d := start; ; {
			visit(d, target)
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	chain(start, abs)
	// Through a symbolic link the same files are also reached by their real path,
	// where other locks may sit: look there too.
	if realAbs := p.realPath(abs, isLink); realAbs != abs {
		realStart := realAbs
		if st, err := os.Stat(realAbs); err != nil || !st.IsDir() {
			realStart = filepath.Dir(realAbs)
		}
		chain(realStart, realAbs)
	}
	if top := p.repoTop(start); top != "" {
		rel, err := filepath.Rel(top, start)
		relTarget, err2 := filepath.Rel(top, abs)
		if err == nil && err2 == nil {
			for _, tree := range p.workingTrees(top) {
				if tree == top {
					continue
				}
				target := filepath.Join(tree, relTarget)
				for d := filepath.Join(tree, rel); ; d = filepath.Dir(d) {
					visit(d, target)
					if d == tree || len(d) < len(tree) {
						break
					}
				}
			}
		}
	}
	if descend && isDir {
		for _, h := range p.below(abs) {
			out(h)
		}
	}
}

// below finds the locks inside folder root (not root itself), skipping .git and
// node_modules.
func (p *Policy) below(root string) []hit {
	var out []hit
	_ = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if path != root {
				out = append(out, hit{target: path, err: fmt.Errorf("%s: %w", path, err)})
			}
			return nil
		}
		if !e.IsDir() || path == root {
			return nil
		}
		// Installed dependencies are not the project's areas: a package that ships a
		// LOCK.txt must not block work on the folder that installed it.
		if e.Name() == ".git" || e.Name() == "node_modules" {
			return filepath.SkipDir
		}
		dl := p.readDir(path)
		if dl.err != nil {
			out = append(out, hit{target: path, err: dl.err})
		}
		for _, l := range dl.locks {
			// A lock inside the folder collides with an operation on the folder
			// whatever its scope: its area lies within.
			out = append(out, hit{lock: l, target: l.Dir})
		}
		return nil
	})
	seen := make(map[string]bool, len(out))
	for _, h := range out {
		if h.lock != nil {
			seen[strings.ToLower(h.lock.Path)] = true
		}
	}
	return append(out, p.backendBelow(root, seen)...)
}

func (p *Policy) readDir(dir string) dirLocks {
	if dl, ok := p.dirs[dir]; ok {
		return dl
	}
	dl := p.withBackend(dir, listDir(dir, p.loc))
	p.dirs[dir] = dl
	return dl
}

// listDir reads dir for readDir; it touches no cache, so that prefetch can run it on
// several directories at once.
func listDir(dir string, loc *time.Location) dirLocks {
	listing, err := lockcore.ReadListing(dir, loc)
	if err != nil {
		// A path component that is a file, not a folder, hides no locks.
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			err = nil
		} else {
			err = fmt.Errorf("could not read directory %s: %w", dir, err)
		}
	}
	return dirLocks{locks: listing.Locks, special: listing, err: err}
}

func (p *Policy) workingTrees(top string) []string {
	if t, ok := p.trees[top]; ok {
		return t
	}
	t := gitrun.WorkingTrees(top)
	p.trees[top] = t
	return t
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

// judge decides what one hit means for the request.
func (p *Policy) judge(d *Decision, abs string, h hit, ops []string, warn func(string)) {
	if h.err != nil {
		d.Blocking = append(d.Blocking, Block{Path: abs,
			Reason: fmt.Sprintf("%v; guard could not see whether a lock covers this area, so it treats it as locked (fail closed)", h.err)})
		return
	}
	l := h.lock
	if !l.Active(p.now) || !coversAnyOp(l, ops) {
		return
	}
	ok, note := p.covers(l, h.target)
	if note != "" {
		warn(note)
	}
	if !ok {
		return
	}
	// On its own host a team lock stops nobody, but the paths another agent of the
	// team claimed stop everyone else, the lock's owner included.
	if l.Kind == lockcore.Team && l.Name.Host != "" && strings.EqualFold(l.Name.Host, p.id.Host) && l.ReadErr == nil {
		if reason, blocked := p.teamClaimBlocks(l, h.target); blocked {
			d.Blocking = append(d.Blocking, Block{Path: abs, Lock: l, Reason: reason, TeamClaim: true})
		}
		return
	}
	if l.ReadErr == nil && l.Owner != "" && l.Owner == p.id.Owner {
		return
	}
	if l.Soft() {
		warn(fmt.Sprintf("soft lock %s (owner %s) covers %s; soft locks only warn", l.Path, orUnknown(l.Owner), abs))
		return
	}
	d.Blocking = append(d.Blocking, Block{Path: abs, Lock: l, Reason: reasonFor(l, ops)})
}

func coversAnyOp(l *lockcore.Lock, ops []string) bool {
	for _, op := range ops {
		if l.CoversOperation(op) {
			return true
		}
	}
	return false
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

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
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

// fenceBlock applies the fencing rule: a holder that exported LOCK_FENCE and
// LOCK_FENCE_FILE must not write on once its lease was superseded.
func (p *Policy) fenceBlock(req Request) (Block, bool) {
	mk := func(reason string) (Block, bool) {
		return Block{Path: req.FenceFile, Reason: reason + "; you were superseded (or never held the lease): stop writing, re-acquire the lock with `guard lock`, then export the new LOCK_FENCE"}, true
	}
	switch {
	case req.Fence == "":
		return mk(fmt.Sprintf("LOCK_FENCE_FILE is set (%s) but LOCK_FENCE is not", req.FenceFile))
	case req.FenceFile == "":
		return mk("LOCK_FENCE is set but LOCK_FENCE_FILE is not")
	}
	file, _ := p.abs(req.FenceFile)
	root, _ := p.abs(req.RepoRoot)
	if req.RepoRoot != "" && !within(file, root) {
		return mk(fmt.Sprintf("LOCK_FENCE_FILE %s lies outside the repository being changed (%s)", file, req.RepoRoot))
	}
	state, why := lockcore.FenceStatus(file, req.Fence, p.now, p.loc)
	if state != lockcore.FenceHeld {
		return mk(fmt.Sprintf("fence %s on %s: %s", req.Fence, file, why))
	}
	// With a backend the file only follows: the grant is etcd's to confirm (a takeover
	// on another machine leaves this clone's file as it was).
	if why, ok := p.backendFence(file, req.Fence); !ok {
		return mk(fmt.Sprintf("fence %s on %s: %s", req.Fence, file, why))
	}
	return Block{}, false
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// reasonFor is the one-sentence reason a lock refuses ops.
func reasonFor(l *lockcore.Lock, ops []string) string {
	var b strings.Builder
	kind := string(l.Kind)
	if l.Ambiguous {
		kind = "ambiguous-name"
	}
	fmt.Fprintf(&b, "%s lock %s", kind, l.Path)
	switch {
	case l.Invalid():
		fmt.Fprintf(&b, " is %v; it is treated as held (fail closed)", l.ReadErr)
		return b.String()
	case l.NotRegular():
		fmt.Fprintf(&b, " is %v; guard never reads it and treats the area as locked (fail closed)", l.ReadErr)
		return b.String()
	case l.ReadErr != nil:
		fmt.Fprintf(&b, " could not be read (%v); it is treated as held (fail closed)", l.ReadErr)
		return b.String()
	}
	fmt.Fprintf(&b, " held by %s", orUnknown(l.Owner))
	if l.HeldIn != "" {
		fmt.Fprintf(&b, " (held in %s)", l.HeldIn)
	}
	if l.Kind == lockcore.Team {
		if l.Name.Host == "" {
			b.WriteString(" (a team lock without a host stops every host)")
		} else {
			fmt.Fprintf(&b, " on host %s", l.Name.Host)
		}
	}
	if len(l.Operations) > 0 {
		fmt.Fprintf(&b, " blocks %s", strings.Join(matchingOps(l, ops), ", "))
	}
	return b.String()
}

func matchingOps(l *lockcore.Lock, ops []string) []string {
	var out []string
	for _, op := range ops {
		if l.CoversOperation(op) {
			out = append(out, op)
		}
	}
	sort.Strings(out)
	return out
}

// realPath resolves the symbolic links in path, as far as it exists (a link to a file
// included); the part that does not exist yet is kept as written. Directories are
// resolved once per Policy: a push may name thousands of paths in a few folders.
// isLink says whether path itself is a symbolic link (the caller has lstat'ed it): a
// dangling one is judged as its target, which a write through it creates.
func (p *Policy) realPath(path string, isLink bool) string {
	if isLink {
		if r, err := filepath.EvalSymlinks(path); err == nil {
			return r
		}
		if r, err := (PathResolver{}).RealPath(path); err == nil {
			return r
		}
	}
	dir := filepath.Dir(path)
	if dir == path {
		return path
	}
	return filepath.Join(p.realDir(dir), filepath.Base(path))
}

// realDir is dir with its symbolic links resolved (filepath.EvalSymlinks), the part
// that does not exist kept as written. It is built from the parent's: a component that
// the parent's listing shows as a plain folder (or not there) resolves with no system
// call; only a symbolic link, an entry of unknown type or an unlistable parent asks
// the file system.
func (p *Policy) realDir(dir string) string {
	if r, ok := p.real[dir]; ok {
		return r
	}
	r := dir
	if parent := filepath.Dir(dir); parent != dir {
		base := filepath.Base(dir)
		dl := p.readDir(parent)
		typ, special := dl.special.EntryType(base)
		under := func() string {
			if rp := p.realDir(parent); rp != parent {
				return filepath.Join(rp, base)
			}
			return dir
		}
		if dl.err == nil && (!special || typ == fs.ModeDir) {
			r = under()
		} else if er, err := filepath.EvalSymlinks(dir); err == nil {
			r = er
		} else {
			r = under()
		}
	} else if er, err := filepath.EvalSymlinks(dir); err == nil {
		r = er
	}
	p.real[dir] = r
	return r
}

// dedupe drops repeated (path, lock) pairs: a lock can be reached along two chains (a
// symbolic link and its real path).
func dedupe(blocks []Block) []Block {
	seen := map[[2]string]bool{}
	real := map[string]string{} // each lock's real path, resolved once
	out := blocks[:0]
	for _, b := range blocks {
		key := [2]string{b.Path, b.Reason}
		if b.Lock != nil {
			r, ok := real[b.Lock.Path]
			if !ok {
				r = b.Lock.Path
				if rp, err := filepath.EvalSymlinks(b.Lock.Path); err == nil {
					r = rp
				}
				real[b.Lock.Path] = r
			}
			key[1] = r
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, b)
		}
	}
	return out
}

// resolveExisting resolves the symbolic links in the longest existing prefix of path,
// returning the resolved prefix and the rest (which does not exist yet).
func resolveExisting(path string) (real, rest string) {
	for d, tail := path, ""; ; {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return r, tail
		}
		parent := filepath.Dir(d)
		if parent == d {
			return path, ""
		}
		tail = filepath.Join(filepath.Base(d), tail)
		d = parent
	}
}

// repoTop is RepoTop, remembered per directory (and for the directories on the way).
func (p *Policy) repoTop(dir string) string {
	if t, ok := p.tops[dir]; ok {
		return t
	}
	var t string
	has, known := p.gits[dir]
	if !known {
		has = hasGitEntry(dir)
	}
	if has {
		t = dir
	} else if parent := filepath.Dir(dir); parent != dir {
		t = p.repoTop(parent)
	}
	p.tops[dir] = t
	return t
}
