package lockcore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// ReadDir returns the locks in directory dir itself (not its subdirectories), sorted by
// file name. A directory named like a lock is skipped. A lock file that cannot be read,
// and a FIFO, device or socket named like a lock (never opened), are returned with
// ReadErr set (they still stop: fail closed). err is non-nil only when dir itself
// cannot be listed; a missing dir gives no locks and no error.
func ReadDir(dir string, loc *time.Location) ([]*Lock, error) {
	l, err := ReadListing(dir, loc)
	return l.Locks, err
}

// Listing is what one reading of a directory tells: its locks, and which of its
// entries are not regular files.
type Listing struct {
	// Locks are as ReadDir returns them.
	Locks []*Lock
	// Special maps the names of the entries that are not regular files to their type
	// (fs.ModeDir, fs.ModeSymlink, ...; fs.ModeIrregular when the listing did not say).
	// A name that is not there is a regular file or is not there at all, which a
	// caller judging many paths of one folder (a commit) learns without a system call
	// per path.
	Special map[string]fs.FileMode
	// folded holds the Special names lower-cased: where the file system ignores case,
	// a path may spell an entry differently. It is made on the first lookup that
	// misses Special (a folder of 1,000 subfolders is listed on every hook call, and
	// most lookups hit).
	folded *foldedNames
}

type foldedNames struct {
	once  sync.Once
	names map[string]struct{}
}

// EntryType returns the type of the entry name when it is not a regular file
// (special), and special false for a regular file or a name that is not there. A name
// that matches a special entry only when case is ignored is special, of unknown type
// (fs.ModeIrregular): the caller must ask the file system.
func (l Listing) EntryType(name string) (typ fs.FileMode, special bool) {
	if len(l.Special) == 0 {
		return 0, false
	}
	if t, ok := l.Special[name]; ok {
		return t, true
	}
	if l.folded == nil { // a Listing not made by ReadListing
		for n := range l.Special {
			if strings.EqualFold(n, name) {
				return fs.ModeIrregular, true
			}
		}
		return 0, false
	}
	l.folded.once.Do(func() {
		l.folded.names = make(map[string]struct{}, len(l.Special))
		for n := range l.Special {
			l.folded.names[strings.ToLower(n)] = struct{}{}
		}
	})
	if _, ok := l.folded.names[strings.ToLower(name)]; ok {
		return fs.ModeIrregular, true
	}
	return 0, false
}

// ReadListing reads dir once: its locks (as ReadDir) and the names of its entries that
// are not regular files. A missing dir gives an empty listing and no error.
func ReadListing(dir string, loc *time.Location) (Listing, error) {
	// Names and types straight from the directory, unsorted: a hook reads every
	// directory above every changed path, and os.ReadDir's sort (and its lstat of each
	// entry on some systems) is most of that cost in a large folder; only the few lock
	// names are then looked at.
	var out Listing
	_, err := forEachEntry(dir, func(name string, typ fs.FileMode) {
		// name may point into a reused buffer: it is copied before it is kept.
		if typ != 0 {
			if out.Special == nil {
				out.Special, out.folded = map[string]fs.FileMode{}, &foldedNames{}
			}
			if typ == modeUnknown {
				typ = fs.ModeIrregular
			}
			out.Special[strings.Clone(name)] = typ
		}
		if !maybeLockName(name) || !IsLockName(name) {
			return
		}
		if l, err := ReadLock(filepath.Join(dir, name), loc); err == nil {
			out.Locks = append(out.Locks, l)
		}
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Listing{}, nil
		}
		// What was read before a failure is dropped: the caller treats the whole
		// directory as unreadable (fail closed).
		return Listing{}, err // an *fs.PathError naming dir
	}
	sort.Slice(out.Locks, func(i, j int) bool { return out.Locks[i].File < out.Locks[j].File })
	return out, nil
}

// ExistingLockPath returns the path of the lock file that path names as it is spelled
// on disk: lock names are matched case-insensitively on every file system (CONTRACT.md
// section 7), so `LOCK.txt` names a `lock.txt` that is there. It returns path itself
// when that exists, or when no lock file in its directory has its name in another
// case; of several spellings, the first in byte order.
func ExistingLockPath(path string) string {
	if _, err := os.Lstat(path); err == nil {
		return path
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	f, err := os.Open(dir)
	if err != nil {
		return path
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return path
	}
	found := ""
	for _, n := range names {
		if strings.EqualFold(n, base) && IsLockName(n) && (found == "" || n < found) {
			found = n
		}
	}
	if found == "" {
		return path
	}
	return filepath.Join(dir, found)
}
