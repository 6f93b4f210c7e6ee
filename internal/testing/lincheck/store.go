//go:build linux

package lincheck

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// Store is the fenced resource the clients write to: a file every write goes
// through, under an OS lock, after a check of the writer's fence (guard check with
// LOCK_FENCE and LOCK_FENCE_FILE, as a resource guarded by guard's fences asks, and
// the store's own rule that a fence below the largest one it accepted is
// superseded). It records each accepted write.
type Store struct {
	h    *Harness
	path string
	mu   sync.Mutex
	max  int64
	// Unchecked makes a broken store that accepts every write (the checker's own
	// test: it must reject the history such a store makes under a pause).
	Unchecked bool
}

// Write is one write of client under fence: accepted or rejected, and why.
func (s *Store) Write(client int, fence int64) (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Unchecked {
		return true, "unchecked"
	}
	if fence < s.max {
		return false, fmt.Sprintf("store: fence %d < %d", fence, s.max)
	}
	h := s.h
	c := &Client{H: h, ID: client}
	lockFile := filepath.Join(h.Target.Trees[client], LockDir, "LOCK.txt")
	cmd := c.command([]string{"check", filepath.Join(LockDir, "x.txt")},
		"LOCK_FENCE="+strconv.FormatInt(fence, 10), "LOCK_FENCE_FILE="+lockFile)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		return false, err.Error()
	}
	r := c.wait(cmd)
	if r.Code != 0 {
		r.Stderr = errb.String()
		return false, fmt.Sprintf("guard check %d: %s", r.Code, r.First())
	}
	f, err := os.OpenFile(s.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return false, err.Error()
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%d c%d\n", fence, client); err != nil {
		return false, err.Error()
	}
	if err := f.Sync(); err != nil {
		return false, err.Error()
	}
	s.max = fence
	return true, ""
}
