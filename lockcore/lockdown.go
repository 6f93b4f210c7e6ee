package lockcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
)

// LockdownOptions are the inputs of a lockdown (LOCK-SYSTEM.md's bulk lock).
type LockdownOptions struct {
	// Owner defaults to "user", as the reference's bulk_lock.
	Owner  string
	Host   string
	Reason string
	Now    time.Time
	// Commit writes; without it the lockdown only reports what it would do.
	Commit bool
	// MutexDir, when set, names the directory whose creation mutex a root's lock is
	// written under (AcquireOptions.MutexDir); nil means the root itself.
	MutexDir func(root string) string
}

// LockdownSkip is a root the lockdown left alone, and why.
type LockdownSkip struct {
	Root   string `json:"root"`
	Reason string `json:"reason"`
}

// LockdownResult is what a lockdown did or would do.
type LockdownResult struct {
	Committed bool           `json:"committed"`
	Locked    []string       `json:"locked"`
	WouldLock []string       `json:"would_lock"`
	Skipped   []LockdownSkip `json:"skipped"`
}

// DefaultLockdownReason is the purpose of a lockdown lock without --reason.
const DefaultLockdownReason = "central immediate lockdown (guard lockdown)"

// LockdownBody is the body of a lockdown lock: a comment line, then owner, created,
// host, fence, created_by: bulk, expires_after: 24h, mode: hard, purpose, scope.
func LockdownBody(owner, host, reason string, created time.Time, fence int64) []byte {
	if reason == "" {
		reason = DefaultLockdownReason
	}
	return []byte(fmt.Sprintf("# bulk lock written by guard lockdown; guard lockdown --undo removes it\n"+
		"owner: %s\ncreated: %s\nhost: %s\nfence: %d\ncreated_by: bulk\nexpires_after: 24h\nmode: hard\npurpose: %s\nscope: project\n",
		owner, FormatCreated(created), host, fence, flatten(reason)))
}

// flatten joins the words of s with single spaces, so that a reason of several lines
// stays the one purpose line (every line break the readers know is a separator).
func flatten(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || isLineBreak(r) }), " ")
}

// Lockdown writes LOCK.txt with created_by: bulk into every root that is a directory
// and holds no active lock and no protected lock (those count as already locked). The
// file is created atomically like any lock; an expired LOCK.txt in the root is taken
// over. Without Commit nothing is written. A root that cannot be written is skipped
// ("could not write") and the others are still locked; the error then names every
// such root.
func Lockdown(roots []string, opt LockdownOptions) (*LockdownResult, error) {
	owner := opt.Owner
	if owner == "" {
		owner = "user"
	}
	if !singleLine(owner) || !singleLine(opt.Host) {
		return nil, fmt.Errorf("%w: owner and host must be one line", ErrInvalid)
	}
	loc := opt.Now.Location()
	res := &LockdownResult{Committed: opt.Commit, Locked: []string{}, WouldLock: []string{}, Skipped: []LockdownSkip{}}
	seen := map[string]bool{}
	var failed []error
	for _, root := range roots {
		root = filepath.Clean(root)
		if seen[root] {
			continue
		}
		seen[root] = true
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			res.Skipped = append(res.Skipped, LockdownSkip{root, "not a directory"})
			continue
		}
		locks, err := ReadDir(root, loc)
		if err != nil {
			res.Skipped = append(res.Skipped, LockdownSkip{root, "unreadable: " + err.Error()})
			continue
		}
		if why := alreadyLocked(locks, opt.Now); why != "" {
			res.Skipped = append(res.Skipped, LockdownSkip{root, why})
			continue
		}
		path := filepath.Join(root, "LOCK.txt")
		if !opt.Commit {
			res.WouldLock = append(res.WouldLock, path)
			continue
		}
		mutexDir := root
		if opt.MutexDir != nil {
			mutexDir = opt.MutexDir(root)
		}
		if err := writeBulk(path, mutexDir, owner, opt.Host, opt.Reason, opt.Now); err != nil {
			var ce *ConflictError
			if errors.As(err, &ce) {
				res.Skipped = append(res.Skipped, LockdownSkip{root, "locked meanwhile: " + ce.Lock.File})
				continue
			}
			// Lock every other root still: a lockdown is an emergency.
			res.Skipped = append(res.Skipped, LockdownSkip{root, "could not write: " + err.Error()})
			failed = append(failed, fmt.Errorf("%s: %w", root, err))
			continue
		}
		res.Locked = append(res.Locked, path)
	}
	return res, errors.Join(failed...)
}

