package lockcore

import (
	"github.com/guardlocks/guard/internal/lazyre"
	"math"
	"strconv"
	"strings"
	"time"
)

// DefaultExpiry is the lifetime of a lock whose expires_after is missing or invalid.
const DefaultExpiry = 24 * time.Hour

// maxLifetimeDays is the largest lifetime the reference can represent (Python's
// timedelta stops at 999999999 days); anything larger is an overflow there, and the
// reference then treats the lock as expired.
const maxLifetimeDays = 999999999

var durationRE = lazyre.New(`(?i)^\s*([0-9]+)\s*([smhd])\s*$`)

var unitSeconds = map[string]int64{"s": 1, "m": 60, "h": 3600, "d": 86400}

// ParseDuration parses an expires_after value: <int><s|m|h|d>, any case, spaces
// allowed. ok is false (and d is DefaultExpiry) when the value is missing or invalid.
// overflow is set when the lifetime is larger than the reference can represent
// (more than 999999999 days); the reference then treats the lock as expired, and so
// does Lock.Expired. A lifetime that fits the reference but not a time.Duration (about
// 292 years) saturates d at the largest Duration; Lock.ExpiresAt still computes the
// exact moment.
func ParseDuration(v string) (d time.Duration, ok, overflow bool) {
	secs, ok, overflow := parseLifetime(v)
	return lifetimeDuration(secs, ok, overflow), ok, overflow
}

// lifetimeDuration is ParseDuration's d for what parseLifetime returned.
func lifetimeDuration(secs int64, ok, overflow bool) time.Duration {
	switch {
	case !ok:
		return DefaultExpiry
	case overflow:
		return 0
	case secs > int64(math.MaxInt64/time.Second):
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(secs) * time.Second
}

// parseLifetime returns the lifetime in seconds.
func parseLifetime(v string) (secs int64, ok, overflow bool) {
	m := durationRE.FindStringSubmatch(v)
	if m == nil {
		return 0, false, false
	}
	unit := unitSeconds[strings.ToLower(m[2])]
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > maxLifetimeDays*86400/unit {
		return 0, true, true
	}
	return n * unit, true, false
}

// addLifetime returns created + secs, exact beyond a time.Duration. A moment past the
// reference's calendar (year 9999) is still a moment in the future, and CONTRACT.md
// defines expiry as now > created + expires_after, so such a lock is not expired
// (the reference would overflow and call it expired; guard fails closed instead).
func addLifetime(created time.Time, secs int64) time.Time {
	return created.AddDate(0, 0, int(secs/86400)).Add(time.Duration(secs%86400) * time.Second)
}

// timeRE is the reference's created layouts (%Y-%m-%d[ %H:%M[:%S]] after every T became
// a space): strptime accepts one or two digits for every field but the year.
var timeRE = lazyre.New(`^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:\s+([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,2}))?)?$`)

// offsetLayouts are the forms with a time-zone offset that guard reads as written
// (the reference falls back to the mtime for created, and reads them with
// fromisoformat for not_before).
var offsetLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04Z07:00",
	"2006-01-02 15:04Z07:00",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05.999999999Z07:00",
	// Offsets without a colon, which fromisoformat also reads.
	"2006-01-02T15:04:05.999999999-0700",
	"2006-01-02 15:04:05.999999999-0700",
	"2006-01-02T15:04-0700",
	"2006-01-02 15:04-0700",
}

// ParseTime parses a created or not_before value: YYYY-MM-DD[T| ]HH:MM[:SS] or
// YYYY-MM-DD in loc (the local time zone), or RFC 3339 with an offset (guard reads the
// offset as written; the reference would fall back to the file's mtime). The result
// is in loc.
func ParseTime(v string, loc *time.Location) (time.Time, bool) {
	if loc == nil {
		loc = time.Local
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	for _, layout := range offsetLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t.In(loc), true
		}
	}
	m := timeRE.FindStringSubmatch(strings.ReplaceAll(v, "T", " "))
	if m == nil {
		return time.Time{}, false
	}
	num := func(s string) int {
		n, _ := strconv.Atoi(s)
		return n
	}
	y, mo, d := num(m[1]), num(m[2]), num(m[3])
	h, mi, s := num(m[4]), num(m[5]), num(m[6])
	if y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, 0, loc)
	if t.Day() != d || t.Month() != time.Month(mo) {
		return time.Time{}, false // 2026-02-30: no such day
	}
	return t, true
}

// FormatCreated formats t as guard and the reference write created: local time with
// seconds, no offset.
func FormatCreated(t time.Time) string { return t.Format("2006-01-02T15:04:05") }
