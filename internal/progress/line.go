// Package progress draws one status line at a terminal and rewrites it in place
// ("\r", the text, erase to the end of the line), the way gh and git do, so that
// nothing of it is left once the work is done. A Line that is not at a terminal is
// nil, and every method of a nil Line does nothing: callers need no test of their own.
package progress

import (
	"fmt"
	"io"
	"time"
)

// Line is one rewritten status line on a terminal's stream.
type Line struct {
	w     io.Writer
	now   func() time.Time
	start time.Time
	delay time.Duration
	last  time.Time
	shown bool
}

// Every is how often a Line is redrawn at most: often enough to look alive, rarely
// enough that drawing never shows in a run's time.
const Every = 100 * time.Millisecond

// New returns a Line on w when tty (w is a terminal), nil otherwise. Nothing is drawn
// before delay has passed since now(), so that work that ends quickly shows nothing.
func New(w io.Writer, tty bool, now func() time.Time, delay time.Duration) *Line {
	if !tty || w == nil || now == nil {
		return nil
	}
	t := now()
	return &Line{w: w, now: now, start: t, delay: delay}
}

// Show draws the line, unless it was drawn less than Every ago or the delay has not
// passed yet.
func (l *Line) Show(format string, args ...any) {
	if l == nil {
		return
	}
	t := l.now()
	if t.Sub(l.start) < l.delay || (l.shown && t.Sub(l.last) < Every) {
		return
	}
	l.Force(format, args...)
}

// Force draws the line now, whatever the delay and the last drawing.
func (l *Line) Force(format string, args ...any) {
	if l == nil {
		return
	}
	l.last = l.now()
	l.shown = true
	fmt.Fprintf(l.w, "\r"+format+"\x1b[K", args...)
}

// Shown reports whether anything was drawn (and not yet cleared).
func (l *Line) Shown() bool { return l != nil && l.shown }

// Clear erases the line if anything was drawn, so that what follows starts on a clean
// line.
func (l *Line) Clear() {
	if l == nil || !l.shown {
		return
	}
	fmt.Fprint(l.w, "\r\x1b[K")
	l.shown = false
}

// Delay is how long work runs before its line appears, where most runs end sooner
// (a scan, a walk for clones): a fast run shows nothing at all.
const Delay = 500 * time.Millisecond
