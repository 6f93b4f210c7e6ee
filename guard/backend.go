package guard

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
)

// Backend is a coordination service that holds a project's locks besides the lock
// files (CONTRACT.md section 10): the one place where claims from several machines
// meet, so that exactly one of them wins. guard's policy only reads it (Snapshot);
// the claim path of guard lock, run and the agent claims wins there first (Claim) and
// then writes the lock file as a follower. The etcd implementation lives in
// backend/etcd; main wires it in through Env.OpenBackend.
type Backend interface {
	// Where names the service and the project for messages ("etcd at
	// http://127.0.0.1:2379, project github.com/o/r").
	Where() string
	// Snapshot reads every lock the project holds, at one revision.
	Snapshot(ctx context.Context) (*BackendSnapshot, error)
	// Claim wins c.Lock for its owner: it fails with ErrBackendMoved when a lock of
	// an overlapping area of the project changed after c.Since, so that the caller
	// judges again, and otherwise makes the lock the project's, bound to a lease of
	// c.TTL (0: held until released).
	Claim(ctx context.Context, c BackendClaim) (BackendGrant, error)
	// Attach returns the grant of the lock held at dir/name (resource: the URI) by a
	// claim of any process, for renew and unlock; ErrBackendNoLock when there is none.
	Attach(ctx context.Context, dir, name, resource string) (BackendGrant, *BackendLock, error)
	// WaitChange returns once a lock of the project changed after revision since (or
	// ctx ended).
	WaitChange(ctx context.Context, since int64) error
	// Close ends the conversation with the service.
	Close() error
}

// BackendGrant is one lock won in a Backend: the lease that keeps it and the fence
// (revision) that won it.
type BackendGrant interface {
	// Fence is the revision at which the lock was won: it names this grant among all
	// grants of the project, and the lock file carries it as fence:.
	Fence() int64
	// Renew keeps the lease alive and stores body as the lock's new body; ttl, when
	// it differs from the lease's, moves the lock onto a new lease of ttl. A lock that
	// is no longer this grant is ErrBackendLost (and the grant is lost).
	Renew(ctx context.Context, body []byte, ttl time.Duration) error
	// Release deletes the lock if it is still this grant, and the lease.
	Release(ctx context.Context) error
	// Lost closes when the lock stops being this grant (deleted, replaced, its lease
	// expired or revoked); Err then says which.
	Lost() <-chan struct{}
	Err() error
}

// BackendLock is a lock as the backend holds it.
type BackendLock struct {
	// Dir is the lock's folder, relative to the project root, slash-separated ("" for
	// the root); Name is the lock file's name. Resource is set instead for a resource
	// lock (its URI); Name is then the resource lock file's name.
	Dir      string
	Name     string
	Resource string
	// Body is the lock file's body without its fence line.
	Body []byte
	// Fence is the revision that won the lock; Lease the lease that keeps it (0: none).
	Fence int64
	Lease int64
}

// BackendSnapshot is every lock of a project at one revision.
type BackendSnapshot struct {
	Revision int64
	Locks    []BackendLock
}

// BackendClaim is a claim as a Backend takes it.
type BackendClaim struct {
	Lock BackendLock
	// TTL is the lease (the lock's lifetime); 0 holds until released.
	TTL time.Duration
	// Since is the revision of the snapshot the claim was judged at.
	Since int64
	// Replace is the fence of the caller's own lock of the same name that this claim
	// renews (the fence stays); 0 when the name must be free. ReplaceLease is that
	// lock's lease, which the renewal retires.
	Replace      int64
	ReplaceLease int64
}

// Errors of a Backend.
var (
	// ErrBackendMoved: an overlapping lock changed since the snapshot; judge again.
	ErrBackendMoved = errors.New("a lock of an overlapping area changed meanwhile")
	// ErrBackendNoLock: no such lock is held in the backend.
	ErrBackendNoLock = errors.New("no such lock is held in the backend")
	// ErrBackendLost: the lock is no longer this grant.
	ErrBackendLost = errors.New("the lock is no longer held by this grant in the backend")
)

// BackendOpener connects to the backend cfg.Backend names for project (cfg.Dir
// resolves relative TLS paths).
type BackendOpener func(cfg *Config, project string, env *Env) (Backend, error)

