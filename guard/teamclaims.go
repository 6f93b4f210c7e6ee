package guard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/guardlocks/guard/lockcore"
)

// TeamClaimBlocks reports whether path (absolute), inside the area of a team lock of
// the caller's own host, is claimed by another agent of that team: an active
// (EDITING) file or folder claim in the lock's FILE-CLAIMS section that overlaps path
// (the path lies inside the claim, or the claim inside the path), held by an agent
// other than id.Owner (compared case-folded). Waiting claims hold nothing yet. Claims
// are relative to the lock's directory. A team lock whose sections cannot be read
// unambiguously blocks everything (fail closed); one without sections has no claims.
func TeamClaimBlocks(l *lockcore.Lock, path string, id Identity) (reason string, blocked bool) {
	if l == nil || l.Kind != lockcore.Team {
		return "", false
	}
	tl, err := lockcore.ReadTeamLock(l.Path)
	return teamClaimBlocks(l, tl, err, path, id)
}

// teamClaimBlocks is TeamClaimBlocks once the team lock's sections were read (tl, or
// the error reading them).
func teamClaimBlocks(l *lockcore.Lock, tl *lockcore.TeamLock, err error, path string, id Identity) (reason string, blocked bool) {
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			// Removed since it was listed (the last agent checked out): nothing claimed.
			return "", false
		}
		return fmt.Sprintf("team lock %s: its claims cannot be read (%v); guard treats the area as claimed (fail closed). "+
			"Fix or recreate the file, or ask the team lead (owner %s)", l.Path, err, orUnknown(l.Owner)), true
	}
	rel, ok := relInside(l.Dir, path)
	if !ok {
		return "", false
	}
	for _, b := range tl.FileClaims {
		if !b.Active() || casefoldEqual(b.Agent, id.Owner) {
			continue
		}
		for _, r := range b.Resources {
			if rel == "." || lockcore.PathsOverlap(rel, r) {
				return fmt.Sprintf("%s is claimed by agent %s in team lock %s (%s order=%06d: %s); "+
					"wait until %s releases it (guard team release), queue with guard team claim --queue, "+
					"or choose another slice", path, b.Agent, l.Path, b.State, b.Order,
					strings.Join(b.Resources, ", "), b.Agent), true
			}
		}
	}
	return "", false
}

func casefoldEqual(a, b string) bool {
	return strings.EqualFold(strings.ReplaceAll(a, "ß", "ss"), strings.ReplaceAll(b, "ß", "ss"))
}

// relInside returns path relative to dir with '/' separators, trying the paths as
// given and then with symbolic links resolved (a temp dir reached through a link);
// ok is false when path lies outside dir.
func relInside(dir, path string) (string, bool) {
	try := func(d, p string) (string, bool) {
		rel, err := filepath.Rel(d, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return "", false
		}
		return filepath.ToSlash(rel), true
	}
	if rel, ok := try(filepath.Clean(dir), filepath.Clean(path)); ok {
		return rel, true
	}
	return try(resolved(dir), resolved(path))
}

func resolved(p string) string {
	real, rest := resolveExisting(filepath.Clean(p))
	return filepath.Join(real, rest)
}
