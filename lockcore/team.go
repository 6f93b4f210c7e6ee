package lockcore

import (
	"errors"
	"fmt"
	"strconv"
)

// TeamSection names one of the four sections of a team lock.
type TeamSection int

// The four sections of a team lock, in file order.
const (
	SectionPresence TeamSection = iota
	SectionFileClaims
	SectionToolClaims
	SectionMessages
)

var teamSectionMarkers = [4]string{"# PRESENCE:", "# FILE-CLAIMS:", "# TOOL-CLAIMS:", "# MESSAGES:"}
var teamSectionKeys = [4]string{"presence", "file_claims", "tool_claims", "messages"}

// String returns the section's key (presence, file_claims, tool_claims, messages).
func (s TeamSection) String() string {
	if s < 0 || int(s) >= len(teamSectionKeys) {
		return "section(" + strconv.Itoa(int(s)) + ")"
	}
	return teamSectionKeys[s]
}

// Marker returns the section's marker line (`# FILE-CLAIMS:` ...).
func (s TeamSection) Marker() string { return teamSectionMarkers[s] }

// Claim states of a bundle.
const (
	StateEditing = "EDITING" // active file claim
	StateUsing   = "USING"   // active tool claim
	StateWaiting = "WAITING" // queued behind an overlapping bundle
)

// Bundle is one claim line: an agent's all-or-nothing claim of one or more resources,
// active or waiting in the first-come queue.
type Bundle struct {
	Agent string
	State string
	// Order is the file-local FIFO ordinal (order=NNNNNN); older bundles have smaller
	// orders.
	Order int
	// Resources are project-relative POSIX paths (file claims) or casefolded tool ids.
	Resources []string
	// legacy marks a line without order= (`[a] EDITING src`), which gets its position
	// as order and is rewritten in the explicit form on the next write.
	legacy bool
}

// Active reports whether the bundle holds its resources (it is not waiting).
func (b Bundle) Active() bool { return b.State != StateWaiting }

// PresenceEntry is one line of the presence log.
type PresenceEntry struct {
	LoopID, Agent, Role, Task, Start string
	line                             int // index in the file, for edits that keep other lines as written
}

// TeamMessage is one line of the messages section.
type TeamMessage struct {
	Time, Agent, Text string
	// Raw is the line as written (message lines are kept as they are).
	Raw string
}

// TeamLock is a parsed team lock file.
type TeamLock struct {
	// Path is the lock file; Dir is its directory, against which file claims are
	// resolved.
	Path string
	Dir  string
	// Header maps the header's keys (lower-cased) to their values.
	Header map[string]string
	// Migrated is set when the file had no section markers: its sections are empty
	// and the next update appends them.
	Migrated bool

	Presence   []PresenceEntry
	FileClaims []Bundle
	ToolClaims []Bundle
	Messages   []TeamMessage

	lines []string
	// body[s] is the half-open line range of section s's entries (after its marker).
	body [4][2]int
	// pending[s] holds the re-rendered entries of the sections an update changed
	// (dirty[s]).
	pending [4][]string
	dirty   [4]bool
	// whole[s] says pending[s] is the section's entire new body (presence and
	// messages are edited line by line, keeping other lines as written), not just
	// its entries.
	whole [4]bool
}

// TeamFormatError is a team lock whose content cannot be read unambiguously. Updates
// refuse to touch such a file (fail closed) and the policy treats its claims as
// covering everything.
type TeamFormatError struct {
	Path   string
	Line   int // 1-based, 0 when not tied to one line
	Detail string
}

// Error names the file, the line when known, and the problem.
func (e *TeamFormatError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s (fail-closed)", e.Path, e.Line, e.Detail)
	}
	return fmt.Sprintf("%s: %s (fail-closed)", e.Path, e.Detail)
}

// ErrTeamInput marks invalid input to a team-lock operation (agent, resource, tool,
// text or lock name): the caller's mistake, not the file's.
var ErrTeamInput = errors.New("invalid team-lock input")

func inputErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrTeamInput, fmt.Sprintf(format, args...))
}
