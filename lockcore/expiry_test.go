package lockcore_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/lockcore"
)

// cest is the "local time" of these tests: a fixed zone, so results do not depend on
// the machine.
var cest = time.FixedZone("CEST", 2*3600)

func TestParseDurationFollowsTheReference(t *testing.T) {
	cases := []struct {
		name     string
		in       string
		want     time.Duration
		ok, over bool
	}{
		{"zero hours is a zero lifetime", "0h", 0, true, false},
		{"spaces and upper case are allowed", " 5 H ", 5 * time.Hour, true, false},
		{"seconds", "10s", 10 * time.Second, true, false},
		{"minutes", "30m", 30 * time.Minute, true, false},
		{"days", "2d", 48 * time.Hour, true, false},
		{"a space between number and unit", "24 h", 24 * time.Hour, true, false},
		{"leading zeros are read", "0000001s", time.Second, true, false},
		{"weeks are not a unit", "1w", 24 * time.Hour, false, false},
		{"fractions are invalid", "1.5h", 24 * time.Hour, false, false},
		{"negative numbers are invalid", "-1h", 24 * time.Hour, false, false},
		{"an empty value means 24h", "", 24 * time.Hour, false, false},
		{"words are invalid", "abc", 24 * time.Hour, false, false},
		{"a unit alone is invalid", "h", 24 * time.Hour, false, false},
		{"two units are invalid", "1h30m", 24 * time.Hour, false, false},
		{"a huge number overflows", "999999999999999999999d", 0, true, true},
		{"more days than the reference can hold overflow", "1000000000d", 0, true, true},
		{"the reference's largest lifetime does not overflow", "999999999d", time.Duration(math.MaxInt64), true, false},
		{"a lifetime beyond a Duration saturates", "999999d", time.Duration(math.MaxInt64), true, false},
		{"100000 days still fit a Duration", "100000d", 100000 * 24 * time.Hour, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, ok, over := lockcore.ParseDuration(c.in)
			assert.Equal(t, c.want, d)
			assert.Equal(t, c.ok, ok)
			assert.Equal(t, c.over, over)
		})
	}
}

func TestParseTimeReadsTheCreatedFormats(t *testing.T) {
	at := func(y int, mo time.Month, d, h, mi, s int) time.Time { return time.Date(y, mo, d, h, mi, s, 0, cest) }
	cases := []struct {
		name string
		in   string
		want time.Time
		ok   bool
	}{
		{"date, T and seconds", "2026-01-05T10:20:30", at(2026, 1, 5, 10, 20, 30), true},
		{"date, space and seconds", "2026-01-05 10:20:30", at(2026, 1, 5, 10, 20, 30), true},
		{"date and minutes", "2026-01-05T10:20", at(2026, 1, 5, 10, 20, 0), true},
		{"date only is midnight", "2026-01-05", at(2026, 1, 5, 0, 0, 0), true},
		{"single digits are accepted as strptime does", "2026-1-5 1:2:3", at(2026, 1, 5, 1, 2, 3), true},
		{"surrounding spaces are trimmed", "  2026-01-05T10:20  ", at(2026, 1, 5, 10, 20, 0), true},
		{"several spaces between date and time are accepted", "2026-01-05   10:20", at(2026, 1, 5, 10, 20, 0), true},
		{"an RFC 3339 offset is converted", "2026-01-05T10:20:30+00:00", at(2026, 1, 5, 12, 20, 30), true},
		{"Z is UTC", "2026-01-05T10:20:30Z", at(2026, 1, 5, 12, 20, 30), true},
		{"an offset without seconds", "2026-10-08T12:00-07:00", at(2026, 10, 8, 21, 0, 0), true},
		{"an offset with fractional seconds", "2026-01-05T10:20:30.5+02:00", at(2026, 1, 5, 10, 20, 30).Add(500 * time.Millisecond), true},
		{"an offset without a colon", "2026-01-05T10:20:30+0100", at(2026, 1, 5, 11, 20, 30), true},
		{"a space and an offset", "2026-01-05 10:20+02:00", at(2026, 1, 5, 10, 20, 0), true},
		{"the template placeholder is not a time", "YYYY-MM-DDTHH:MM", time.Time{}, false},
		{"February 30th does not exist", "2026-02-30", time.Time{}, false},
		{"month 13 does not exist", "2026-13-01", time.Time{}, false},
		{"hour 24 does not exist", "2026-01-05T24:00", time.Time{}, false},
		{"second 60 is refused", "2026-01-05T10:20:60", time.Time{}, false},
		{"fractional seconds without an offset are refused", "2026-01-05 10:20:30.5", time.Time{}, false},
		{"an hour alone is refused", "2026-01-05T10", time.Time{}, false},
		{"year zero is refused", "0000-01-01", time.Time{}, false},
		{"a two-digit year is refused", "26-01-05", time.Time{}, false},
		{"an empty value is refused", "", time.Time{}, false},
		{"words are refused", "sometime next autumn", time.Time{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := lockcore.ParseTime(c.in, cest)
			require.Equal(t, c.ok, ok)
			if ok {
				assert.True(t, c.want.Equal(got), "got %v, want %v", got, c.want)
				assert.Equal(t, cest, got.Location())
			}
		})
	}
}

func TestFormatCreatedWritesLocalSecondsWithoutOffset(t *testing.T) {
	assert.Equal(t, "2026-01-05T07:08:09", lockcore.FormatCreated(time.Date(2026, 1, 5, 7, 8, 9, 500, cest)))
}

func TestClocksTellTheTimeTheyWereGiven(t *testing.T) {
	at := time.Date(2026, 1, 5, 7, 8, 9, 0, cest)
	assert.Equal(t, at, lockcore.FixedClock(at).Now())
	assert.Equal(t, at, lockcore.ClockFunc(func() time.Time { return at }).Now())
}
