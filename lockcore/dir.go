package lockcore

import (
	"os"
	"path/filepath"
	"sort"
	"time"
)

// ReadDir returns the locks in directory dir itself (not its subdirectories), sorted by
// file name. Entries that are named like locks but are not regular files (a directory
// or FIFO called LOCK.txt) are skipped. A lock file that cannot be read is returned
// with ReadErr set (it still stops: fail closed). err is non-nil only when dir itself
// cannot be listed; a missing dir gives no locks and no error.
func ReadDir(dir string, loc *time.Location) ([]*Lock, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var locks []*Lock
	for _, e := range entries {
		if !IsLockName(e.Name()) {
			continue
		}
		l, err := ReadLock(filepath.Join(dir, e.Name()), loc)
		if err != nil {
			continue
		}
		locks = append(locks, l)
	}
	sort.Slice(locks, func(i, j int) bool { return locks[i].File < locks[j].File })
	return locks, nil
}
