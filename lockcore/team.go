package lockcore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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

const teamDivider = "# ============================================================================"

// TeamSectionsTemplate returns the four empty section blocks that a new team lock
// carries after its header, starting with the blank line that separates them from
// the header and ending with the messages marker and a newline. Each block is a
// divider, a `# SECTION n -- TITLE` heading, format comments, a divider and the
// marker line after which the section's entries follow.
func TeamSectionsTemplate() string {
	return `
` + teamDivider + `
# SECTION 1 -- PRESENCE LOG
# Every agent checks in here before touching files and checks out when done.
# Format: [loop-id] | [agent-name] | role | main task | start time
` + teamDivider + `
# PRESENCE:

` + teamDivider + `
# SECTION 2 -- FILE / FOLDER CLAIMS + QUEUE
# One line is one atomic bundle. "order" is a file-local FIFO ordinal.
# Paths are relative to this file's folder and contain no wildcards.
# Format: [agent-name] EDITING order=000001 | path | second/path
#         [agent-name] WAITING order=000002 | path | second/path
` + teamDivider + `
# FILE-CLAIMS:

` + teamDivider + `
# SECTION 3 -- TOOL / SOFTWARE / MCP CLAIMS + QUEUE
# One line is one atomic bundle. Shared read-only tools need no claim.
# Format: [agent-name] USING   order=000001 | tool-id | second-tool-id
#         [agent-name] WAITING order=000002 | tool-id | second-tool-id
` + teamDivider + `
# TOOL-CLAIMS:

` + teamDivider + `
# SECTION 4 -- MESSAGES / TIPS / LESSONS LEARNED
# Short handovers, warnings and notes for the other agents of this host.
# Format: [YYYY-MM-DDTHH:MM:SS+HH:MM] [agent-name]: message
` + teamDivider + `
# MESSAGES:
`
}

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

var (
	teamLockNameRE = lazyRE(`^LOCK\.team(\.[A-Za-z0-9_-]+)+\.txt$`)
	agentRE        = lazyRE(`^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,127}$`)
	toolRE         = lazyRE(`^[A-Za-z0-9][A-Za-z0-9_.:/@+-]{0,255}$`)
	headerKeyRE    = lazyRE(`^[a-z][a-z0-9_]*$`)
	orderRE        = lazyRE(`^[0-9]{1,9}$`)
	legacyHeadRE   = lazyRE(`(?i)^(?:#{1,3}\s*)?(?:\d+[.)]?\s*)?(?:anwesenheit(?:slog)?|presence(?:\s+log)?|dateien?(?:\s+beansprucht)?|files?\s+claimed|files?\s+claims?|tools?(?:\s+claimed|\s+claims?)?|nachrichten|messages?|notes?|queue|warteschlange)\s*:?\s*$`)
)

// Limits on what a team lock line may hold.
const (
	MaxTeamRole    = 256
	MaxTeamTask    = 1024
	MaxTeamMessage = 4096
	MaxTeamPath    = 1024
)

// IsTeamLockName reports whether name is a team lock name that guard team edits
// (`LOCK.team[.<scope>].<host>.txt`, exact case).
func IsTeamLockName(name string) bool { return teamLockNameRE.MatchString(name) }

// TeamLockHost returns the host segment of a team lock name (its last segment).
func TeamLockHost(name string) string {
	s := strings.TrimSuffix(name, ".txt")
	return s[strings.LastIndexByte(s, '.')+1:]
}

// ValidateAgent checks an agent id: a letter or digit, then up to 127 of letters,
// digits and `_ . @ + -` (no spaces, no newlines, no brackets).
func ValidateAgent(agent string) error {
	if !agentRE.MatchString(agent) {
		return inputErr("agent %q: use letters, digits and _.@+- (at most 128, starting with a letter or digit)", agent)
	}
	return nil
}

// NormalizeTool validates a tool id and returns it casefolded.
func NormalizeTool(tool string) (string, error) {
	t := strings.TrimSpace(tool)
	if !toolRE.MatchString(t) {
		return "", inputErr("tool %q: use letters, digits and _.:/@+- (at most 256, starting with a letter or digit)", tool)
	}
	return casefold(t), nil
}

