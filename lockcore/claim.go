package lockcore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// The one claim engine: what a claim does about what it finds at the name of the lock
// it claims. The files (Acquire) and a coordination service (package backend) both
// ask DecideClaim, so a claim means the same with or without the service; only how
// the decision is carried out differs (a link(2) or rename(2) here, a transaction
// there).

// Entry is the kind of thing a claim finds at a lock's name.
type Entry int

// The entries a claim can find.
const (
	// EntryNone: nothing; the name is free.
	EntryNone Entry = iota
	// EntryLock: a lock (read from its file, or from the service that holds it).
	EntryLock
	// EntryNotRegular: a symlink, a directory or another non-regular file, never
	// followed.
	EntryNotRegular
	// EntryUnreadable: a regular file that could not be read.
	EntryUnreadable
)

// Found is what a claim finds at the name of the lock it claims.
type Found struct {
	Entry Entry
	// Lock is the lock there (EntryLock). One a service holds has HeldIn set: it is
	// live whatever its times say (Lock.Expired).
	Lock *Lock
	// Freed: the lock file follows a service that no longer holds the lock (its key
	// is gone): it is dead whatever its times say, as an expired lock is.
	Freed bool
	// Path is the lock path; Type the file type of a non-regular entry.
	Path string
	Type fs.FileMode
	// Err is why the file could not be read (EntryUnreadable).
	Err error
	// Data are the bytes of the file judged (EntryLock read from a file): a
	// replacement goes ahead only while the file still holds them.
	Data []byte
}

// ClaimAsk is what a claim asks for, as far as the lock of the same name is
// concerned.
type ClaimAsk struct {
	// Owner claims. Owners compare exactly.
	Owner string
	// Team: the claim is a team lock. A team lock's name carries its host, so one of
	// the same name is this host's team lock.
	Team bool
	// Force replaces whatever holds the name.
	Force bool
	// Now is the time against which expiry is judged.
	Now time.Time
	// Where names the service that holds the project's locks, "" with plain files;
	// a refusal by a lock file the service does not know says so.
	Where string
}

// Clear is the clean-up a decision needs before the claimed lock is written.
type Clear int

// The clean-ups of a claim.
const (
	// ClearNothing: the name is free (created), or what is there stays (renewed,
	// joined, refused).
	ClearNothing Clear = iota
	// ClearEntry: the entry at the name is replaced in place, and only if it is still
	// the one that was judged (Found.Data, or still non-regular, or still there).
	ClearEntry
	// ClearHolder: the service's grant of the holder is released first (its
	// follower file then goes with ClearEntry); only for a lock with HeldIn set.
	ClearHolder
)

// ClaimDecision is what a claim does.
type ClaimDecision struct {
	// Action is what the claim does: Created, Renewed, TookOver, Replaced or Joined;
	// "" when it is refused.
	Action Action
	// Previous is the lock renewed, taken over or replaced (nil for a created lock,
	// for an entry that is no lock, and for a joined team lock, which stays its
	// owner's).
	Previous *Lock
	// Clear is the clean-up before the write.
	Clear Clear
	// Err refuses the claim: a *ConflictError naming the lock, an ErrNotRegular
	// *fs.PathError, or why the file could not be read.
	Err error
}

// DecideClaim decides what a claim does about what it found at the lock's name, in
// this order:
//
//  1. Nothing there: create it.
//  2. A non-regular entry, or a file that cannot be read: refused, unless Force,
//     which replaces it (the entry itself, never what a symlink points to).
//  3. The caller's own live lock: renew it.
//  4. Force: replace it, whoever holds it (a team lock of this host too: --force
//     overwrites, as the reference's lock_create does).
//  5. An expired or freed lock: take it over (an expired own lock too).
//  6. A team lock of this host (the same name), live and another agent's: join it;
//     the agents of one host share it, and nothing is written.
//  7. Another owner's live lock: refused.
//
// It does no I/O: the caller reads (ReadFound, or a service's snapshot), decides
// here and carries the decision out.
func DecideClaim(ask ClaimAsk, found Found) ClaimDecision {
	switch found.Entry {
	case EntryNone:
		return ClaimDecision{Action: Created}
	case EntryNotRegular:
		if !ask.Force {
			return ClaimDecision{Err: &fs.PathError{Op: "lock", Path: found.Path, Err: fmt.Errorf("%w (%s); remove it or use --force", ErrNotRegular, found.Type)}}
		}
		return ClaimDecision{Action: Replaced, Clear: ClearEntry}
	case EntryUnreadable:
		if !ask.Force {
			err := found.Err
			if err == nil {
				err = &fs.PathError{Op: "read", Path: found.Path, Err: ErrInvalidLock}
			}
			return ClaimDecision{Err: err}
		}
		return ClaimDecision{Action: Replaced, Clear: ClearEntry}
	}
	cur := found.Lock
	live := !found.Freed && cur.Active(ask.Now)
	replace := ClearEntry
	if cur.HeldIn != "" {
		replace = ClearHolder
	}
	switch {
	case cur.Owner == ask.Owner && live:
		return ClaimDecision{Action: Renewed, Previous: cur}
	case ask.Force:
		return ClaimDecision{Action: Replaced, Previous: cur, Clear: replace}
	case !live:
		return ClaimDecision{Action: TookOver, Previous: cur, Clear: replace}
	case ask.Team && cur.Kind == Team:
		return ClaimDecision{Action: Joined}
	}
	reason := "held by another owner"
	switch {
	case cur.HeldIn != "":
		reason += " in " + cur.HeldIn
	case ask.Where != "":
		reason += " in its lock file"
	}
	return ClaimDecision{Err: &ConflictError{Lock: cur, Reason: reason + " (use --force to replace it)"}}
}

// Prepared is the spec as a claim writes it: expires_after in its normal spelling,
// validated, and a team lock's host its team host. Every claim path starts with it.
func (s Spec) Prepared() (Spec, error) {
	if s.Expires != "" {
		if norm, ok := NormalizeDuration(s.Expires); ok {
			s.Expires = norm
		}
	}
	if err := s.Validate(); err != nil {
		return s, err
	}
	if s.Kind == Team {
		s.Host = s.TeamHost
	}
	return s, nil
}

// ErrEntryChanged reports that the entry at a lock path changed while ReadFound read
// it (a racing writer); the caller looks again.
var ErrEntryChanged = errors.New("the lock file changed while it was read")

// ReadFound reads what is at the lock path for DecideClaim, never following a
// symlink there. A lock that cannot be parsed is read as far as it goes (its
// owner unknown: another's). A file replaced or removed during the reading is
// ErrEntryChanged; only a failing Lstat is another error.
func ReadFound(path string, loc *time.Location) (Found, error) {
	found := Found{Path: path}
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return found, nil
	}
	if err != nil {
		return found, err
	}
	if !st.Mode().IsRegular() {
		found.Entry, found.Type = EntryNotRegular, st.Mode().Type()
		return found, nil
	}
	data, modTime, err := readNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ELOOP) {
		return found, ErrEntryChanged
	}
	if err != nil {
		found.Entry, found.Err = EntryUnreadable, err
		return found, nil
	}
	l, err := ParseLock(path, data, modTime, loc)
	if err != nil {
		found.Entry, found.Err = EntryUnreadable, err
		return found, nil
	}
	found.Entry, found.Lock, found.Data = EntryLock, l, data
	return found, nil
}
