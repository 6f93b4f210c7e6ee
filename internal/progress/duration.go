package progress

import (
	"strconv"
	"time"
)

// Duration writes d the way a person reads it on a progress line: whole seconds, the
// zero units left out ("1m20s", "30m", "2h5m", "1d3h", "0s"), where time.Duration's
// String says "30m0s".
func Duration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d.Round(time.Second) / time.Second)
	if s == 0 {
		return "0s"
	}
	out := ""
	for _, u := range []struct {
		secs int64
		name string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}} {
		if n := s / u.secs; n > 0 {
			out += strconv.FormatInt(n, 10) + u.name
			s -= n * u.secs
		}
	}
	return out
}
