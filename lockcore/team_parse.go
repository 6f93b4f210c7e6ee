package lockcore

import (
	"fmt"
	"github.com/guardlocks/guard/internal/lazyre"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The shapes of a team lock's lines that the parser tells apart.
var (
	headerKeyRE  = lazyre.New(`^[a-z][a-z0-9_]*$`)
	orderRE      = lazyre.New(`^[0-9]{1,9}$`)
	legacyHeadRE = lazyre.New(`(?i)^(?:#{1,3}\s*)?(?:\d+[.)]?\s*)?(?:anwesenheit(?:slog)?|presence(?:\s+log)?|dateien?(?:\s+beansprucht)?|files?\s+claimed|files?\s+claims?|tools?(?:\s+claimed|\s+claims?)?|nachrichten|messages?|notes?|queue|warteschlange)\s*:?\s*$`)
)

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

var messageRE = lazyre.New(`^\[([^\]]*)\]\s+\[([^\]]*)\]:\s?(.*)$`)

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
