package lockcore

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// DefaultExpiry is the lifetime of a lock whose expires_after is missing or invalid.
const DefaultExpiry = 24 * time.Hour

var durationRE = regexp.MustCompile(`(?i)^\s*(\d+)\s*([smhd])\s*$`)

// ParseDuration parses an expires_after value: <int><s|m|h|d>, any case, spaces
// allowed. ok is false (and d is DefaultExpiry) when the value is missing or invalid.
// overflow is set when the number is too large for a time.Duration; the reference
// then treats the lock as expired, and so does Lock.Expired.
func ParseDuration(v string) (d time.Duration, ok, overflow bool) {
	m := durationRE.FindStringSubmatch(v)
	if m == nil {
		return DefaultExpiry, false, false
	}
	unit := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}[strings.ToLower(m[2])]
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > int64(math.MaxInt64/unit) {
		return 0, true, true
	}
	return time.Duration(n) * unit, true, false
}

var createdLayouts = []string{"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"}

// ParseTime parses a created or not_before value: YYYY-MM-DD[T| ]HH:MM[:SS] or
// YYYY-MM-DD in loc (the local time zone), or RFC 3339 with an offset (guard reads the
// offset as written; the reference would fall back to the file's mtime).
func ParseTime(v string, loc *time.Location) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.In(loc), true
	}
	// Offsets without seconds ("2026-10-08T12:00-07:00"), as Python's fromisoformat
	// reads them.
	for _, layout := range []string{"2006-01-02T15:04Z07:00", "2006-01-02 15:04Z07:00", "2006-01-02 15:04:05Z07:00"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.In(loc), true
		}
	}
	s := strings.ReplaceAll(v, "T", " ")
	for _, layout := range createdLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// FormatCreated formats t as guard and the reference write created: local time with
// seconds, no offset.
func FormatCreated(t time.Time) string { return t.Format("2006-01-02T15:04:05") }