// UnreachableError is a backend that could not be consulted: reads fail closed with
// it (exit 2) unless offline = "files".
type UnreachableError struct {
	Where string
	Err   error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("the lock backend (%s) cannot be consulted: %v; guard fails closed while it is unreachable (set [backend] offline = \"files\" in .guard.toml to judge from the lock files alone meanwhile)", e.Where, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// backends are the connections of one process, one per project (Env.backends).
type backends struct {
	mu    sync.Mutex
	conns map[string]Backend
}

// ProjectBackend is the backend that holds the locks of the repository whose working
// tree root is top (outside a repository: of the directory whose configuration cfg is).
type ProjectBackend struct {
	Backend Backend
	Config  *Config
	// Top is the working-tree root the lock paths are relative to.
	Top string
	// Project is the project id.
	Project string
}

// Rel is dir relative to the project root, slash-separated ("" for the root); ok is
// false for a directory outside the project.
func (pb *ProjectBackend) Rel(dir string) (string, bool) {
	rel, err := filepath.Rel(pb.Top, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	if rel == "." {
		return "", true
	}
	return filepath.ToSlash(rel), true
}

// Timeout is the backend's dial_timeout.
func (pb *ProjectBackend) Timeout() time.Duration {
	d, err := pb.Config.Backend.Timeout()
	if err != nil {
		return DefaultDialTimeout
	}
	return d
}

// BackendOf returns the backend of the project holding dir (top is its working-tree
// root, "" outside a repository; cfg the configuration governing top), or nil when
// that configuration has no [backend]. Connections are opened once per process.
func BackendOf(env *Env, top string, cfg *Config) (*ProjectBackend, error) {
	if cfg == nil || cfg.Backend == nil {
		return nil, nil
	}
	if top == "" {
		top = cfg.Dir
	}
	project := cfg.Backend.ProjectID
	if project == "" {
		url, _ := gitrun.New(top, env.Getenv).Line(context.Background(), "config", "--get", "remote.origin.url")
		project = NormalizeRemoteURL(url)
		if project == "" {
			return nil, Fail(BadInput, "%s: [backend] has no project_id and the repository at %s has no origin remote to take it from: set project_id (the same on every clone)", cfg.Path, top)
		}
	}
	if env.OpenBackend == nil {
		return nil, Fail(BadInput, "%s: [backend] kind = %q, but this guard was built without backends", cfg.Path, cfg.Backend.Kind)
	}
	if env.backends == nil {
		env.backends = &backends{conns: map[string]Backend{}}
	}
	key := cfg.Path + "\x00" + project
	env.backends.mu.Lock()
	defer env.backends.mu.Unlock()
	b, ok := env.backends.conns[key]
	if !ok {
		var err error
		b, err = env.OpenBackend(cfg, project, env)
		if err != nil {
			return nil, Fail(BadInput, "%s: [backend]: %w", cfg.Path, err)
		}
		env.backends.conns[key] = b
	}
	return &ProjectBackend{Backend: b, Config: cfg, Top: top, Project: project}, nil
}

// CloseBackends closes the connections env opened (main calls it before exiting).
func CloseBackends(env *Env) {
	if env.backends == nil {
		return
	}
	env.backends.mu.Lock()
	defer env.backends.mu.Unlock()
	for k, b := range env.backends.conns {
		b.Close()
		delete(env.backends.conns, k)
	}
}

// BackendLockPath is the lock file a backend lock follows in the working tree top.
func BackendLockPath(top string, bl BackendLock) string {
	return filepath.Join(top, filepath.FromSlash(bl.Dir), bl.Name)
}

// LockOf is the backend lock as a lockcore.Lock at its file's place in the working
// tree top: the body, its fence, and HeldIn naming the service.
func LockOf(top string, bl BackendLock, where string, loc *time.Location) *lockcore.Lock {
	body := append(append([]byte{}, bl.Body...), fmt.Sprintf("\nfence: %d\n", bl.Fence)...)
	path := BackendLockPath(top, bl)
	l, err := lockcore.ParseLock(path, body, time.Time{}, loc)
	if err != nil {
		// A name the backend should never hold: still a lock, unreadable (fail closed).
		l = &lockcore.Lock{Path: path, Dir: filepath.Dir(path), ReadErr: fmt.Errorf("%w: the backend holds it under a name that is not a lock name", lockcore.ErrInvalidLock)}
	}
	l.HeldIn = where
	return l
}

// backendView is what one Policy read of a project's backend.
type backendView struct {
	pb   *ProjectBackend
	snap *BackendSnapshot
	err  error
	// byDir are the snapshot's folder locks by project-relative folder.
	byDir map[string][]BackendLock
}

// backendFor reads the backend of the project whose working-tree root is top, once
// per Policy; nil when the project has none.
func (p *Policy) backendFor(top string) *backendView {
	if v, ok := p.backendViews[top]; ok {
		return v
	}
	var v *backendView
	cfg, cerr := p.config(top)
	if cerr == nil && cfg.Backend != nil {
		v = &backendView{}
		v.pb, v.err = BackendOf(p.env, top, cfg)
		if v.err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), v.pb.Timeout())
			v.snap, v.err = v.pb.Backend.Snapshot(ctx)
			cancel()
			if v.err != nil {
				v.err = &UnreachableError{Where: v.pb.Backend.Where(), Err: v.err}
			}
		}
		if v.err == nil {
			v.byDir = map[string][]BackendLock{}
			for _, bl := range v.snap.Locks {
				if bl.Resource == "" {
					v.byDir[bl.Dir] = append(v.byDir[bl.Dir], bl)
				}
			}
		} else if v.pb != nil && cfg.Backend.FallsBackToFiles() {
			p.backendWarnings = append(p.backendWarnings, fmt.Sprintf("%v; offline = \"files\": judged from the lock files alone", v.err))
		} else if p.backendErr == nil {
			p.backendErr = v.err
		}
	}
	p.backendViews[top] = v
	return v
}

