package progress

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                 "0s",
		-time.Second:                      "0s",
		400 * time.Millisecond:            "0s",
		12 * time.Second:                  "12s",
		80 * time.Second:                  "1m20s",
		30 * time.Minute:                  "30m",
		2*time.Hour + 5*time.Minute:       "2h5m",
		27 * time.Hour:                    "1d3h",
		time.Hour + 1500*time.Millisecond: "1h2s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}
