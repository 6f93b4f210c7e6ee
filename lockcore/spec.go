package lockcore

import (
	"fmt"
	"github.com/guardlocks/guard/internal/lazyre"
	"path/filepath"
	"strings"
	"time"
)

// Spec describes the lock a caller wants: which file (directory, kind, scope, team
// host) and what its body says.
type Spec struct {
	// Dir is the directory the lock goes into (the root of the area).
	Dir string
	// Kind is Exclusive, Team, User, Condition or Until.
	Kind Kind
	// Scope is empty (or "project") for the whole directory.
	Scope string
	// TeamHost is the host segment of a team lock's name.
	TeamHost string

	Owner string
	// Host is the body's host field: the machine that holds the lock.
	Host string
	// Expires is the expires_after value ("24h" when empty); user, condition and until
	// locks carry none.
	Expires string
	// NotBefore is an until lock's moment, as written.
	NotBefore        string
	Mode             string // "hard" (default) or "soft"
	Purpose          string
	ReleaseCondition string
	Operations       []string
	// Resource is the URI a resource lock locks (written as resource: <URI>); empty
	// for a folder lock.
	Resource string
}

var segmentRE = lazyre.New(`^[A-Za-z0-9_-]+$`)

// Validate checks the request as the reference's lock_create does, and more: scope and
// host segments are [A-Za-z0-9_-]+ (no dots, slashes, ".."), a condition lock needs a
// release condition, an until lock a readable moment, and expires_after and mode must
// be values the readers understand. Errors wrap ErrInvalid.
func (s Spec) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	if s.Dir == "" {
		return bad("no directory")
	}
	switch s.Kind {
	case Exclusive, Team, User, Condition, Until:
	default:
		return bad("cannot create a lock of kind %q", s.Kind)
	}
	if s.Scope != "" && !segmentRE.MatchString(s.Scope) {
		return bad("scope %q must use only letters, digits, '_' and '-'", s.Scope)
	}
	if s.Scope != "" && reserved(s.Scope) {
		return bad("scope %q is a reserved word (it would make an ambiguous lock name)", s.Scope)
	}
	if s.Kind == Team {
		if !segmentRE.MatchString(s.TeamHost) {
			return bad("team host %q must use only letters, digits, '_' and '-'", s.TeamHost)
		}
		if reserved(s.TeamHost) {
			return bad("team host %q is a reserved word", s.TeamHost)
		}
	}
	if strings.TrimSpace(s.Owner) == "" {
		return bad("no owner")
	}
	if s.Kind == Condition && strings.TrimSpace(s.ReleaseCondition) == "" {
		return bad("a condition lock needs a release condition")
	}
	if s.Kind == Until {
		if _, ok := ParseTime(s.NotBefore, time.UTC); !ok {
			return bad("until %q is not a time (YYYY-MM-DD[THH:MM[:SS]] or RFC 3339)", s.NotBefore)
		}
	}
	if s.Expires != "" {
		if p := ExpiresProblem(s.Expires); p != "" {
			return bad("expires %q %s", s.Expires, p)
		}
	}
	switch strings.ToLower(s.Mode) {
	case "", "hard", "soft":
	default:
		return bad("mode %q is not hard or soft", s.Mode)
	}
	if s.Resource != "" {
		if p := ResourceProblem(s.Resource); p != "" {
			return bad("resource %q %s", s.Resource, p)
		}
		if s.Kind != Exclusive {
			return bad("a resource lock is an exclusive lock, not a %s lock", s.Kind)
		}
	}
	for _, v := range []string{s.Owner, s.Host, s.Expires, s.NotBefore, s.Purpose, s.ReleaseCondition} {
		if !singleLine(v) {
			return bad("field values must be one line")
		}
	}
	for _, op := range s.Operations {
		if strings.Contains(op, ",") || !singleLine(op) || strings.TrimSpace(op) == "" {
			return bad("operation %q is not a single word", op)
		}
	}
	name := s.FileName()
	if n, ok := Classify(name); !ok || n.Ambiguous {
		return bad("generated name %q is not a valid lock name", name)
	}
	return nil
}

