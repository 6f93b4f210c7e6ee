package lockcore

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// renewBody returns data with created moved to now and, when expires is set (and the
// kind has a lifetime), expires_after replaced. Every other line, unknown fields and
// team sections included, is kept as written.
func renewBody(data []byte, now time.Time, expires string, kind Kind) ([]byte, error) {
	given := map[string]string{}
	if expires != "" {
		given["expires_after"] = expires
	}
	nb, _, err := updateBody(data, now, filterLifetime(given, kind))
	return nb, err
}

// given returns the body fields a claim states explicitly (non-empty options), for
// the renewal of the caller's own lock.
func (s Spec) given(kind Kind) map[string]string {
	g := map[string]string{}
	if s.Expires != "" {
		g["expires_after"] = s.Expires
	}
	if s.Mode != "" {
		g["mode"] = strings.ToLower(s.Mode)
	}
	if len(s.Operations) > 0 {
		g["operations"] = strings.Join(s.Operations, ", ")
	}
	if s.Purpose != "" {
		g["purpose"] = s.Purpose
	}
	if s.ReleaseCondition != "" {
		g["release_condition"] = s.ReleaseCondition
	}
	if kind == Until && strings.TrimSpace(s.NotBefore) != "" {
		g["not_before"] = strings.TrimSpace(s.NotBefore)
	}
	return filterLifetime(g, kind)
}

// filterLifetime drops expires_after for the kinds that carry none (user, condition
// and until locks), as Spec.Body does.
func filterLifetime(g map[string]string, kind Kind) map[string]string {
	if kind == User || kind == Condition || kind == Until {
		delete(g, "expires_after")
	}
	return g
}

// updateBody returns data with created moved to now and the given fields set, and the
// names of the given fields whose value changed. Every other line, unknown fields and
// team sections included, is kept as written.
func updateBody(data []byte, now time.Time, given map[string]string) ([]byte, []string, error) {
	set := map[string]string{"created": FormatCreated(now)}
	for k, v := range given {
		if k == "expires_after" {
			norm, ok := NormalizeDuration(v)
			if !ok {
				return nil, nil, fmt.Errorf("%w: expires %q %s", ErrInvalid, v, ExpiresProblem(v))
			}
			v = norm
		}
		if !singleLine(v) {
			return nil, nil, fmt.Errorf("%w: field values must be one line", ErrInvalid)
		}
		set[k] = v
	}
	// The values as every reader sees them (the last duplicate wins).
	old := ParseFields(data).Values
	var updated []string
	for _, k := range updatableFields {
		if v, ok := set[k]; ok && old[k] != v {
			updated = append(updated, k)
		}
	}
	return setFields(data, set), updated, nil
}

// updatableFields are the fields a renewal may set besides created, in the order
// Spec.Body writes them.
var updatableFields = []string{"expires_after", "release_condition", "operations", "not_before", "mode", "purpose"}

// setFields rewrites the value of every line of the given keys, and inserts a missing
// key after the owner line (or at the top). Lines are what the readers take for
// lines (splitLines), so that the value set is the value read.
func setFields(data []byte, set map[string]string) []byte {
	text := string(data)
	bom := ""
	if strings.HasPrefix(text, "\ufeff") {
		bom, text = "\ufeff", strings.TrimPrefix(text, "\ufeff")
	}
	lines := splitKeepEnds(text)
	// New and completed lines end as the file's first line does (CRLF stays CRLF).
	nl := "\n"
	if len(lines) > 0 && lines[0].eol == "\r\n" {
		nl = "\r\n"
	}
	seen := map[string]bool{}
	insertAt := 0
	for i, line := range lines {
		k, _, ok := fieldLine(line.body)
		if !ok {
			continue
		}
		if k == "owner" && insertAt == 0 {
			insertAt = i + 1
		}
		if v, ok := set[k]; ok {
			lines[i].body = k + ": " + v
			if lines[i].eol == "" {
				lines[i].eol = nl
			}
			seen[k] = true
		}
	}
	var add []string
	for _, k := range append([]string{"created"}, updatableFields...) {
		if v, ok := set[k]; ok && !seen[k] {
			add = append(add, k+": "+v+nl)
		}
	}
	if insertAt > 0 && lines[insertAt-1].eol == "" {
		lines[insertAt-1].eol = nl // the new lines follow it
	}
	var b strings.Builder
	b.WriteString(bom)
	for i, l := range lines {
		if i == insertAt {
			b.WriteString(strings.Join(add, ""))
		}
		b.WriteString(l.body + l.eol)
	}
	if insertAt == len(lines) {
		b.WriteString(strings.Join(add, ""))
	}
	return []byte(b.String())
}

// keptLine is one line of a body and the line break that ended it ("" for a last
// line without one).
type keptLine struct{ body, eol string }

// splitKeepEnds splits s into lines where the readers do (splitLines: \r\n, \n, \r,
// \v, \f, \x1c-\x1e, U+0085, U+2028, U+2029), each line keeping its terminator.
func splitKeepEnds(s string) []keptLine {
	var lines []keptLine
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isLineBreak(r) {
			if r == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
			lines = append(lines, keptLine{s[start:i], s[i : i+size]})
			start = i + size
		}
		i += size
	}
	if start < len(s) {
		lines = append(lines, keptLine{body: s[start:]})
	}
	return lines
}
