package lockcore

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// ReadDir returns the locks in directory dir itself (not its subdirectories), sorted by
// file name. A directory named like a lock is skipped. A lock file that cannot be read,
// and a FIFO, device or socket named like a lock (never opened), are returned with
// ReadErr set (they still stop: fail closed). err is non-nil only when dir itself
// cannot be listed; a missing dir gives no locks and no error.
func ReadDir(dir string, loc *time.Location) ([]*Lock, error) {
	// Names only, unsorted: a hook reads every directory above every changed path, and
	// os.ReadDir's sort (and its lstat of each entry on some systems) is most of that
	// cost in a large folder; only the few lock names are then looked at.
	f, err := os.Open(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, err // an *os.PathError naming dir
	}
	var locks []*Lock
	for _, name := range names {
		if !IsLockName(name) {
			continue
		}
		l, err := ReadLock(filepath.Join(dir, name), loc)
		if err != nil {
			continue
		}
		locks = append(locks, l)
	}
	sort.Slice(locks, func(i, j int) bool { return locks[i].File < locks[j].File })
	return locks, nil
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
