package filelock

import (
	"errors"
	"io/fs"
	"os"
)

// openProbe opens the regular file at path for a lock probe: never following a
// symbolic link, never waiting on a FIFO.
func openProbe(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow|oNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = &fs.PathError{Op: "lock", Path: path, Err: errors.New("not a regular file")}
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// Held reports whether a process holds the OS lock on the regular file at path. It
// takes the lock for an instant when nobody holds it (a holder-to-be that asks at that
// instant is told the file is busy and retries, as with any other holder).
// ErrUnsupported is returned where the file system cannot lock.
func Held(path string) (bool, error) {
	f, _, err := openProbe(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	switch err := tryLock(f); {
	case errors.Is(err, ErrBusy):
		return true, nil
	case err != nil:
		return false, err
	}
	_ = unlock(f)
	return false, nil
}

// RemoveUnheld removes the regular file at path when no process holds its OS lock
// and stale, asked with the file's state while this process holds that lock, agrees.
// Deciding under the lock means a process cannot take the file between the decision
// and the removal. It reports whether the file was removed.
func RemoveUnheld(path string, stale func(fs.FileInfo) bool) (bool, error) {
	f, st, err := openProbe(path)
	if err != nil {
		return false, err
	}
	if err := tryLock(f); err != nil {
		_ = f.Close()
		if errors.Is(err, ErrBusy) {
			return false, nil
		}
		return false, err
	}
	if !SameFile(f, path) || !stale(st) {
		_ = f.Close()
		return false, nil
	}
	return RemoveLocked(f, path), nil
}
