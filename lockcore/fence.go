package lockcore

import (
	"errors"
	"fmt"
	"github.com/guardlocks/guard/internal/lazyre"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"time"
)

// FenceState is the verdict of FenceStatus: whether a holder's lease is still current.
type FenceState string

// The FenceStatus verdicts (REFERENCE-LATER.md section 7).
const (
	FenceHeld    FenceState = "held"
	FenceLost    FenceState = "lost"
	FenceUnknown FenceState = "unknown"
)

var myFenceRE = lazyre.New(`^[0-9]{1,19}$`)

// NewFence returns the fence for a new lock: the current time in Unix microseconds,
// but at least previous+1, so that a takeover or a forced replacement of a lock name
// always carries a larger number than the lock it displaced, even if the clock went
// backwards. previous is 0 when the lock name had no fenced predecessor. Unlike the
// reference there is no process-wide "last fence": the predecessor's fence is the
// only floor, which keeps the function pure.
func NewFence(previous int64, now time.Time) int64 {
	fence := now.UnixMicro()
	// At math.MaxInt64 there is no larger number: saturate rather than wrap negative.
	if previous >= fence && previous < math.MaxInt64 {
		fence = previous + 1
	} else if previous == math.MaxInt64 {
		fence = previous
	}
	return fence
}

// FenceStatus tells a holder that recorded myFence when it took the lock at lockPath
// whether its lease is still current. It reads the file exactly once (one open, one
// read from that descriptor), so the verdict describes one consistent version of the
// file. The reason explains a lost verdict in the reference's words:
//
//   - myFence empty: unknown (the holder predates fencing);
//   - myFence not 1-19 decimal digits: lost;
//   - file gone or unreadable: lost;
//   - file without a (valid) fence: lost, "carries no fence";
//   - file fence larger: lost, "lease moved on: fence X > own fence Y";
//   - file fence smaller: lost, "fence went backwards";
//   - lock expired at now: lost, "expired";
//   - otherwise held.
func FenceStatus(lockPath string, myFence string, now time.Time, loc *time.Location) (FenceState, string) {
	if myFence == "" {
		return FenceUnknown, "caller recorded no fence (pre-fencing holder)"
	}
	if !myFenceRE.MatchString(myFence) {
		return FenceLost, fmt.Sprintf("own fence %q is not a number of 1-19 digits", myFence)
	}
	mine, err := strconv.ParseInt(myFence, 10, 64)
	if err != nil {
		return FenceLost, fmt.Sprintf("own fence %q is out of range", myFence)
	}
	name := filepath.Base(lockPath)
	data, modTime, err := readRegular(lockPath, MaxLockFileSize, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return FenceLost, "lock file is gone: " + name
		}
		return FenceLost, fmt.Sprintf("lock file is unreadable: %s: %v", name, err)
	}
	l, err := ParseLock(lockPath, data, modTime, loc)
	if err != nil {
		return FenceLost, fmt.Sprintf("lock file is unreadable: %v", err)
	}
	cur, ok := l.Fence()
	if !ok {
		return FenceLost, "lock file carries no fence: " + name
	}
	switch {
	case cur > mine:
		return FenceLost, fmt.Sprintf("lease moved on: fence %d > own fence %d", cur, mine)
	case cur < mine:
		return FenceLost, fmt.Sprintf("fence went backwards: fence %d < own fence %d", cur, mine)
	case l.Expired(now):
		return FenceLost, fmt.Sprintf("own grant expired: %s", name)
	}
	return FenceHeld, fmt.Sprintf("fence %d still current", mine)
}
