package lockcore

import (
	"github.com/guardlocks/guard/internal/lazyre"
	"strings"
)

// Kind is the category of a lock, decided by its file name (and, for user locks, also
// by its body).
type Kind string

// The lock kinds of LOCK-SYSTEM.md.
const (
	Exclusive Kind = "exclusive"
	Team      Kind = "team"
	User      Kind = "user"
	Condition Kind = "condition"
	Until     Kind = "until"
	Legacy    Kind = "legacy"
)

// ProjectScope is the scope of a lock that covers its whole directory.
const ProjectScope = "project"

// PermissionsFileName is the name the reference also accepts for a permissions file;
// guard never treats it as a lock (CONTRACT.md section 7).
const PermissionsFileName = "LOCK.permissions.txt"

// Name is what a lock file's name says about the lock.
type Name struct {
	// File is the base name as found on disk.
	File string
	Kind Kind
	// Scope keeps the case of the file name; compare scopes with ScopesOverlap or
	// strings.EqualFold.
	Scope string
	// Host is the host segment of a team lock; empty when the name has none
	// (LOCK.team.txt stops every host).
	Host string
	// Ambiguous is set when a reserved word stands where a scope belongs
	// (LOCK.frontend.user.txt): such a lock holds indefinitely (fail closed).
	Ambiguous bool
}

var lockNameRE = lazyre.New(`(?i)^LOCK((?:\.[A-Za-z0-9_-]+)*)\.txt$`)

var typeMarkers = map[string]bool{"user": true, "team": true, "community": true, "condition": true, "until": true}
var booleanWords = map[string]bool{"and": true, "or": true, "not": true}

// reserved reports whether a whole name segment is a reserved word.
func reserved(seg string) bool {
	s := strings.ToLower(seg)
	if typeMarkers[s] || booleanWords[s] {
		return true
	}
	if rest, ok := strings.CutPrefix(s, "not-"); ok && typeMarkers[rest] {
		return true
	}
	return false
}

func anyReserved(segs []string) bool {
	for _, s := range segs {
		if reserved(s) {
			return true
		}
	}
	return false
}

// IsLegacyName reports whether name is one of the legacy lock names TEST.txt and
// TESTS.txt (exact case).
func IsLegacyName(name string) bool { return name == "TEST.txt" || name == "TESTS.txt" }

// Classify reads a file's base name. It reports ok=false for anything that is not a
// lock: other files, LOCK.txt.bak, LOCK..txt, LOCK_TEMPLATE.txt, LOCK-CACHE.md and the
// permissions file LOCK.permissions.txt.
func Classify(name string) (n Name, ok bool) {
	if IsLegacyName(name) {
		return Name{File: name, Kind: Legacy, Scope: ProjectScope}, true
	}
	if !maybeLockName(name) {
		// Most names in a directory fail this byte test; the regexp is for the rest.
		return Name{}, false
	}
	m := lockNameRE.FindStringSubmatch(name)
	if m == nil || strings.EqualFold(name, PermissionsFileName) {
		return Name{}, false
	}
	n = Name{File: name, Kind: Exclusive, Scope: ProjectScope}
	if m[1] == "" {
		return n, true
	}
	segs := strings.Split(m[1][1:], ".")
	switch strings.ToLower(segs[0]) {
	case "team", "community":
		n.Kind = Team
		if len(segs) >= 2 {
			n.Host = segs[len(segs)-1]
		}
		if len(segs) >= 3 {
			mid := segs[1 : len(segs)-1]
			n.Scope = strings.Join(mid, ".")
			n.Ambiguous = anyReserved(mid)
		}
	case "user", "condition", "until":
		n.Kind = Kind(strings.ToLower(segs[0]))
		if len(segs) >= 2 {
			n.Scope = strings.Join(segs[1:], ".")
			n.Ambiguous = anyReserved(segs[1:])
		}
	default:
		n.Scope = m[1][1:]
		n.Ambiguous = anyReserved(segs[1:])
	}
	return n, true
}

// IsLockName reports whether name is a lock file name (legacy names included).
func IsLockName(name string) bool {
	_, ok := Classify(name)
	return ok
}
