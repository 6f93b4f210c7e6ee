package lockcore

import (
	"errors"
	"fmt"
	"github.com/guardlocks/guard/internal/lazyre"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Lock is one lock file as read from disk.
type Lock struct {
	Name
	// Path is the lock file's absolute path; Dir is the directory it sits in (the root
	// of the area it covers).
	Path string
	Dir  string
	// Fields is the parsed body.
	Fields Fields

	Owner            string
	Host             string // the host field of the body (team locks also have Name.Host)
	Purpose          string
	ReleaseCondition string
	// Mode is "hard" or "soft".
	Mode       string
	Operations []string

	// Resource is the resource field: the URI a resource lock locks ("" for a folder
	// lock).
	Resource string

	// Created is the created field read in the local zone, or the file's mtime when
	// the field is missing or unparseable (CreatedSource says which).
	Created       time.Time
	CreatedSource string // "header" or "mtime"
	// ExpiresAfter is the lifetime (DefaultExpiry when missing or invalid).
	ExpiresAfter time.Duration
	// expiryOverflow is set when expires_after is too large for the reference to
	// represent (such a lock counts as expired, as there).
	expiryOverflow bool
	// lifetime is expires_after in seconds (exact even beyond a time.Duration).
	lifetime int64
	// NotBefore is an until lock's moment; nil when missing or unparseable.
	NotBefore *time.Time
	ModTime   time.Time

	// ContentUser is set when the body, not the name, makes this a user lock
	// (removable_by: user, type: user, or a line starting with LOCK.user), unless it
	// is a bulk lock.
	ContentUser bool

	// HeldIn names the coordination service that holds this lock (an etcd backend,
	// CONTRACT.md section 10), "" for a lock known from its file alone. The service
	// decides such a lock's lifetime: while it holds the lock, the lock has not
	// expired, whatever the clock of this machine says of created.
	HeldIn string

	// ReadErr is set when the file exists but could not be read (ErrNotRegular: a
	// FIFO, a device or a symlink to one; ErrInvalidLock: a body with no readable
	// field, binary data); such a lock is still reported and still stops, never
	// expiring (fail closed), with fields empty.
	ReadErr error
}

// ReadLock reads the lock file at path (whose base name must classify as a lock),
// reading local times in loc. A lock file that cannot be read (or not even stat'ed, as
// in a directory that may be listed but not searched) is still returned, with ReadErr
// set, and so is a FIFO, device or socket at path (or a symlink to one: ErrNotRegular,
// never opened) and a body without a readable field (ErrInvalidLock); err is non-nil
// only when the file does not exist, is a directory, or is not a lock name.
func ReadLock(path string, loc *time.Location) (*Lock, error) {
	name, ok := Classify(filepath.Base(path))
	if !ok {
		return nil, fmt.Errorf("%s: not a lock file name", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		// The name is listed, so something is there: it stops (fail closed).
		return newLock(name, abs, nil, err, time.Time{}, loc), nil
	}
	if st.IsDir() {
		// A folder named like a lock is a folder (scan walks into it), not a lock.
		return nil, &fs.PathError{Op: "read lock", Path: abs, Err: ErrNotRegular}
	}
	if !st.Mode().IsRegular() {
		// A FIFO, a device or a socket named like a lock (or a symlink to one) is
		// never opened: reading could block, or never end (/dev/zero). Something
		// sits at a lock's name that guard cannot judge, so it holds (fail closed).
		return newLock(name, abs, nil, notRegularError(abs, st), st.ModTime(), loc), nil
	}
	data, rerr := readPrefix(abs, MaxLockFileSize)
	return newLock(name, abs, data, rerr, st.ModTime(), loc), nil
}

// notRegularError says what sits at path instead of a lock file; st is what path
// leads to (through a symbolic link, if it is one).
func notRegularError(path string, st fs.FileInfo) error {
	what := fileTypeName(st.Mode())
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
		what = "a symbolic link to " + what
		if target, err := os.Readlink(path); err == nil {
			what += " (" + target + ")"
		}
	}
	return fmt.Errorf("%w: %s", ErrNotRegular, what)
}

// fileTypeName names the kind of a file that is not a regular one.
func fileTypeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "a special file (" + m.Type().String() + ")"
}