// NormalizeFileResource validates a file or folder claim and returns it as a path
// relative to dir with '/' separators, its case kept. It refuses wildcards and the
// separators of the file format (`| ; * ? [ ]`), control characters, absolute paths
// and drives, empty, `.` and `..` segments, dir itself, and paths that resolve
// (through symbolic links) outside dir.
func NormalizeFileResource(dir, res string) (string, error) {
	r := strings.TrimSpace(res)
	if r == "" {
		return "", inputErr("empty resource")
	}
	if len(r) > MaxTeamPath {
		return "", inputErr("resource longer than %d bytes", MaxTeamPath)
	}
	if strings.ContainsAny(r, "|;*?[]") {
		return "", inputErr("resource %q: | ; * ? [ ] are not allowed", res)
	}
	if hasControl(r) {
		return "", inputErr("resource %q: control characters are not allowed", res)
	}
	r = strings.ReplaceAll(r, `\`, "/")
	if strings.HasPrefix(r, "/") || (len(r) >= 2 && r[1] == ':') {
		return "", inputErr("resource %q: absolute paths are not allowed; give a path relative to %s", res, dir)
	}
	r = strings.TrimSuffix(r, "/")
	for _, seg := range strings.Split(r, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", inputErr("resource %q: empty, . and .. segments are not allowed", res)
		}
	}
	if dir != "" && !resolvesInside(dir, filepath.Join(dir, filepath.FromSlash(r))) {
		return "", inputErr("resource %q resolves outside %s", res, dir)
	}
	return r, nil
}

// resolvesInside reports whether target, with symbolic links of its existing part
// resolved, lies strictly inside dir.
func resolvesInside(dir, target string) bool {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		root = filepath.Clean(dir)
	}
	cur, rest := filepath.Clean(target), ""
	for {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			cur = filepath.Join(real, rest)
			break
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			cur = filepath.Join(cur, rest)
			break
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
	rel, err := filepath.Rel(root, cur)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return false
	}
	return true
}

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

// validateText checks a free text (role, task, loop id, message): stripped, not empty,
// no control characters, at most max bytes, none of the forbidden characters (those
// that would split or confuse a line of the file).
func validateText(what, s string, max int, forbidden string) (string, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return "", inputErr("%s is empty", what)
	case len(t) > max:
		return "", inputErr("%s is longer than %d bytes", what, max)
	case hasControl(t):
		return "", inputErr("%s contains control characters", what)
	case forbidden != "" && strings.ContainsAny(t, forbidden):
		return "", inputErr("%s may not contain any of %s", what, strings.Join(strings.Split(forbidden, ""), " "))
	}
	return t, nil
}

// PathsOverlap reports whether two claimed paths touch: equal, or one inside the
// other, compared with '/' separators and case folded (`src` and `SRC/Module.py`
// overlap; `src2` and `src` do not).
func PathsOverlap(a, b string) bool {
	a = casefold(strings.Trim(strings.ReplaceAll(a, `\`, "/"), "/"))
	b = casefold(strings.Trim(strings.ReplaceAll(b, `\`, "/"), "/"))
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

func resourcesOverlap(sec TeamSection, a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if sec == SectionFileClaims && PathsOverlap(x, y) {
				return true
			}
			if sec == SectionToolClaims && casefold(x) == casefold(y) {
				return true
			}
		}
	}
	return false
}

// ReadTeamLock reads and validates the team lock at path. A file without section
// markers reads as empty sections (Migrated set), unless it has headings of an older
// free-form layout, which cannot be read unambiguously. Format problems are a
// *TeamFormatError.
func ReadTeamLock(path string) (*TeamLock, error) {
	data, err := readPrefix(path, MaxLockFileSize+1)
	if err != nil {
		return nil, err
	}
	if len(data) > MaxLockFileSize {
		return nil, &TeamFormatError{Path: path, Detail: fmt.Sprintf("larger than %d bytes", MaxLockFileSize)}
	}
	return ParseTeamLock(path, data, false)
}

// ParseTeamLock parses a team lock body as read from path (whose base name and
// directory matter: the header's host must match the name, and file claims must
// resolve inside the directory). strictMigration applies the reference's strict header
// check to a file without markers, as an update that migrates it must.
func ParseTeamLock(path string, data []byte, strictMigration bool) (*TeamLock, error) {
	t := &TeamLock{Path: path, Dir: filepath.Dir(path), Header: map[string]string{}}
	fail := func(line int, format string, args ...any) error {
		return &TeamFormatError{Path: path, Line: line, Detail: fmt.Sprintf(format, args...)}
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	if strings.ContainsRune(text, 0) {
		return nil, fail(0, "the file contains NUL bytes")
	}
	if !utf8.ValidString(text) {
		// Rewriting would replace bytes of other agents' lines.
		return nil, fail(0, "the file is not valid UTF-8")
	}
	t.lines = splitLines(text)

	var at [4][]int
	for i, line := range t.lines {
		for s, m := range teamSectionMarkers {
			if strings.TrimSpace(line) == m {
				at[s] = append(at[s], i)
			}
		}
	}
	none := true
	for s := range at {
		if len(at[s]) > 0 {
			none = false
		}
	}
	if none {
		return t.parseMarkerless(strictMigration, fail)
	}
	for s := range at {
		switch len(at[s]) {
		case 0:
			return nil, fail(0, "section marker %q is missing", teamSectionMarkers[s])
		case 1:
		default:
			return nil, fail(at[s][1]+1, "section marker %q appears more than once", teamSectionMarkers[s])
		}
		if s > 0 && at[s][0] < at[s-1][0] {
			return nil, fail(at[s][0]+1, "section marker %q is out of order", teamSectionMarkers[s])
		}
	}
	for s := 0; s < 4; s++ {
		start := at[s][0] + 1
		end := len(t.lines)
		if s < 3 {
			end = blockStart(t.lines, start, at[s+1][0])
		}
		t.body[s] = [2]int{start, end}
	}
	if err := t.parseHeader(at[0][0], fail); err != nil {
		return nil, err
	}
	return t, t.parseSections(fail)
}

// blockStart finds where the section block that ends with the marker at line
// marker begins: its `# SECTION ` heading (or the divider right above it), searching
// back no further than from.
func blockStart(lines []string, from, marker int) int {
	for i := marker - 1; i >= from; i-- {
		if strings.HasPrefix(lines[i], "# SECTION ") {
			if i-1 >= from && isDivider(lines[i-1]) {
				return i - 1
			}
			return i
		}
	}
	return marker
}

func isDivider(line string) bool {
	s := strings.TrimSpace(line)
	return strings.HasPrefix(s, "# ===") && strings.Trim(s[1:], " =") == ""
}

// migrationKeys are the only header keys a marker-less file may have to be migrated
// (the reference's set plus fence, which guard writes in every lock).
var migrationKeys = map[string]bool{
	"owner": true, "created": true, "host": true, "expires_after": true, "release_condition": true,
	"mode": true, "purpose": true, "scope": true, "fence": true,
}

func (t *TeamLock) parseMarkerless(strict bool, fail func(int, string, ...any) error) (*TeamLock, error) {
	for i, line := range t.lines {
		if legacyHeadRE.MatchString(strings.TrimSpace(line)) {
			return nil, fail(i+1, "no section markers and a free-form heading %q: cannot be migrated unambiguously", strings.TrimSpace(line))
		}
	}
	t.Migrated = true
	for s := range t.body {
		t.body[s] = [2]int{len(t.lines), len(t.lines)}
	}
	if !strict {
		for _, line := range t.lines {
			if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && !strings.HasPrefix(strings.TrimSpace(line), "#") {
				t.Header[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
		return t, nil
	}
	for i, line := range t.lines {
		s := strings.TrimSpace(line)
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		k, v, problem := headerLine(s)
		if problem == "" && !migrationKeys[k] {
			problem = fmt.Sprintf("unknown line %q (header key %s) in a team lock without section markers", s, k)
		}
		if problem != "" {
			return nil, fail(i+1, "%s", problem)
		}
		if _, dup := t.Header[k]; dup {
			return nil, fail(i+1, "header key %q appears twice", k)
		}
		t.Header[k] = v
	}
	return t, t.checkHeader(fail)
}

func (t *TeamLock) parseHeader(end int, fail func(int, string, ...any) error) error {
	for i := 0; i < end; i++ {
		s := strings.TrimSpace(t.lines[i])
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		k, v, err := headerLine(s)
		if err != "" {
			return fail(i+1, "%s", err)
		}
		if _, dup := t.Header[k]; dup {
			return fail(i+1, "header key %q appears twice", k)
		}
		t.Header[k] = v
	}
	return t.checkHeader(fail)
}

// headerLine splits a header line `key: value`; keys are lower case as guard and the
// reference write them, values may hold no control characters.
func headerLine(s string) (key, value, problem string) {
	k, v, ok := strings.Cut(s, ":")
	if !ok || !headerKeyRE.MatchString(k) {
		return "", "", fmt.Sprintf("unknown line %q outside the sections", s)
	}
	v = strings.TrimSpace(v)
	if hasControl(v) {
		return "", "", fmt.Sprintf("header key %q has control characters", k)
	}
	return k, v, ""
}

func (t *TeamLock) checkHeader(fail func(int, string, ...any) error) error {
	for _, k := range []string{"owner", "host"} {
		if t.Header[k] == "" {
			return fail(0, "the header has no %s", k)
		}
	}
	if m, ok := t.Header["mode"]; ok && m != "hard" && m != "soft" {
		return fail(0, "mode %q is neither hard nor soft", m)
	}
	if want := TeamLockHost(filepath.Base(t.Path)); !strings.EqualFold(want, t.Header["host"]) && IsTeamLockName(filepath.Base(t.Path)) {
		return fail(0, "host %q in the header contradicts the host %q of the file name", t.Header["host"], want)
	}
	return nil
}

// entryLines yields the non-blank, non-comment lines of a section with their indexes.
func (t *TeamLock) entryLines(s TeamSection) (idx []int) {
	for i := t.body[s][0]; i < t.body[s][1]; i++ {
		line := strings.TrimSpace(t.lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		idx = append(idx, i)
	}
	return idx
}

func (t *TeamLock) parseSections(fail func(int, string, ...any) error) error {
	for _, i := range t.entryLines(SectionPresence) {
		e, ok := parsePresence(t.lines[i])
		if !ok {
			return fail(i+1, "damaged presence line %q", strings.TrimSpace(t.lines[i]))
		}
		e.line = i
		t.Presence = append(t.Presence, e)
	}
	for _, sec := range []TeamSection{SectionFileClaims, SectionToolClaims} {
		bundles, err := t.parseClaims(sec, fail)
		if err != nil {
			return err
		}
		if sec == SectionFileClaims {
			t.FileClaims = bundles
		} else {
			t.ToolClaims = bundles
		}
	}
	for _, i := range t.entryLines(SectionMessages) {
		t.Messages = append(t.Messages, parseMessage(t.lines[i]))
	}
	return nil
}

func parsePresence(line string) (PresenceEntry, bool) {
	parts := strings.Split(strings.TrimSpace(line), "|")
	if len(parts) != 5 {
		return PresenceEntry{}, false
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
		if parts[i] == "" {
			return PresenceEntry{}, false
		}
	}
	loop := strings.Trim(parts[0], "[] ")
	agent, ok := bracketed(parts[1])
	if !ok || loop == "" || ValidateAgent(agent) != nil || strings.ContainsFunc(parts[4], unicode.IsSpace) {
		return PresenceEntry{}, false
	}
	return PresenceEntry{LoopID: loop, Agent: agent, Role: parts[2], Task: parts[3], Start: parts[4]}, true
}

// bracketed strips one pair of surrounding brackets (optional).
func bracketed(s string) (string, bool) {
	if strings.HasPrefix(s, "[") != strings.HasSuffix(s, "]") {
		return "", false
	}
	if strings.HasPrefix(s, "[") {
		s = s[1 : len(s)-1]
	}
	return s, s != ""
}

var messageRE = lazyRE(`^\[([^\]]*)\]\s+\[([^\]]*)\]:\s?(.*)$`)

func parseMessage(line string) TeamMessage {
	raw := strings.TrimRight(line, " \t")
	if m := messageRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
		return TeamMessage{Time: m[1], Agent: m[2], Text: m[3], Raw: raw}
	}
	return TeamMessage{Text: strings.TrimSpace(line), Raw: raw}
}

func (t *TeamLock) parseClaims(sec TeamSection, fail func(int, string, ...any) error) ([]Bundle, error) {
	active := StateEditing
	if sec == SectionToolClaims {
		active = StateUsing
	}
	var bundles []Bundle
	var lineOf []int
	legacy, explicit := 0, 0
	for pos, i := range t.entryLines(sec) {
		fields := strings.Fields(t.lines[i])
		if len(fields) < 3 {
			return nil, fail(i+1, "damaged claim line %q", strings.TrimSpace(t.lines[i]))
		}
		agent, ok := bracketed(fields[0])
		if !ok || ValidateAgent(agent) != nil {
			return nil, fail(i+1, "claim line %q: invalid agent", strings.TrimSpace(t.lines[i]))
		}
		state := fields[1]
		if state != active && state != StateWaiting {
			return nil, fail(i+1, "claim line %q: state %q is not valid in %s", strings.TrimSpace(t.lines[i]), state, sec)
		}
		b := Bundle{Agent: agent, State: state}
		// What follows the state: `order=N | res | res` or, in the legacy form, one
		// resource.
		rest := strings.TrimSpace(t.lines[i])
		rest = strings.TrimSpace(rest[strings.Index(rest, fields[0])+len(fields[0]):])
		rest = strings.TrimSpace(rest[len(state):])
		if strings.HasPrefix(rest, "order=") {
			explicit++
			ord, list, _ := strings.Cut(rest[len("order="):], "|")
			ord = strings.TrimSpace(ord)
			n, err := strconv.Atoi(ord)
			if !orderRE.MatchString(ord) || err != nil || n <= 0 {
				return nil, fail(i+1, "claim line %q: order must be a positive number", strings.TrimSpace(t.lines[i]))
			}
			b.Order = n
			if !strings.Contains(rest, "|") {
				return nil, fail(i+1, "claim line %q has no resources", strings.TrimSpace(t.lines[i]))
			}
			for _, r := range strings.Split(list, "|") {
				b.Resources = append(b.Resources, strings.TrimSpace(r))
			}
		} else {
			legacy++
			if strings.Contains(rest, "|") {
				return nil, fail(i+1, "claim line %q: several resources need order=", strings.TrimSpace(t.lines[i]))
			}
			b.legacy = true
			b.Order = pos + 1
			b.Resources = []string{rest}
		}
		norm, err := normalizeResources(sec, t.Dir, b.Resources)
		if err != nil {
			return nil, fail(i+1, "claim line %q: %v", strings.TrimSpace(t.lines[i]), strings.TrimPrefix(err.Error(), ErrTeamInput.Error()+": "))
		}
		b.Resources = norm
		bundles = append(bundles, b)
		lineOf = append(lineOf, i)
	}
	if legacy > 0 && explicit > 0 {
		return nil, fail(0, "%s mixes lines with and without order=", sec)
	}
	seenOrder := map[int]bool{}
	seenLegacyAgent := map[string]bool{}
	for k, b := range bundles {
		if seenOrder[b.Order] {
			return nil, fail(lineOf[k]+1, "order %06d appears twice in %s", b.Order, sec)
		}
		seenOrder[b.Order] = true
		if b.legacy {
			a := casefold(b.Agent)
			if seenLegacyAgent[a] {
				return nil, fail(lineOf[k]+1, "agent %s has several claim lines without order=: ambiguous bundles", b.Agent)
			}
			seenLegacyAgent[a] = true
		}
		for _, o := range bundles[:k] {
			if !resourcesOverlap(sec, b.Resources, o.Resources) {
				continue
			}
			same := strings.EqualFold(casefold(b.Agent), casefold(o.Agent))
			if same || (b.Active() && o.Active()) {
				return nil, fail(lineOf[k]+1, "overlapping claims of %s and %s in %s", o.Agent, b.Agent, sec)
			}
		}
	}
	return bundles, nil
}

// normalizeResources validates and normalizes a bundle's resources and refuses
// duplicates inside it.
func normalizeResources(sec TeamSection, dir string, in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, inputErr("a claim needs at least one resource")
	}
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, r := range in {
		var n string
		var err error
		if sec == SectionToolClaims {
			n, err = NormalizeTool(r)
		} else {
			n, err = NormalizeFileResource(dir, r)
		}
		if err != nil {
			return nil, err
		}
		if seen[casefold(n)] {
			return nil, inputErr("resource %q is named twice", r)
		}
		seen[casefold(n)] = true
		out = append(out, n)
	}
	return out, nil
}

// render returns the file's text with the changed sections (dirty) replaced by
// pending: the new entries, put where the old ones stood, or (whole) the new body.
func (t *TeamLock) render() string {
	return t.renderLines(t.pending, t.dirty)
}

// migrate returns the sectioned form of a file without markers: its content, a blank
// line and the four empty sections.
func (t *TeamLock) migrate() (*TeamLock, error) {
	text := strings.TrimRight(strings.Join(t.lines, "\n"), "\n") + "\n" + TeamSectionsTemplate()
	return ParseTeamLock(t.Path, []byte(text), true)
}

func (t *TeamLock) renderLines(replace [4][]string, changed [4]bool) string {
	var out []string
	pos := 0
	for s := 0; s < 4; s++ {
		start, end := t.body[s][0], t.body[s][1]
		out = append(out, t.lines[pos:start]...)
		switch {
		case !changed[s]:
			out = append(out, t.lines[start:end]...)
		case t.whole[s]:
			out = append(out, replace[s]...)
		default:
			out = append(out, spliceSection(t.lines[start:end], replace[s])...)
		}
		pos = end
	}
	out = append(out, t.lines[pos:]...)
	return strings.TrimRight(strings.Join(out, "\n"), "\n") + "\n"
}

// spliceSection puts entries where the first old entry stood, keeping comments and
// blank lines; with no old entry they go at the end, before trailing blank lines.
func spliceSection(old []string, entries []string) []string {
	first := -1
	var kept []string
	for _, line := range old {
		s := strings.TrimSpace(line)
		if s != "" && !strings.HasPrefix(s, "#") {
			if first < 0 {
				first = len(kept)
			}
			continue
		}
		kept = append(kept, line)
	}
	if first < 0 {
		first = len(kept)
		for first > 0 && strings.TrimSpace(kept[first-1]) == "" {
			first--
		}
	}
	out := make([]string, 0, len(kept)+len(entries))
	out = append(out, kept[:first]...)
	out = append(out, entries...)
	return append(out, kept[first:]...)
}

// stateColumn is how the reference spaces each state before order= (two spaces after
// EDITING, three after USING, one after WAITING).
var stateColumn = map[string]string{StateEditing: "EDITING  ", StateUsing: "USING   ", StateWaiting: "WAITING "}

// formatBundle renders a claim line: `[a] EDITING  order=000001 | r | r`.
func formatBundle(b Bundle) string {
	return fmt.Sprintf("[%s] %sorder=%06d | %s", b.Agent, stateColumn[b.State], b.Order, strings.Join(b.Resources, " | "))
}

func formatPresence(e PresenceEntry) string {
	return fmt.Sprintf("[%s] | [%s] | %s | %s | %s", e.LoopID, e.Agent, e.Role, e.Task, e.Start)
}

// osLstatRegular checks that path is an existing regular file, not a symbolic link.
func osLstatRegular(path string) (os.FileInfo, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (symbolic links are refused)", path)
	}
	return st, nil
}
