// Package atomicfile replaces files so that a reader, or a crash, never sees half of
// one: the data goes to a temporary file in the same directory, is flushed to disk,
// renamed over the target in one step, and the directory is flushed so that the
// rename itself survives a power loss. A writer killed before the rename leaves the
// old content in place (and, at worst, its temporary file).
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/guardlocks/guard/internal/filelock"
)

// TempSuffix ends the name of every temporary file Write creates:
// "." + the target's name + "." + random + TempSuffix. The leading dot keeps it out of
// listings; lockcore's scratch cleaner recognises the pattern and leaves alone a
// temporary file that its writer still holds locked.
const TempSuffix = ".tmp"

// Write replaces the file at path with data, with permissions mode (not subject to
// the umask). The directory must exist. A symbolic link at path is replaced, not
// followed. On error the file at path is as it was and no temporary file is left.
func Write(path string, data []byte, mode fs.FileMode) error {
	return write(path, data, mode, true)
}

// WriteCache is Write without the flushes to disk, for a cache that a reader checks
// and may ignore: a reader never sees half of a file (the rename is still one step),
// but after a power loss the file may hold the old content, the new, or less of it,
// and must be read as possibly incomplete. The flushes cost milliseconds on a real
// disk, which a hook that refreshes its cache would otherwise pay.
func WriteCache(path string, data []byte, mode fs.FileMode) error {
	return write(path, data, mode, false)
}

func write(path string, data []byte, mode fs.FileMode, durable bool) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := createLocked(dir, base)
	if err != nil {
		return err
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if !closed {
			_ = f.Close()
		}
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if durable {
		if err = f.Sync(); err != nil {
			return err
		}
	}
	if closeBeforeRename {
		closed = true
		if err = f.Close(); err != nil {
			return err
		}
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	if !durable {
		return nil
	}
	return SyncDir(dir)
}

// createLocked creates the temporary file and locks it, so that a scratch cleaner
// running meanwhile leaves it alone. A cleaner that took the file between its
// creation and the lock owns it: start over under another name.
func createLocked(dir, base string) (*os.File, error) {
	for range 10 {
		f, err := os.CreateTemp(dir, "."+base+".*"+TempSuffix)
		if err != nil {
			return nil, err
		}
		err = filelock.TryLock(f)
		if err == nil && !filelock.SameFile(f, f.Name()) {
			err = filelock.ErrBusy
		}
		if errors.Is(err, filelock.ErrBusy) {
			_ = f.Close()
			continue
		}
		// Without file locking the write is still atomic; only the cleaner's
		// courtesy is lost.
		return f, nil
	}
	return nil, fmt.Errorf("%s: temporary files keep vanishing", filepath.Join(dir, base))
}