// withBackend adds to dl, the listing of dir, the locks the project's backend holds
// in dir: a backend lock replaces a file of the same name (the file follows the
// backend), and an unreachable backend makes the listing an error (fail closed)
// unless offline = "files".
func (p *Policy) withBackend(dir string, dl dirLocks) dirLocks {
	top := p.repoTop(dir)
	if top == "" {
		return dl
	}
	v := p.backendFor(top)
	if v == nil {
		return dl
	}
	if v.err != nil {
		if v.pb == nil || !v.pb.Config.Backend.FallsBackToFiles() {
			if dl.err == nil {
				dl.err = v.err
			}
		}
		return dl
	}
	rel, ok := v.pb.Rel(dir)
	if !ok {
		return dl
	}
	locks := make([]*lockcore.Lock, 0, len(dl.locks)+len(v.byDir[rel]))
	held := map[string]bool{}
	for _, bl := range v.byDir[rel] {
		held[strings.ToLower(bl.Name)] = true
		locks = append(locks, LockOf(top, bl, v.pb.Backend.Where(), p.loc))
	}
	for _, l := range dl.locks {
		if held[strings.ToLower(filepath.Base(l.Path))] {
			continue
		}
		if _, follower := l.Fields.Values[FollowerField]; follower {
			// The file followed a lock etcd no longer holds (released elsewhere, or
			// its lease ran out): etcd decided, the file is stale.
			continue
		}
		locks = append(locks, l)
	}
	dl.locks = locks
	return dl
}

// FollowerField marks a lock file written as the follower of a backend's lock (the
// field "backend: etcd"): such a file whose key is gone is stale.
const FollowerField = "backend"

// backendBelow are the backend's locks in the folders below root (not root itself)
// that the walk of root did not list: locks held from another machine in folders
// this clone does not have.
func (p *Policy) backendBelow(root string, seen map[string]bool) []hit {
	top := p.repoTop(root)
	if top == "" {
		return nil
	}
	v := p.backendFor(top)
	if v == nil || v.err != nil {
		return nil
	}
	rel, ok := v.pb.Rel(root)
	if !ok {
		return nil
	}
	var out []hit
	for d, bls := range v.byDir {
		if d == rel || !(rel == "" || strings.HasPrefix(d, rel+"/")) {
			continue
		}
		for _, bl := range bls {
			l := LockOf(top, bl, v.pb.Backend.Where(), p.loc)
			if !seen[strings.ToLower(l.Path)] {
				out = append(out, hit{lock: l, target: l.Dir})
			}
		}
	}
	return out
}

// BackendErr is the error of a backend this Policy could not consult (nil when every
// backend it read answered, or fell back to the files).
func (p *Policy) BackendErr() error { return p.backendErr }

// SubjectBackend is the backend of the project s lies in: the [backend] of the
// .guard.toml at the repository's root (outside a repository: of s's own
// configuration), nil without one.
func SubjectBackend(env *Env, s *Subject) (*ProjectBackend, error) {
	cfg := s.Config
	if s.Top != "" {
		c, err := FindConfig(s.Top)
		if err != nil {
			return nil, Fail(BadInput, "%w", err)
		}
		cfg = c
	}
	return BackendOf(env, s.Top, cfg)
}

