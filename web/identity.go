package web

import (
	"path/filepath"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// The page says who it acts as, and which locks are that identity's own: guard serve
// claims, renews and releases as guard lock would in the lock's folder (GUARD_OWNER,
// the .guard.toml that governs the folder, user@host), so the answer is per folder.

// identities resolves the identity guard serve acts as, folder by folder, reading each
// folder's configuration once per request.
type identities struct {
	res *guard.Resolver
}

func (s *Server) identities() identities {
	return identities{res: guard.NewResolver(s.o.Env)}
}

// at is the identity a claim, renew or release without an owner acts as in dir (what
// guard lock would use there); err names the .guard.toml that could not be read, and
// the identity is then what the environment alone gives.
func (ids identities) at(dir string) (guard.Identity, error) {
	// On a configuration error the subject still carries the identity the
	// environment alone gives (the Resolver's answer, as guard lock would have it).
	sub, err := ids.res.Resolve(dir, guard.Identity{})
	return sub.Identity, err
}

// mine reports whether l is the acting identity's own lock in its folder: the one test
// guard renew and guard unlock (without --force) apply, the owner field. A lock whose
// folder's configuration cannot be read is nobody's own here (fail closed: the page
// offers no plain Release or Extend for it).
func (ids identities) mine(l *lockcore.Lock) bool {
	id, err := ids.at(filepath.Dir(l.Path))
	return err == nil && l.ReadErr == nil && l.Owner == id.Owner
}

// relativePath is path relative to root, with forward slashes ("." for root itself);
// the page shows locks within their room, not as absolute paths.
func relativePath(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil || !within(root, path) {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(rel)
}

// roomRoot is the path of the root holding path (the longest one), "" when none does.
func (s *Server) roomRoot(path string) string {
	best := ""
	for _, r := range s.o.Roots {
		if within(r.Path, path) && len(r.Path) > len(best) {
			best = r.Path
		}
	}
	return best
}
