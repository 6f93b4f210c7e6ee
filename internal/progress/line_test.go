package progress

import (
	"strings"
	"testing"
	"time"
)

func TestNotATerminalIsNil(t *testing.T) {
	var b strings.Builder
	l := New(&b, false, time.Now, 0)
	if l != nil {
		t.Fatal("New at no terminal is not nil")
	}
	l.Show("x %d", 1)
	l.Force("y")
	l.Clear()
	if b.Len() != 0 || l.Shown() {
		t.Fatalf("a nil Line wrote %q", b.String())
	}
}

func TestDelayThrottleAndClear(t *testing.T) {
	var b strings.Builder
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := New(&b, true, func() time.Time { return now }, 500*time.Millisecond)
	l.Show("a")
	if b.Len() != 0 {
		t.Fatalf("drawn before the delay: %q", b.String())
	}
	now = now.Add(500 * time.Millisecond)
	l.Show("b %d", 1)
	now = now.Add(Every / 2)
	l.Show("c") // too soon
	now = now.Add(Every)
	l.Show("d")
	l.Clear()
	l.Clear()
	if got, want := b.String(), "\rb 1\x1b[K\rd\x1b[K\r\x1b[K"; got != want {
		t.Fatalf("wrote %q, want %q", got, want)
	}
}
