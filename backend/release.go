package backend

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/atomicfile"
	"github.com/guardlocks/guard/lockcore"
)

// held attaches to the backend's lock that the lock file at path follows (resource:
// the resource lock of that URI); found is false when the backend holds none.
func held(ctx context.Context, pb *guard.ProjectBackend, path, resource string, loc *time.Location) (guard.BackendGrant, *lockcore.Lock, []byte, bool, error) {
	dir := ""
	if resource == "" {
		rel, ok := pb.Rel(filepath.Dir(path))
		if !ok {
			return nil, nil, nil, false, nil
		}
		dir = rel
	}
	g, bl, err := pb.Backend.Attach(ctx, dir, filepath.Base(path), resource)
	if errors.Is(err, guard.ErrBackendNoLock) {
		return nil, nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, nil, false, &guard.UnreachableError{Where: pb.Backend.Where(), Err: err}
	}
	cur := guard.LockOf(pb.Top, *bl, pb.Backend.Where(), loc)
	cur.Path = path
	return g, cur, bl.Body, true, nil
}

// Release deletes the backend's lock that the file at path follows, then the file,
// when owner holds it (force: anyone's; a user lock only with force from a
// terminal). found is false when the backend holds no such lock: the caller then
// releases the file alone, as without a backend.
func Release(ctx context.Context, pb *guard.ProjectBackend, path, resource, owner string, force, interactive bool, loc *time.Location) (l *lockcore.Lock, found bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, pb.Timeout())
	defer cancel()
	g, cur, _, found, err := held(ctx, pb, path, resource, loc)
	if err != nil || !found {
		return nil, found, err
	}
	isUser := cur.Kind == lockcore.User || cur.ContentUser
	switch {
	case isUser && !(force && interactive):
		return cur, true, lockcore.ErrUserLock
	case cur.Owner != owner && !force:
		return cur, true, fmt.Errorf("%w: %s is held by %s in %s, not by %s", lockcore.ErrNotOwner, path, cur.Owner, pb.Backend.Where(), owner)
	}
	if err := g.Release(ctx); err != nil && !errors.Is(err, guard.ErrBackendLost) {
		return cur, true, &guard.UnreachableError{Where: pb.Backend.Where(), Err: err}
	}
	// The file may be missing (a lock claimed on another machine, or in another
	// resources directory): the key was the lock.
	if _, err := lockcore.RemoveIfFence(path, g.Fence()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return cur, true, err
	}
	return cur, true, nil
}

var (
	createdLine = regexp.MustCompile(`(?m)^created:.*$`)
	expiresLine = regexp.MustCompile(`(?m)^expires_after:.*$`)
)

// Renew moves created to now for owner's lock in the backend that the file at path
// follows, keeps its lease alive (or moves it onto one of expires), and rewrites the
// file. found is false when the backend holds no such lock.
func Renew(ctx context.Context, pb *guard.ProjectBackend, path, resource, owner, expires string, now time.Time) (l *lockcore.Lock, found bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, pb.Timeout())
	defer cancel()
	g, cur, raw, found, err := held(ctx, pb, path, resource, now.Location())
	if err != nil || !found {
		return nil, found, err
	}
	if cur.Owner != owner {
		return cur, true, fmt.Errorf("%w: %s is held by %s in %s, not by %s", lockcore.ErrNotOwner, path, cur.Owner, pb.Backend.Where(), owner)
	}
	body := createdLine.ReplaceAllString(string(raw), "created: "+lockcore.FormatCreated(now))
	ttl := time.Duration(0)
	if _, ok := cur.ExpiresAt(); ok {
		ttl = cur.ExpiresAfter
	}
	if expires != "" {
		if norm, ok := lockcore.NormalizeDuration(expires); ok {
			expires = norm
		}
		body = expiresLine.ReplaceAllString(body, "expires_after: "+expires)
		if d, ok, _ := lockcore.ParseDuration(expires); ok {
			ttl = d
		}
	}
	body = stripFence(body)
	if err := g.Renew(ctx, []byte(body), ttl); err != nil {
		if errors.Is(err, guard.ErrBackendLost) {
			return cur, true, fmt.Errorf("%w: %v", lockcore.ErrExpired, err)
		}
		return cur, true, &guard.UnreachableError{Where: pb.Backend.Where(), Err: err}
	}
	file := fileBody(guard.BackendLock{Body: []byte(body), Fence: g.Fence()})
	if err := atomicfile.Write(path, []byte(file), 0o644); err != nil {
		return cur, true, fmt.Errorf("rewriting the lock file %s after renewing it in the backend: %w", path, err)
	}
	nl, _ := lockcore.ReadLock(path, now.Location())
	if nl == nil {
		nl = cur
	}
	nl.HeldIn = pb.Backend.Where()
	return nl, true, nil
}

func stripFence(body string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(body, "\n") {
		if !strings.HasPrefix(line, "fence:") {
			b.WriteString(line)
		}
	}
	s := b.String()
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}
