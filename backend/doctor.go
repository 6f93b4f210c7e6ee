package backend

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/atomicfile"
	"github.com/guardlocks/guard/lockcore"
)

// Health is guard doctor's report of a project's backend.
type Health struct {
	Where     string `json:"where"`
	Reachable bool   `json:"reachable"`
	Error     string `json:"error,omitempty"`
	// Revision is the backend's revision at the reading; Locks the locks it holds.
	Revision int64 `json:"revision"`
	Locks    int   `json:"locks"`
	// Disagreements between the backend and the lock files of this working tree.
	KeysWithoutFile []string `json:"keys_without_file"`
	FilesWithoutKey []string `json:"files_without_key"`
	Differ          []string `json:"differ"`
	// OldFences are lock files whose fences come from before the backend (section
	// 1's microsecond formula, above every revision etcd will give for a long time):
	// the project's fences started a new, lower sequence.
	OldFences []string `json:"old_fences"`
	// Repaired is what --repair did.
	Repaired []string `json:"repaired"`
	Problems []string `json:"problems"`
}

// Check compares the backend's locks with the lock files of the working tree
// pb.Top; with repair, the files follow the backend: a key without a file gets its
// file, a file that differs from its key is rewritten, and a follower file whose key
// is gone (the lease ran out) is removed. A lock file the backend never held is a
// lock in its own right: it is reported, never removed.
func Check(ctx context.Context, pb *guard.ProjectBackend, repair bool, now time.Time) Health {
	h := Health{Where: pb.Backend.Where(), KeysWithoutFile: []string{}, FilesWithoutKey: []string{}, Differ: []string{},
		OldFences: []string{}, Repaired: []string{}, Problems: []string{}}
	problem := func(format string, args ...any) { h.Problems = append(h.Problems, fmt.Sprintf(format, args...)) }
	tctx, cancel := context.WithTimeout(ctx, pb.Timeout())
	snap, err := pb.Backend.Snapshot(tctx)
	cancel()
	if err != nil {
		h.Error = err.Error()
		problem("the lock backend (%s) cannot be reached: %v; every gate refuses (exit 2) until it can, unless offline = \"files\"", h.Where, err)
		return h
	}
	h.Reachable, h.Revision, h.Locks = true, snap.Revision, len(snap.Locks)
	loc := now.Location()

	keyed := map[string]guard.BackendLock{}
	for _, bl := range snap.Locks {
		if bl.Resource != "" {
			continue // resource locks live in each machine's resources directory
		}
		path := guard.BackendLockPath(pb.Top, bl)
		keyed[strings.ToLower(path)] = bl
		want := fileBody(bl)
		data, err := os.ReadFile(path)
		switch {
		case os.IsNotExist(err):
			if _, derr := os.Stat(filepath.Dir(path)); derr != nil {
				problem("%s is held in the backend, but its folder is not in this working tree", path)
				h.KeysWithoutFile = append(h.KeysWithoutFile, path)
				continue
			}
			h.KeysWithoutFile = append(h.KeysWithoutFile, path)
			if repair {
				if err := atomicfile.Write(path, []byte(want), 0o644); err != nil {
					problem("repair: %v", err)
				} else {
					h.Repaired = append(h.Repaired, "wrote "+path)
					continue
				}
			}
			problem("%s is held in the backend (fence %d) but has no lock file here; `guard doctor --repair` writes it", path, bl.Fence)
		case err != nil:
			problem("%s: %v", path, err)
		case string(data) != want:
			h.Differ = append(h.Differ, path)
			if repair {
				if err := atomicfile.Write(path, []byte(want), 0o644); err != nil {
					problem("repair: %v", err)
				} else {
					h.Repaired = append(h.Repaired, "rewrote "+path)
					continue
				}
			}
			problem("%s differs from the lock the backend holds (fence %d); `guard doctor --repair` rewrites it", path, bl.Fence)
		}
	}

	res := lockcore.Scan([]lockcore.ScanRoot{{Path: pb.Top, MaxDepth: 64}}, lockcore.ScanOptions{Loc: loc})
	for _, l := range res.Locks {
		if _, ok := keyed[strings.ToLower(l.Path)]; ok {
			continue
		}
		if rel, ok := pb.Rel(l.Dir); !ok || strings.HasPrefix(rel, ".git") {
			continue
		}
		_, follower := l.Fields.Values[FollowerField]
		f, hasFence := l.Fence()
		switch {
		case follower:
			h.FilesWithoutKey = append(h.FilesWithoutKey, l.Path)
			if repair {
				if removed, err := lockcore.RemoveIfFence(l.Path, f); err == nil && removed {
					h.Repaired = append(h.Repaired, "removed "+l.Path)
					continue
				}
			}
			problem("%s follows a lock the backend no longer holds (released elsewhere, or its lease ran out); `guard doctor --repair` removes it", l.Path)
		case l.Active(now):
			h.FilesWithoutKey = append(h.FilesWithoutKey, l.Path)
			problem("%s is a lock file the backend does not hold: it stops this clone, but other machines and CI do not see it; release it and claim it again with `guard lock` to hold it in the backend", l.Path)
		}
		if hasFence && f > snap.Revision && f > 1_000_000_000_000 {
			h.OldFences = append(h.OldFences, l.Path)
			problem("%s carries fence %d from before the backend; the backend's fences (its revisions, now %d) start a new, lower sequence, so a holder that compares fences must take the new one", l.Path, f, snap.Revision)
		}
	}
	for _, l := range [][]string{h.KeysWithoutFile, h.FilesWithoutKey, h.Differ, h.OldFences, h.Problems} {
		sort.Strings(l)
	}
	return h
}

// fileBody is the lock file a backend lock's follower holds.
func fileBody(bl guard.BackendLock) string {
	body := string(bl.Body)
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	// The fence line goes where the claim put it: after host, as lockcore writes it.
	lines := strings.SplitAfter(body, "\n")
	var b strings.Builder
	placed := false
	for _, line := range lines {
		b.WriteString(line)
		if !placed && strings.HasPrefix(line, "host:") {
			fmt.Fprintf(&b, "fence: %d\n", bl.Fence)
			placed = true
		}
	}
	if !placed {
		fmt.Fprintf(&b, "fence: %d\n", bl.Fence)
	}
	return b.String()
}
