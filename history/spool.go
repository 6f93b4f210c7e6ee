package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/filelock"
)

// Spool is the append-only journal that hooks, check, publish and the agent hook write
// their events to: one JSON line per event, appended under a file lock. A gate never
// opens the database (SQLite's open, schema check and commit would cost a hook
// milliseconds it must not spend, and a busy database would make it wait); the
// database imports the spool whenever it is opened (guard history, watch, serve).
type Spool struct {
	// Path is the journal file, normally StateDir/events.jsonl.
	Path string
	// Wait bounds how long a writer waits for the file lock (default 50 ms): an import
	// holds it only for a rename, so a longer wait means something is wrong, and the
	// event is dropped rather than the gate slowed.
	Wait time.Duration
}

// Append writes ev as one line. A line is written whole or not at all with respect to
// an import: the writer holds the file's lock while it writes and checks, under the
// lock, that the file is still the spool (an import renames it away under the same
// lock, and a writer that opened the old file reopens the new one).
func (s Spool) Append(ev guard.Event) error {
	line, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	line = append(line, '\n')
	for range 5 {
		f, err := os.OpenFile(s.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if errors.Is(err, fs.ErrNotExist) {
			if err = os.MkdirAll(filepath.Dir(s.Path), 0o700); err == nil {
				f, err = os.OpenFile(s.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			}
		}
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		wait := s.Wait
		if wait <= 0 {
			wait = 50 * time.Millisecond
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		err = filelock.Lock(ctx, f)
		cancel()
		if err != nil {
			_ = f.Close()
			return fmt.Errorf("history: locking %s: %w", s.Path, err)
		}
		if !filelock.SameFile(f, s.Path) {
			_ = filelock.Unlock(f)
			_ = f.Close()
			continue
		}
		_, err = f.Write(line)
		_ = filelock.Unlock(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("history: writing %s: %w", s.Path, err)
		}
		return nil
	}
	return fmt.Errorf("history: %s kept being replaced while writing", s.Path)
}

// take moves the spool's lines out of the writers' way: under the file lock it renames
// the spool to taking, so every later Append starts a new spool. It returns false when
// there is no spool.
func (s Spool) take(taking string) (bool, error) {
	f, err := os.Open(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := filelock.Lock(ctx, f); err != nil {
		return false, fmt.Errorf("history: locking %s: %w", s.Path, err)
	}
	defer filelock.Unlock(f)
	if !filelock.SameFile(f, s.Path) {
		return false, nil // another import took it a moment ago
	}
	if err := os.Rename(s.Path, taking); err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	return true, nil
}
