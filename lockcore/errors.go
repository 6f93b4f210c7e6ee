package lockcore

import (
	"errors"
	"fmt"
)

// Errors callers of the write side branch on (with errors.Is / errors.As).
var (
	// ErrExpired: the lock has expired; it can no longer be renewed, only taken over.
	ErrExpired = errors.New("lock has expired")
	// ErrNotOwner: the lock belongs to someone else (or its token does not match).
	ErrNotOwner = errors.New("lock belongs to someone else")
	// ErrNoLock: there is no lock file at the path.
	ErrNoLock = errors.New("no such lock")
	// ErrUserLock: a user lock is removed only by a person at a terminal, with force.
	ErrUserLock = errors.New("a user lock is removed only by a person (--force from a terminal)")
	// ErrNotRegular: something other than a regular file (a symlink, a directory, a
	// FIFO) sits at the lock path; guard never follows or overwrites it without force.
	ErrNotRegular = errors.New("not a regular file")
	// ErrInvalidLock: a file named like a lock whose body has no readable field at all
	// (binary data); it is held fail closed, as an unreadable lock is.
	ErrInvalidLock = errors.New("not a valid lock file")
	// ErrFenceChanged: the lock file no longer carries the holder's fence (it was
	// replaced or taken over).
	ErrFenceChanged = errors.New("the lock's fence changed")
	// ErrInvalid: the lock request itself is malformed (bad scope or host segment,
	// kinds combined, missing release condition, bad duration or mode).
	ErrInvalid = errors.New("invalid lock request")
)

// ConflictError reports that a live lock of someone else already covers the area, so
// nothing was created. Lock is the holder's lock as read.
type ConflictError struct {
	Lock *Lock
	// Reason says why this lock stops the caller (another owner, another host).
	Reason string
}

// Error names the conflicting lock and why it refuses.
func (e *ConflictError) Error() string {
	l := e.Lock
	msg := fmt.Sprintf("%s is held", l.Path)
	if l.Owner != "" {
		msg += " by " + l.Owner
	}
	if l.Host != "" {
		msg += " on " + l.Host
	}
	if l.HeldIn != "" {
		msg += " (held in " + l.HeldIn + ")"
	}
	if l.CreatedSource != "" {
		msg += " since " + FormatCreated(l.Created)
	}
	if at, ok := l.ExpiresAt(); ok {
		msg += ", until " + FormatCreated(at)
	} else {
		msg += ", until removed"
	}
	if l.Purpose != "" {
		msg += " (" + l.Purpose + ")"
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// LostContestError reports that a claim lost the contest of LOCK-SYSTEM.md; Removed
// tells whether the own lock was removed again (exit 3) or could not be (exit 1).
type LostContestError struct {
	Path    string
	Reason  string
	Removed bool
	// RemoveErr is why the own lock could not be removed.
	RemoveErr error
}

// Error says who won the contest and whether the own lock was removed.
func (e *LostContestError) Error() string {
	if e.Removed {
		return fmt.Sprintf("%s: contest lost (%s); own lock removed", e.Path, e.Reason)
	}
	return fmt.Sprintf("%s: contest lost (%s); own lock could not be removed: %v", e.Path, e.Reason, e.RemoveErr)
}