// ParseLock builds a Lock from a body already in memory, as if read from path with
// the given modification time. It is what ReadLock uses once the file is read.
func ParseLock(path string, data []byte, modTime time.Time, loc *time.Location) (*Lock, error) {
	name, ok := Classify(filepath.Base(path))
	if !ok {
		return nil, fmt.Errorf("%s: not a lock file name", path)
	}
	return newLock(name, path, data, nil, modTime, loc), nil
}

func newLock(name Name, path string, data []byte, rerr error, modTime time.Time, loc *time.Location) *Lock {
	if loc == nil {
		loc = time.Local
	}
	l := &Lock{Name: name, Path: path, Dir: filepath.Dir(path), ModTime: modTime.In(loc), ReadErr: rerr}
	l.Fields = ParseFields(data)
	if rerr == nil && !l.Fields.Readable(data) {
		// Binary data (a damaged file, UTF-16, a stray download) is not a lock body:
		// its owner and lifetime are unknown, so it holds as an unreadable one does.
		l.ReadErr = fmt.Errorf("%w: no readable `key: value` field in %d bytes of binary data", ErrInvalidLock, len(data))
		l.Fields = Fields{Values: map[string]string{}}
	}
	get := func(k string) string { return l.Fields.Values[k] }
	l.Owner = get("owner")
	l.Host = get("host")
	l.Purpose = get("purpose")
	l.Resource = get("resource")
	if l.Purpose == "" {
		l.Purpose = get("task")
	}
	l.ReleaseCondition = get("release_condition")
	l.Mode = "hard"
	if strings.EqualFold(get("mode"), "soft") {
		l.Mode = "soft"
	}
	l.Operations = SplitOperations(get("operations"))
	if t, ok := ParseTime(get("created"), loc); ok {
		l.Created, l.CreatedSource = t, "header"
	} else {
		l.Created, l.CreatedSource = l.ModTime, "mtime"
	}
	secs, ok, overflow := parseLifetime(get("expires_after"))
	l.ExpiresAfter, l.expiryOverflow = lifetimeDuration(secs, ok, overflow), overflow
	if !ok {
		secs = int64(DefaultExpiry / time.Second)
	}
	l.lifetime = secs
	if v, ok := l.Fields.Values["not_before"]; ok {
		if t, ok := ParseTime(v, loc); ok {
			l.NotBefore = &t
		}
	}
	if l.Kind != User && l.Kind != Legacy && contentUser(l.Fields) {
		l.ContentUser = true
		l.Kind = User
	}
	return l
}

// contentUser reports whether a lock body declares a user lock whatever its name:
// removable_by: user, type: user, or a line starting with "LOCK.user" (the reference's
// later versions); a bulk lock (created_by: bulk) never is one.
func contentUser(f Fields) bool {
	if strings.EqualFold(f.Values["created_by"], "bulk") {
		return false
	}
	if strings.EqualFold(f.Values["removable_by"], "user") || strings.EqualFold(f.Values["type"], "user") {
		return true
	}
	for _, line := range f.Lines {
		if strings.HasPrefix(strings.TrimSpace(line), "LOCK.user") {
			return true
		}
	}
	return false
}

// readPrefix reads at most max bytes of the regular file at path.
func readPrefix(path string, max int64) ([]byte, error) {
	data, _, err := readRegular(path, max, 0)
	return data, err
}

// readRegular reads at most max bytes of the regular file at path and its
// modification time, both from one open descriptor (so they describe one version of
// the file), without blocking on a FIFO that was swapped in after a caller's stat.
// flag adds open flags (oNoFollow: a symlink at path is an error, not followed).
func readRegular(path string, max int64, flag int) ([]byte, time.Time, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|flag, 0)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, err
	}
	if !st.Mode().IsRegular() {
		return nil, time.Time{}, &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	data, err := io.ReadAll(io.LimitReader(f, max))
	if err != nil {
		return nil, time.Time{}, err
	}
	return data, st.ModTime(), nil
}

