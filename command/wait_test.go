package command

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/guardlocks/guard/internal/testing/guardtest"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
)

func TestParseWait(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"0", 0}, {"000", 0}, {"0s", 0}, {"90s", 90 * time.Second}, {" 5 M ", 5 * time.Minute},
		{"2h", 2 * time.Hour}, {"1d", 24 * time.Hour},
	} {
		got, err := parseWait(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseWait(%q) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"5", "-1s", "1w", "soon", "1.5h", "999999999999d"} {
		if _, err := parseWait(bad); exitcode.Of(err) != exitcode.Usage {
			t.Errorf("parseWait(%q) = %v, want a usage error", bad, err)
		}
	}
}

// At a terminal the wait is one line, rewritten with the time waited out of the limit
// and erased at the end; elsewhere it is one plain line per lock waited for, and
// nothing is rewritten.
func TestWaitProgressShowsElapsedAndLimitAtATerminal(t *testing.T) {
	t0 := envtest.Now
	for _, tty := range []bool{true, false} {
		clock := guardtest.NewClock(t0)
		e := envtest.New(envtest.Clock(clock))
		e.StderrTTY = tty
		onWait, stop := waitProgress(e.Env, "lock", 30*time.Minute)
		st := lockcore.WaitState{Path: "/p/LOCK.txt", Blocker: &lockcore.Lock{Path: "/p/LOCK.txt", Owner: "bob", Purpose: "parser refactor"}, Since: t0}
		onWait(st)
		clock.Advance(80 * time.Second)
		onWait(st)
		stop()
		got := e.Err.String()
		if tty {
			assert.Contains(t, got, "\rwaiting for /p/LOCK.txt held by bob: parser refactor, 0s of 30m\x1b[K")
			assert.Contains(t, got, "\rwaiting for /p/LOCK.txt held by bob: parser refactor, 1m20s of 30m\x1b[K")
			assert.True(t, strings.HasSuffix(got, "\r\x1b[K"), "the line is erased at the end: %q", got)
			assert.NotContains(t, got, "\n")
		} else {
			assert.Equal(t, "guard lock: waiting for /p/LOCK.txt held by bob: parser refactor (up to 30m)\n", got)
		}
	}
}
