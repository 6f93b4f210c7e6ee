package guard

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/guardlocks/guard/lockcore"
)

// Explain writes the refusal for a person or an agent: for each lock, what it refuses
// and which paths, who holds it since when and until when, why (purpose, release
// condition), and what to do now. It writes the warnings too, and nothing when the
// decision allows everything without warnings.
func (d *Decision) Explain(w io.Writer) {
	writeWarnings(w, d.Warnings)
	d.ExplainRefusal(w)
}

// writeWarnings writes the warnings of a decision as Explain does.
func writeWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "guard: warning: %s\n", s)
	}
}

// ExplainRefusal writes what Explain writes but the warnings, for callers that show
// those apart: nothing when the decision allows.
func (d *Decision) ExplainRefusal(w io.Writer) { d.ExplainRefusalWith(w, WayOut) }

// ExplainRefusalWith is ExplainRefusal with each lock's "what now" from wayOut:
// WayOut for people, AgentWayOut for coding agents (the agent hook).
func (d *Decision) ExplainRefusalWith(w io.Writer, wayOut func(*lockcore.Lock) string) {
	if d.Allowed {
		return
	}
	fmt.Fprintf(w, "guard: refused %s: %d path(s) blocked\n", strings.Join(d.Ops, "+"), len(d.Blocking))
	type group struct {
		lock  *lockcore.Lock
		paths []string
		why   string
		claim bool
		way   string // the block's own way out, if any
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, b := range d.Blocking {
		key := b.Reason
		if b.Lock != nil && !b.TeamClaim {
			key = b.Lock.Path
		}
		g := byKey[key]
		if g == nil {
			g = &group{lock: b.Lock, why: b.Reason, claim: b.TeamClaim, way: b.WayOut}
			byKey[key] = g
			groups = append(groups, g)
		}
		if b.Path != "" && !contains(g.paths, b.Path) {
			g.paths = append(g.paths, b.Path)
		}
	}
	for _, g := range groups {
		fmt.Fprintln(w)
		if g.lock == nil {
			fmt.Fprintf(w, "  %s\n", g.why)
			writePaths(w, g.paths)
			continue
		}
		if g.claim {
			fmt.Fprintf(w, "  %s\n  team lock: %s\n", g.why, g.lock.Path)
			writePaths(w, g.paths) // the reason already says what to do
			continue
		}
		writeLock(w, g.lock, g.why, d.now)
		writePaths(w, g.paths)
		way := g.way
		if way == "" {
			way = wayOut(g.lock)
		}
		fmt.Fprintf(w, "  what now: %s\n", way)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func writePaths(w io.Writer, paths []string) {
	const max = 20
	for i, p := range paths {
		if i == max {
			fmt.Fprintf(w, "    ... and %d more\n", len(paths)-max)
			break
		}
		fmt.Fprintf(w, "    blocked: %s\n", p)
	}
}

func writeLock(w io.Writer, l *lockcore.Lock, why string, now time.Time) {
	fmt.Fprintf(w, "  %s\n", why)
	if l.ReadErr != nil {
		return
	}
	fmt.Fprintf(w, "  lock: %s (kind %s, scope %s)\n", l.Path, l.Kind, l.Scope)
	fmt.Fprintf(w, "  owner: %s", orUnknown(l.Owner))
	if l.Host != "" {
		fmt.Fprintf(w, " on %s", l.Host)
	}
	fmt.Fprintf(w, ", since %s", l.Created.Format("2006-01-02 15:04:05"))
	if l.CreatedSource == "mtime" {
		fmt.Fprint(w, " (file time; the lock has no readable created field)")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  until: %s\n", Until(l, now))
	if l.Purpose != "" {
		fmt.Fprintf(w, "  purpose: %s\n", l.Purpose)
	}
	if l.ReleaseCondition != "" {
		fmt.Fprintf(w, "  release condition: %s\n", l.ReleaseCondition)
	}
	if len(l.Operations) > 0 {
		fmt.Fprintf(w, "  locked operations: %s\n", strings.Join(l.Operations, ", "))
	}
	if extra := UnknownFields(l); len(extra) > 0 {
		fmt.Fprintf(w, "  other fields: %s\n", strings.Join(extra, "; "))
	}
	if l.Ambiguous {
		fmt.Fprintln(w, "  note: the name combines reserved words, so guard holds it indefinitely (fail closed); rename it or use not_before + release_condition")
	}
}

// Until says when a lock stops holding, in words.
func Until(l *lockcore.Lock, now time.Time) string {
	switch {
	case l.Ambiguous:
		return "indefinitely (ambiguous name)"
	case l.Kind == lockcore.Legacy:
		return "removed by hand (legacy lock, never expires)"
	case l.Kind == lockcore.User:
		return "the user removes it (user lock, never expires)"
	case l.Kind == lockcore.Condition:
		return "its release condition is met and the file is removed (condition lock, never expires)"
	}
	at, ok := l.ExpiresAt()
	if !ok {
		if l.Kind == lockcore.Until && l.NotBefore != nil {
			return fmt.Sprintf("its release condition is met (not_before %s has passed or will pass, release_mode all)", l.NotBefore.Format("2006-01-02 15:04:05"))
		}
		return "removed (no usable not_before: held fail closed)"
	}
	left := at.Sub(now).Round(time.Minute)
	return fmt.Sprintf("%s (in %s)", at.Format("2006-01-02 15:04:05"), left)
}

// WayOut says what someone stopped by lock l can do about it, in words fitted to its
// kind (one that never expires is not waited out).
func WayOut(l *lockcore.Lock) string {
	switch {
	case l.NotRegular():
		return fmt.Sprintf("a lock is a regular file: ask whoever put this there, then remove it (`rm %s`, or `guard unlock --force %s`)", l.Path, l.Path)
	case l.Invalid():
		return fmt.Sprintf("its content is not a lock body (binary data): ask whoever wrote it to fix or remove %s (a person at a terminal can run `guard unlock --force %s`)", l.Path, l.Path)
	case l.ReadErr != nil:
		return fmt.Sprintf("fix the file's permissions or content (%s), or ask whoever wrote it", l.Path)
	case l.Kind == lockcore.User:
		return fmt.Sprintf("only the user removes a user lock: ask them (a person at a terminal can run `guard unlock --force %s`)", l.Path)
	case l.Kind == lockcore.Condition || l.Kind == lockcore.Until && l.ReleaseCondition != "":
		return fmt.Sprintf("work elsewhere, or meet the release condition, document it, then remove %s", l.Path)
	case l.Kind == lockcore.Team:
		return fmt.Sprintf("wait for host %s to finish, or pick a scope that does not overlap; ask %s before removing %s", orUnknown(l.Name.Host), orUnknown(l.Owner), filepath.Base(l.Path))
	case l.Ambiguous:
		return fmt.Sprintf("ask %s to rename or remove %s", orUnknown(l.Owner), l.Path)
	case l.Kind == lockcore.Legacy:
		return fmt.Sprintf("a legacy lock never expires: ask %s to remove %s when the work it marks is done", orUnknown(l.Owner), l.Path)
	case l.Kind == lockcore.Until && l.NotBefore == nil:
		return fmt.Sprintf("it has no usable not_before, so it never expires: ask %s to run `guard unlock %s` when done", orUnknown(l.Owner), l.Path)
	}
	s := fmt.Sprintf("wait until it expires or is released, ask %s to run `guard unlock %s`", orUnknown(l.Owner), l.Path)
	return s + fmt.Sprintf(", or if it is abandoned, `guard unlock --force %s`", l.Path)
}

// AgentWayOut says what a coding agent stopped by lock l can do, for the text the
// agent hook sends back to it (CONTRACT.md section 4): first guard mcp's tools (wait
// for the area, or claim another one and work there) and `guard lock --wait` from a
// shell, then asking the person it works for. It never suggests forcing, removing
// another's lock, or acting as another owner: an agent that reads "--force" uses it.
func AgentWayOut(l *lockcore.Lock) string {
	dir := filepath.Dir(l.Path)
	ask := "or ask the person you work for"
	switch {
	case l.NotRegular(), l.Invalid(), l.ReadErr != nil:
		return fmt.Sprintf("guard cannot read %s as a lock, so it holds the area (fail closed): work in another area, %s to look at it", l.Path, ask)
	case l.Kind == lockcore.User:
		return fmt.Sprintf("only the user removes a user lock: work in another area (claim it with guard's MCP tool `lock`), %s", ask)
	case l.Kind == lockcore.Condition || l.Kind == lockcore.Until && l.ReleaseCondition != "":
		return fmt.Sprintf("it holds until its release condition is met: work in another area (claim it with guard's MCP tool `lock`), %s whether the condition is met", ask)
	case l.Ambiguous, l.Kind == lockcore.Legacy, l.Kind == lockcore.Until && l.NotBefore == nil:
		return fmt.Sprintf("it never expires: work in another area (claim it with guard's MCP tool `lock`), %s", ask)
	}
	return fmt.Sprintf("call guard's MCP tool `wait` with path %s (it returns when %s releases it or it expires), "+
		"or claim another area with the `lock` tool and work there; from a shell, `guard lock --wait 30m %s` waits and then claims; %s. "+
		"Do not remove, replace or work around %s's lock", dir, orUnknown(l.Owner), dir, ask, orUnknown(l.Owner))
}

// BlockJSON is one entry of the "blocking" list of `guard check --json`.
type BlockJSON struct {
	Path   string         `json:"path"`
	Lock   *lockcore.JSON `json:"lock"`
	Reason string         `json:"reason"`
	// Marker is what a marker refusal rests on (the markers governing the path's
	// project, as preflight's "markers"); null when a lock or anything else refuses.
	Marker *MarkersJSON `json:"marker"`
}

// DecisionJSON is the `guard check --json` document.
type DecisionJSON struct {
	Op      string `json:"op"`
	Allowed bool   `json:"allowed"`
	// OK is the verdict key every command's JSON shares: true exactly when the
	// command exits 0 (here: Allowed).
	OK       bool        `json:"ok"`
	Blocking []BlockJSON `json:"blocking"`
	Warnings []string    `json:"warnings"`
}

// ToJSON renders the decision as CONTRACT.md's check object.
func (d *Decision) ToJSON() DecisionJSON {
	j := DecisionJSON{Op: strings.Join(d.Ops, ","), Allowed: d.Allowed, OK: d.Allowed, Blocking: []BlockJSON{}, Warnings: d.Warnings}
	if j.Warnings == nil {
		j.Warnings = []string{}
	}
	for _, b := range d.Blocking {
		bj := BlockJSON{Path: b.Path, Reason: b.Reason}
		if b.Lock != nil {
			lj := b.Lock.ToJSON(d.now)
			bj.Lock = &lj
		}
		if b.Markers != nil {
			mj := b.Markers.ToJSON()
			bj.Marker = &mj
		}
		j.Blocking = append(j.Blocking, bj)
	}
	return j
}

// knownFields are the lock body keys guard interprets (CONTRACT.md section 1).
var knownFields = map[string]bool{
	"owner": true, "created": true, "host": true, "expires_after": true, "mode": true,
	"purpose": true, "scope": true, "release_condition": true, "operations": true,
	"removable_by": true, "created_by": true, "not_before": true, "release_mode": true,
	"token": true, "fence": true, "task": true, "type": true,
}

var fieldKeyRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)

// UnknownFields returns the lock's other `key: value` lines, as "key: value" in the
// order they first appear, so that a person sees everything its author wrote.
func UnknownFields(l *lockcore.Lock) []string {
	var out []string
	for _, k := range l.Fields.Keys {
		// Team-lock entries ("[agent] EDITING ... | 10:00") contain colons too; only
		// word-like keys are fields.
		if !knownFields[k] && fieldKeyRE.MatchString(k) {
			out = append(out, k+": "+l.Fields.Values[k])
		}
	}
	return out
}
