package lockcore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/guardlocks/guard/internal/atomicfile"
)

// LockdownManifest records the locks guard lockdown wrote, so that --undo removes
// exactly those. Its JSON keeps the reference's keys (created, owner, reason, locks).
type LockdownManifest struct {
	Created string   `json:"created"`
	Owner   string   `json:"owner"`
	Reason  string   `json:"reason"`
	Locks   []string `json:"locks"`
}

// ReadLockdownManifest reads the manifest at path; a missing file is an empty manifest.
func ReadLockdownManifest(path string) (*LockdownManifest, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &LockdownManifest{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := &LockdownManifest{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(m); err != nil {
		return nil, fmt.Errorf("%s: not a lockdown manifest: %w", path, err)
	}
	return m, nil
}

// Add records paths (keeping the list sorted and without duplicates).
func (m *LockdownManifest) Add(paths ...string) {
	set := map[string]bool{}
	for _, p := range append(m.Locks, paths...) {
		set[p] = true
	}
	m.Locks = m.Locks[:0]
	for p := range set {
		m.Locks = append(m.Locks, p)
	}
	sort.Strings(m.Locks)
}

// WriteLockdownManifest writes m to path atomically (atomicfile.Write),
// creating its directory; an empty manifest removes the file.
func WriteLockdownManifest(path string, m *LockdownManifest) error {
	if len(m.Locks) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), 0o600)
}

// UpdateLockdownManifest reads the manifest at path, lets edit change it, and writes
// it back, serialised against other guard processes doing the same, so that two
// lockdowns at once lose no entry.
func UpdateLockdownManifest(path string, edit func(*LockdownManifest)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	unlock, err := lockNameMutex(path)
	if err != nil {
		return err
	}
	defer unlock()
	m, err := ReadLockdownManifest(path)
	if err != nil {
		return err
	}
	edit(m)
	return WriteLockdownManifest(path, m)
}
