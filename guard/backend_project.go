package guard

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/guardlocks/guard/internal/gitrun"
	"github.com/guardlocks/guard/lockcore"
)

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

// ReleaseHeld releases owner's lock at path in the backend of its project, when the
// project has one and holds that lock: found says whether it did (the lock file is
// then gone too); otherwise the caller releases the file as without a backend.
func ReleaseHeld(ctx context.Context, env *Env, path, owner string) (found bool, err error) {
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
	return env.BackendRelease(ctx, pb, path, owner)
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
