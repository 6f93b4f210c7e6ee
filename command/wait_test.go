package command

import (
	"testing"
	"time"

	"github.com/guardlocks/guard/guard"
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
		if _, err := parseWait(bad); guard.ExitCode(err) != guard.ExitUsage {
			t.Errorf("parseWait(%q) = %v, want a usage error", bad, err)
		}
	}
}