// FileName returns the lock's file name: LOCK[.user|.condition|.until|.team][.scope]
// [.teamhost].txt, as the reference joins it. Call Validate first.
func (s Spec) FileName() string {
	parts := []string{"LOCK"}
	switch s.Kind {
	case User, Condition, Until, Team:
		parts = append(parts, string(s.Kind))
	}
	if s.Scope != "" && !strings.EqualFold(s.Scope, ProjectScope) {
		parts = append(parts, s.Scope)
	}
	if s.Kind == Team {
		parts = append(parts, s.TeamHost)
	}
	return strings.Join(append(parts, "txt"), ".")
}

// Path returns the lock file's path.
func (s Spec) Path() string { return filepath.Join(s.Dir, s.FileName()) }

// ScopeOrProject returns the scope the lock's name gives it.
func (s Spec) ScopeOrProject() string {
	if s.Scope == "" {
		return ProjectScope
	}
	return s.Scope
}

// Body renders the lock file in the reference's field order (lock_create.py, with the
// fence of its later versions): owner, created (local time with seconds), host,
// fence, then removable_by: user (user locks) / nothing (condition and until locks) /
// expires_after (the others), release_condition, operations, not_before, mode,
// purpose, scope. A team lock gets the four sections of LOCK-SYSTEM.md after it.
func (s Spec) Body(created time.Time, fence int64) []byte {
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, "%s: %s\n", k, v) }
	line("owner", s.Owner)
	line("created", FormatCreated(created))
	line("host", s.Host)
	line("fence", fmt.Sprint(fence))
	switch s.Kind {
	case User:
		line("removable_by", "user")
	case Condition, Until:
	default:
		exp := s.Expires
		if exp == "" {
			exp = "24h"
		}
		line("expires_after", exp)
	}
	if s.ReleaseCondition != "" {
		line("release_condition", s.ReleaseCondition)
	}
	if len(s.Operations) > 0 {
		line("operations", strings.Join(s.Operations, ", "))
	}
	if s.Kind == Until {
		line("not_before", strings.TrimSpace(s.NotBefore))
	}
	mode := strings.ToLower(s.Mode)
	if mode == "" {
		mode = "hard"
	}
	line("mode", mode)
	if s.Purpose != "" {
		line("purpose", s.Purpose)
	}
	if s.Resource != "" {
		line("resource", s.Resource)
	}
	line("scope", s.ScopeOrProject())
	if s.Kind == Team {
		b.WriteString(TeamSectionsTemplate())
	}
	return []byte(b.String())
}

// NormalizeDuration returns an expires_after value in the one form guard writes,
// <number><s|m|h|d> without spaces, leading zeros or capitals (" 5 H " is "5h"), and
// whether v is a lifetime the readers understand at all. The reference reads a value
// it cannot parse as 24h without a word, so guard refuses such a value instead of
// writing it.
func NormalizeDuration(v string) (string, bool) {
	if ExpiresProblem(v) != "" {
		return "", false
	}
	m := durationRE.FindStringSubmatch(v)
	n := strings.TrimLeft(m[1], "0")
	if n == "" {
		n = "0"
	}
	return n + strings.ToLower(m[2]), true
}

// ExpiresProblem says what makes v unusable as a lock's expires_after, as the end of
// a sentence that starts with the value ("" when v is usable): not of the form
// <number><s|m|h|d>, or longer than the reference can represent.
func ExpiresProblem(v string) string {
	switch _, ok, overflow := ParseDuration(v); {
	case !ok:
		return "is not <number><s|m|h|d> (the reference would silently read it as 24h, so guard refuses it)"
	case overflow:
		return "is longer than the reference can represent (999999999 days; it would call the lock expired at once), so guard refuses it"
	}
	return ""
}