// Invalid reports whether the file's content is not a lock body at all (binary data
// without a single readable field); it holds like an unreadable lock.
func (l *Lock) Invalid() bool { return errors.Is(l.ReadErr, ErrInvalidLock) }

// NotRegular reports whether something other than a regular file (a FIFO, a device, a
// socket, or a symlink to one) sits at the lock's name; it holds like an unreadable
// lock.
func (l *Lock) NotRegular() bool { return errors.Is(l.ReadErr, ErrNotRegular) }

// Protected reports whether the lock is of a kind that never expires by time and is
// never pruned or removed by a lockdown undo: user, condition, until, or an ambiguous
// name.
func (l *Lock) Protected() bool {
	switch l.Kind {
	case User, Condition, Until:
		return true
	}
	return l.Ambiguous
}

// ExpiresAt returns the moment the lock expires, and false when it never expires by
// time (protected, legacy, an until lock without a usable not_before, or a file that
// could not be read: its lifetime and kind are unknown, so it holds, fail closed).
func (l *Lock) ExpiresAt() (time.Time, bool) {
	switch {
	case l.ReadErr != nil, l.Ambiguous, l.Kind == Legacy, l.Kind == User, l.Kind == Condition:
		return time.Time{}, false
	case l.Kind == Until:
		if l.NotBefore == nil || !l.untilReleasesAtDeadline() {
			return time.Time{}, false
		}
		return *l.NotBefore, true
	}
	if l.expiryOverflow {
		// The reference cannot represent this moment and treats the lock as already
		// over.
		return l.Created, true
	}
	return addLifetime(l.Created, l.lifetime), true
}

// untilReleasesAtDeadline: with a release_condition the deadline alone releases an
// until lock only under release_mode: any.
func (l *Lock) untilReleasesAtDeadline() bool {
	if strings.TrimSpace(l.ReleaseCondition) == "" {
		return true
	}
	return strings.EqualFold(strings.TrimSpace(l.Fields.Values["release_mode"]), "any")
}

// Expired reports whether the lock has expired at now (strictly after its expiry).
func (l *Lock) Expired(now time.Time) bool {
	if l.HeldIn != "" {
		// The service drops the lock when its lease runs out: a lock it still holds
		// is live, even on a machine whose clock runs ahead.
		return false
	}
	at, ok := l.ExpiresAt()
	if !ok {
		return false
	}
	if l.Kind != Until && l.expiryOverflow {
		return true // a lifetime the reference cannot represent is already over there
	}
	return now.After(at)
}

// Active reports whether the lock still holds at now.
func (l *Lock) Active(now time.Time) bool { return !l.Expired(now) }

// Prunable reports whether prune may remove the lock: expired, and neither legacy nor
// protected.
func (l *Lock) Prunable(now time.Time) bool {
	return l.Kind != Legacy && !l.Protected() && l.Expired(now)
}

// Soft reports whether the lock only warns.
func (l *Lock) Soft() bool { return l.Mode == "soft" }

var fenceRE = lazyre.New(`^\d{1,19}$`)

// Fence returns the lock's fence number; ok is false when the field is missing or is
// not a decimal number that fits in 63 bits (a lock that predates fencing).
func (l *Lock) Fence() (fence int64, ok bool) {
	v := strings.TrimSpace(l.Fields.Values["fence"])
	if !fenceRE.MatchString(v) {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// Token returns the token field (empty when the lock has none).
func (l *Lock) Token() string { return l.Fields.Values["token"] }

// BulkCreated reports whether the lock was written by a lockdown.
func (l *Lock) BulkCreated() bool {
	return strings.EqualFold(strings.TrimSpace(l.Fields.Values["created_by"]), "bulk")
}

// CoversOperation reports whether the lock blocks op: a lock with an operations list
// blocks only those (compared ignoring case), one without blocks every operation.
func (l *Lock) CoversOperation(op string) bool {
	if len(l.Operations) == 0 {
		return true
	}
	for _, o := range l.Operations {
		if strings.EqualFold(o, op) {
			return true
		}
	}
	return false
}
