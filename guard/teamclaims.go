package guard

import "github.com/guardlocks/guard/lockcore"

// TeamClaimBlocks reports whether path, inside the area of a team lock of the caller's
// own host, is claimed by another agent of that team. (Stub until the team-lock parser
// lands; the team-lock owner replaces this file.)
func TeamClaimBlocks(l *lockcore.Lock, path string, id Identity) (reason string, blocked bool) {
	return "", false
}
