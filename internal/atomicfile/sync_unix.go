//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// closeBeforeRename: unix renames an open file, so the temporary stays open (and
// locked) until it is in place.
const closeBeforeRename = false

// SyncDir flushes dir's entries to disk, so that a file just renamed, linked or
// removed there stays so after a crash. File systems that cannot sync a directory
// (EINVAL, ENOTSUP) are not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return &fs.PathError{Op: "fsync", Path: dir, Err: err}
	}
	return nil
}
