package guard

import "time"

// WatchScan is the result of one full scan by the watcher (guard watch, guard serve):
// what it found and what changed since its previous view. Like Event, it is shared
// vocabulary between the watcher, which makes it, and the web server, which shows it.
type WatchScan struct {
	// At is when the scan finished; Type is "initial" (at start), "full" (the periodic
	// rescan) or "request" (asked for, POST /api/scan).
	At         time.Time     `json:"at"`
	Type       string        `json:"type"`
	Duration   time.Duration `json:"-"`
	DurationMS int64         `json:"duration_ms"`
	// LocksFound counts the lock files found (active and expired), Active the active.
	LocksFound int `json:"locks_found"`
	Active     int `json:"active"`
	// New, Modified, Expired and Deleted count what changed since the watcher's view
	// before the scan (the reference's fields); Events how many events it emitted.
	New      int `json:"new"`
	Modified int `json:"modified"`
	Expired  int `json:"expired"`
	Deleted  int `json:"deleted"`
}