func alreadyLocked(locks []*Lock, now time.Time) string {
	for _, l := range locks {
		if l.Protected() {
			return "protected lock " + l.File
		}
		if l.Active(now) {
			return "active lock " + l.File
		}
	}
	return ""
}

// writeBulk creates path (taking over an expired lock there) with a lockdown body. It
// holds the creation mutex that guard lock holds (of mutexDir) and looks at the root's
// locks again under it, so that a guard lock --scope web in the root that ran after
// Lockdown's first look is seen: the two never both stand.
func writeBulk(path, mutexDir, owner, host, reason string, now time.Time) error {
	loc := now.Location()
	unlock, err := lockDirMutex(mutexDir)
	if err != nil {
		return err
	}
	defer unlock()
	locks, err := ReadDir(filepath.Dir(path), loc)
	if err != nil {
		return err
	}
	for _, l := range locks {
		if l.Path != path && (l.Protected() || l.Active(now)) {
			return &ConflictError{Lock: l, Reason: "it was locked meanwhile"}
		}
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		data, modTime, err := readNoFollow(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			t, err := writeTemp(path, LockdownBody(owner, host, reason, now, NewFence(0, now)))
			if err != nil {
				return err
			}
			if err := t.linkInto(path); err == nil {
				return nil
			} else if !errors.Is(err, fs.ErrExist) && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		case err != nil:
			return err
		default:
			cur, _ := ParseLock(path, data, modTime, loc)
			if cur.Active(now) || cur.Protected() {
				return &ConflictError{Lock: cur}
			}
			prev, _ := cur.Fence()
			_, retry, err := swapIf(path, expect{data: data}, LockdownBody(owner, host, reason, now, NewFence(prev, now)), TookOver, 0, cur, loc)
			if !retry {
				return err
			}
		}
	}
	return fmt.Errorf("%s: the lock kept changing during the lockdown", path)
}

// UndoResult is what a lockdown undo did or would do.
type UndoResult struct {
	Committed   bool           `json:"committed"`
	Unlocked    []string       `json:"unlocked"`
	WouldUnlock []string       `json:"would_unlock"`
	Kept        []LockdownSkip `json:"kept"`
	// Remaining are the manifest entries still to undo (for the manifest rewrite).
	Remaining []string `json:"-"`
}

// UndoLockdown removes the lockdown locks listed in candidates: only a file named
// exactly LOCK.txt, with created_by: bulk, that is not protected, and only if it is
// unchanged between the check and the removal. Without commit nothing is removed.
func UndoLockdown(candidates []string, commit bool, loc *time.Location) (*UndoResult, error) {
	res := &UndoResult{Committed: commit, Unlocked: []string{}, WouldUnlock: []string{}, Kept: []LockdownSkip{}}
	for _, p := range candidates {
		if filepath.Base(p) != "LOCK.txt" {
			res.Kept = append(res.Kept, LockdownSkip{p, "not a LOCK.txt"})
			continue
		}
		data, modTime, err := readNoFollow(p)
		if errors.Is(err, fs.ErrNotExist) {
			res.Kept = append(res.Kept, LockdownSkip{p, "already gone"})
			continue
		}
		if err != nil {
			res.Kept = append(res.Kept, LockdownSkip{p, "unreadable: " + err.Error()})
			res.Remaining = append(res.Remaining, p)
			continue
		}
		l, _ := ParseLock(p, data, modTime, loc)
		if l.Protected() || !l.BulkCreated() {
			res.Kept = append(res.Kept, LockdownSkip{p, "not a lockdown lock any more"})
			continue
		}
		if !commit {
			res.WouldUnlock = append(res.WouldUnlock, p)
			res.Remaining = append(res.Remaining, p)
			continue
		}
		ok, err := RemoveIf(p, data)
		switch {
		case err != nil:
			res.Kept = append(res.Kept, LockdownSkip{p, "could not remove: " + err.Error()})
			res.Remaining = append(res.Remaining, p)
		case !ok:
			res.Kept = append(res.Kept, LockdownSkip{p, "changed meanwhile"})
			res.Remaining = append(res.Remaining, p)
		default:
			res.Unlocked = append(res.Unlocked, p)
		}
	}
	return res, nil
}
