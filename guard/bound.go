package guard

import (
	"fmt"
	"time"
)

// belowBound bounds the walks below folders of one Check (Request.MaxBelow and
// Request.BelowUntil): a caller that must answer in time, the agent hook, cannot wait
// for a walk of the whole file system (`rm -rf /*`), and a client that times its hook
// out may run the command unjudged.
type belowBound struct {
	max   int
	until time.Time
	read  int
}

// next counts one more folder and says why the walk must stop, or "" to go on.
func (b *belowBound) next(now func() time.Time) string {
	b.read++
	if b.max > 0 && b.read > b.max {
		return fmt.Sprintf("more than %d folders lie below the paths checked", b.max)
	}
	// The clock is read every 256 folders only: a walk costs microseconds a folder.
	if !b.until.IsZero() && b.read%256 == 0 && now().After(b.until) {
		return fmt.Sprintf("checking them took longer than guard may (stopped after %d folders)", b.read)
	}
	return ""
}