// LockerFor is where a claim in the project of pb is made: the lock files alone
// without a backend, else Env.BackendLocker (main wires in package backend, which
// wins the claim in the backend first and writes the file after).
func LockerFor(env *Env, pb *ProjectBackend) (lockcore.Locker, error) {
	if pb == nil {
		return lockcore.Files{}, nil
	}
	if env.BackendLocker == nil {
		return nil, fmt.Errorf("%s: [backend] is set, but this guard cannot claim there", pb.Config.Path)
	}
	return env.BackendLocker(pb), nil
}

// BackendDirsBelow are the folders below root (root included) in which a backend
// holds locks: the agent hook's search for a lock near a command it cannot read
// lists the files, and asks about these folders too, where a lock may be held from
// another machine without any file here.
func (p *Policy) BackendDirsBelow(root string) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range p.backendBelow(root, nil) {
		if !seen[h.lock.Dir] {
			seen[h.lock.Dir] = true
			out = append(out, h.lock.Dir)
		}
	}
	if top := p.repoTop(root); top != "" {
		if v := p.backendFor(top); v != nil && v.err == nil {
			if rel, ok := v.pb.Rel(root); ok && len(v.byDir[rel]) > 0 && !seen[root] {
				out = append(out, root)
			}
		}
	}
	sort.Strings(out)
	return out
}

// ReleaseHeld releases owner's lock at path in the backend of its project, when the
// project has one and holds that lock: found says whether it did (the lock file is
// then gone too); otherwise the caller releases the file as without a backend.
func ReleaseHeld(env *Env, path, owner string) (found bool, err error) {
	s, err := ResolveSubject(env, filepath.Dir(path), Identity{})
	if err != nil {
		return false, err
	}
	pb, err := SubjectBackend(env, s)
	if err != nil || pb == nil {
		return false, err
	}
	if env.BackendRelease == nil {
		return false, fmt.Errorf("%s: [backend] is set, but this guard cannot release there", pb.Config.Path)
	}
	return env.BackendRelease(context.Background(), pb, path, owner)
}

// HeldLocks are the folder locks pb's backend holds, as lockcore.Locks at their
// files' places in pb.Top (HeldIn set), and the revision they were read at: what
// guard watch and guard serve show of a backend.
func (pb *ProjectBackend) HeldLocks(ctx context.Context, loc *time.Location) ([]*lockcore.Lock, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, pb.Timeout())
	defer cancel()
	snap, err := pb.Backend.Snapshot(ctx)
	if err != nil {
		return nil, 0, &UnreachableError{Where: pb.Backend.Where(), Err: err}
	}
	var out []*lockcore.Lock
	for _, bl := range snap.Locks {
		if bl.Resource == "" {
			out = append(out, LockOf(pb.Top, bl, pb.Backend.Where(), loc))
		}
	}
	return out, snap.Revision, nil
}

// RootBackends are the backends of the projects at the given roots (a root inside a
// repository whose root .guard.toml has [backend]), one per project: what guard watch
// and serve follow besides the files. A root without a backend adds nothing; a broken
// configuration is left to the commands that read it.
func RootBackends(env *Env, roots []string) []*ProjectBackend {
	var out []*ProjectBackend
	seen := map[string]bool{}
	for _, r := range roots {
		s, err := ResolveSubject(env, r, Identity{})
		if err != nil {
			continue
		}
		pb, err := SubjectBackend(env, s)
		if err != nil || pb == nil || seen[pb.Top] {
			continue
		}
		seen[pb.Top] = true
		out = append(out, pb)
	}
	return out
}

// backendFence confirms with the backend of file's project that the lock file still
// names the grant of fence: ok without a backend; with one, the backend must hold the
// lock under that fence (an unreachable backend confirms nothing: fail closed).
func (p *Policy) backendFence(file, fence string) (why string, ok bool) {
	dir := filepath.Dir(file)
	top := p.repoTop(dir)
	if top == "" {
		return "", true
	}
	v := p.backendFor(top)
	switch {
	case v == nil:
		return "", true
	case v.err != nil:
		return v.err.Error(), false
	}
	rel, in := v.pb.Rel(dir)
	if !in {
		return "", true
	}
	for _, bl := range v.byDir[rel] {
		if strings.EqualFold(bl.Name, filepath.Base(file)) {
			if fmt.Sprint(bl.Fence) == strings.TrimSpace(fence) {
				return "", true
			}
			return fmt.Sprintf("%s holds this lock under fence %d now", v.pb.Backend.Where(), bl.Fence), false
		}
	}
	return fmt.Sprintf("%s no longer holds this lock (released, or its lease ran out)", v.pb.Backend.Where()), false
}
