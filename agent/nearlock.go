package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// The search for a lock near a command guard cannot read is bounded: past these the
// search stops and the command is treated as near a lock (fail closed). The folder
// count decides in practice (a 100,000-file repository has a few thousand folders);
// the time limit is only a backstop for a slow file system.
const (
	maxNearDirs   = 20000
	nearLockLimit = 3 * time.Second
)

// nearLock names the first active lock that would refuse the agent in the command's
// working tree: its project (the repository that holds the working directory, else
// the directory itself), the directories above it, and everything below; "" when
// there is none. The folders are listed once each and only those holding a file
// named like a lock are asked about, so the search costs one directory read per
// folder.
func (d *decider) nearLock() string {
	if d.near != nil {
		return *d.near
	}
	root := d.subject.Top
	if root == "" {
		root = d.call.Cwd
	}
	near := d.searchNear(root)
	d.near = &near
	return near
}

func (d *decider) searchNear(root string) string {
	// The root and the folders above it: the policy reads that chain.
	if near := d.refusingLock(root); near != "" {
		return near
	}
	deadline := time.Now().Add(nearLockLimit)
	queue := []string{root}
	buf := make([]byte, 64<<10)
	for n := 0; len(queue) > 0; n++ {
		if n >= maxNearDirs || time.Now().After(deadline) {
			return fmt.Sprintf("%s (guard could not look through all of it in time, so it assumes a lock there: fail closed)", root)
		}
		// Breadth first, in name order: the nearest lock is named first.
		dir := queue[0]
		queue = queue[1:]
		var subdirs []string
		hasLock := false
		err := listDir(dir, buf, func(name string, isDir bool) {
			switch {
			case isDir:
				// Installed dependencies and git's own folder are not work areas (the
				// policy skips them too).
				if name != ".git" && name != "node_modules" {
					subdirs = append(subdirs, strings.Clone(name))
				}
			case strings.HasPrefix(name, "LOCK") || lockcore.IsLegacyName(name):
				hasLock = hasLock || lockcore.IsLockName(name)
			}
		})
		if err != nil {
			if dir == root && os.IsNotExist(err) {
				return ""
			}
			return fmt.Sprintf("%s (guard could not read it: %v, so it assumes a lock there: fail closed)", dir, err)
		}
		slices.Sort(subdirs)
		for _, name := range subdirs {
			queue = append(queue, filepath.Join(dir, name))
		}
		if hasLock && dir != root {
			if near := d.refusingLock(dir); near != "" {
				return near
			}
		}
	}
	return ""
}

// refusingLock asks the policy whether an edit of dir is refused (a lock in dir
// refuses it whatever its scope), and names the lock that refuses it.
func (d *decider) refusingLock(dir string) string {
	dec, err := d.policy.Check(guard.Request{Ops: []string{OpEdit}, Paths: []string{dir}})
	switch {
	case err != nil:
		return fmt.Sprintf("%s (guard could not look for locks there: %v)", dir, err)
	case dec.Allowed:
		return ""
	}
	b := dec.Blocking[0]
	if b.Lock != nil {
		return fmt.Sprintf("%s (held by %s)", b.Lock.Path, b.Lock.Owner)
	}
	return fmt.Sprintf("%s (%s)", b.Path, b.Reason)
}
