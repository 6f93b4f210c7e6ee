package lockcore

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// DefaultQuarantine is how long a contested claim waits for a synced folder to show
// rival claims before it decides (LOCK-SYSTEM.md "Contested Locks").
const DefaultQuarantine = 300 * time.Second

// LooksLikeAutomation reports whether the caller is an automation rather than a person:
// LOCK_MASTER_AUTOMATION is 1/true/yes, or any of CI, TF_BUILD, GITHUB_ACTIONS,
// SCHEDULED_TASK is set, or stdin is not a terminal.
func LooksLikeAutomation(getenv func(string) string, stdinTTY bool) bool {
	switch strings.ToLower(strings.TrimSpace(getenv("LOCK_MASTER_AUTOMATION"))) {
	case "1", "true", "yes":
		return true
	}
	for _, k := range []string{"CI", "TF_BUILD", "GITHUB_ACTIONS", "SCHEDULED_TASK"} {
		if getenv(k) != "" {
			return true
		}
	}
	return !stdinTTY
}

// ShouldContest decides whether a fresh claim at path goes through the contest
// procedure: force (from --contested / --no-contest) decides when set; otherwise only
// an automation in a cloud-synced folder (CloudPressure) contests, because the
// quarantine costs minutes and only pays off where sync delays can hide a rival claim.
func ShouldContest(path string, force *bool, automation bool) (bool, string) {
	if force != nil {
		return *force, "set explicitly"
	}
	cloud, how := CloudPressure(path)
	if !cloud {
		return false, "not a cloud-synced folder"
	}
	if !automation {
		return false, "cloud folder (" + how + "), but an interactive caller"
	}
	return true, "automation in a cloud-synced folder (" + how + ")"
}

// ContestResult is the outcome of the contest's decision.
type ContestResult struct {
	Won    bool
	Reason string
	// Winner is the winning rival when the claim lost to one.
	Winner *Lock
}

// ResolveContest decides a contest for the lock at myPath, as the reference's
// resolve_contest does: my lock gone or expired loses; rivals are the other live team
// locks in the same directory with an overlapping scope and another host (taken from
// the file name, lower-cased); the earliest created (or mtime) wins, a tie goes to the
// smaller host. Non-team locks have no rivals.
func ResolveContest(myPath string, now time.Time, loc *time.Location) (ContestResult, error) {
	mine, err := ReadLock(myPath, loc)
	if errors.Is(err, fs.ErrNotExist) {
		return ContestResult{Reason: "own lock file is gone"}, nil
	}
	if err != nil {
		return ContestResult{}, err
	}
	if mine.Expired(now) {
		return ContestResult{Reason: "own lock has expired"}, nil
	}
	locks, err := ReadDir(filepath.Dir(myPath), loc)
	if err != nil {
		return ContestResult{}, err
	}
	myHost := contestHost(mine)
	claims := []*Lock{mine}
	for _, l := range locks {
		if l.File == mine.File || l.Kind != Team || l.Expired(now) || !ScopesOverlap(mine.Scope, l.Scope) {
			continue
		}
		if contestHost(l) == myHost {
			continue
		}
		claims = append(claims, l)
	}
	if len(claims) == 1 {
		return ContestResult{Won: true, Reason: "no rival claims"}, nil
	}
	sort.SliceStable(claims, func(i, j int) bool {
		a, b := claims[i], claims[j]
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return contestHost(a) < contestHost(b)
	})
	w := claims[0]
	if w == mine {
		return ContestResult{Won: true, Reason: fmt.Sprintf("earliest of %d claims", len(claims))}, nil
	}
	host := w.Name.Host
	if host == "" {
		host = w.Host
	}
	if w.Created.Equal(mine.Created) {
		return ContestResult{Reason: "tie, host order decides for " + host, Winner: w}, nil
	}
	return ContestResult{Reason: "earlier claim by " + host + " (" + w.File + ")", Winner: w}, nil
}

func contestHost(l *Lock) string { return strings.ToLower(l.Name.Host) }

// ContestOptions drive Contest; tests pass a sleeper that does not sleep.
type ContestOptions struct {
	Quarantine time.Duration
	Sleep      func(time.Duration)
	// Now reads the time after the quarantine.
	Now func() time.Time
	Loc *time.Location
}

// Contest runs stage 2 for the fresh claim at myPath carrying myFence: quarantine,
// recheck, decide. A loser removes its own lock (only if it still carries myFence) and
// gets a *LostContestError.
func Contest(myPath string, myFence int64, opt ContestOptions) (ContestResult, error) {
	if opt.Quarantine > 0 && opt.Sleep != nil {
		opt.Sleep(opt.Quarantine)
	}
	res, err := ResolveContest(myPath, opt.Now(), opt.Loc)
	if err != nil || res.Won {
		return res, err
	}
	// When the file no longer carries myFence, the claim is already gone: nothing of
	// ours is left to remove, and someone else's lock is never touched.
	_, rerr := RemoveIfFence(myPath, myFence)
	return res, &LostContestError{Path: myPath, Reason: res.Reason, Removed: rerr == nil, RemoveErr: rerr}
}
