package lockcore

import "time"

// A Clock tells the current time. The library never calls time.Now itself, so that
// tests can pin the moment and the local time zone (the zone of Now is the "local time"
// in which zone-less created and not_before values are read).
type Clock interface {
	Now() time.Time
}

// ClockFunc adapts a function to a Clock.
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }

// FixedClock is a Clock that always returns the same instant.
type FixedClock time.Time

// Now returns the fixed instant.
func (c FixedClock) Now() time.Time { return time.Time(c) }
