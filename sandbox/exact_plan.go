package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// ExactPlan is what the exact sandbox mounts in COMMAND's own mount namespace. Every
// path is real (symbolic links resolved), as in Plan.
type ExactPlan struct {
	// ReadOnly are the existing read-only paths, outermost only, sorted: each is
	// bind-mounted read-only onto itself, so that nothing in it can be written,
	// created, removed, chmod'ed or touched (EROFS), nor it be renamed or removed
	// (EBUSY), nor anything be linked or renamed across its edge (EXDEV).
	ReadOnly []string
	// Pinned are the folders on the way to a read-only path (/ excepted), sorted:
	// each is bind-mounted onto itself and stays writable, so that it cannot be
	// renamed or removed (EBUSY) and a locked area stays where its lock says.
	Pinned []string
	// Allow are the exemptions (--allow) that lie in a read-only path: mounted
	// writable again over it.
	Allow []string
	// Missing are read-only paths that do not exist (a mapped scope nobody created
	// yet): no mount can hold a name that is not there, so Landlock does, with its
	// plan's limits in the folders on the way to them.
	Missing []string
}

// NewExactPlan turns the read-only paths (absolute; they need not exist) and the
// exemptions into mounts. Like NewPlan, an exemption inside a read-only area must
// exist. It lists no folder: the cost is one lstat per path.
func NewExactPlan(readOnly, allow []string) (*ExactPlan, error) {
	ro, allowed, err := resolve(readOnly, allow)
	if err != nil {
		return nil, err
	}
	plan := &ExactPlan{}
	for _, p := range ro {
		if _, err := os.Lstat(p); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("read-only path %s: %w", p, err)
			}
			plan.Missing = append(plan.Missing, p)
			continue
		}
		plan.ReadOnly = append(plan.ReadOnly, p)
	}
	for _, a := range allowed {
		if !insideAny(a, ro) {
			continue
		}
		if _, err := os.Stat(a); err != nil {
			return nil, fmt.Errorf("--allow %s: it lies in a read-only area and must exist to be exempted: %w", a, err)
		}
		if insideAny(a, plan.ReadOnly) {
			plan.Allow = append(plan.Allow, a)
		}
	}
	pinned := map[string]bool{}
	for _, p := range plan.ReadOnly {
		for d := filepath.Dir(p); d != filepath.Dir(d); d = filepath.Dir(d) {
			if pinned[d] {
				break
			}
			pinned[d] = true
		}
	}
	for d := range pinned {
		plan.Pinned = append(plan.Pinned, d)
	}
	sort.Strings(plan.Pinned)
	sort.Strings(plan.Allow)
	return plan, nil
}
