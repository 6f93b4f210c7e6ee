package guard

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

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
	// bound bounds the walks below folders of the Check under way.
	bound belowBound
	// treeLocks, when set, are the only locks this policy sees, by directory: lock
	// files read from a commit's tree (withTreeLocks).
	treeLocks map[string][]*lockcore.Lock
	// lastViewDir and lastView are the view asked for last (see view).
	lastViewDir string
	lastView    *dirView
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
	// MaxBelow and BelowUntil bound the Descend walks of one request, for a caller
	// that must answer in time (the agent hook): past MaxBelow folders in all, or past
	// BelowUntil, the walk stops and the folder it was in is refused as one guard
	// could not read (fail closed). Zero values: no bound.
	MaxBelow   int
	BelowUntil time.Time
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
	// Actor is the owner the policy judged (its Identity's): who was refused, which
	// the history records.
	Actor string
	// WayOut, when set, is what to do instead of what the lock's kind suggests (a
	// committed lock the change deletes: its owner releases it with a commit).
	WayOut string
	// Markers are the publication markers that refuse (PRIVATE.txt, both markers, an
	// unreadable PUBLIC.txt, none under require_public); nil for every other block.
	Markers *Markers
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
	p.bound = belowBound{max: req.MaxBelow, until: req.BelowUntil}
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
	p.bound = belowBound{} // the bound was this request's only
	if req.Fence != "" || req.FenceFile != "" {
		if b, ok := p.fenceBlock(req); ok {
			d.Blocking = append(d.Blocking, b)
		}
	}
	d.Blocking = dedupe(d.Blocking)
	d.Allowed = len(d.Blocking) == 0
	for i := range d.Blocking {
		d.Blocking[i].Actor = p.id.Owner
	}
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
