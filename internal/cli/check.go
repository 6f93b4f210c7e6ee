package cli

import (
	"os"
	"path/filepath"

	"github.com/guardlocks/guard/guard"
)

// CheckOptions are the inputs of `guard check`.
type CheckOptions struct {
	Env   *guard.Env
	Op    string
	Owner string
	Host  string
	JSON  bool
	Paths []string
}

// RunCheck answers whether Op may be done on Paths: exit 0 allowed, 1 refused. A folder
// also collides with the locks inside it. A holder that exported LOCK_FENCE and
// LOCK_FENCE_FILE is refused once its lease was superseded.
func RunCheck(o CheckOptions) error {
	if len(o.Paths) == 0 {
		return guard.Exitf(guard.ExitUsage, "check: name at least one PATH")
	}
	cfg, err := guard.FindConfig(o.Env.Dir)
	if err != nil {
		return guard.Exitf(guard.ExitUsage, "%w", err)
	}
	id := guard.ResolveIdentity(o.Env, o.Owner, o.Host, cfg)
	op := o.Op
	if op == "" {
		op = "edit"
	}
	req := guard.Request{
		Ops: []string{op}, Paths: o.Paths, Descend: true,
		Fence: o.Env.Env("LOCK_FENCE"), FenceFile: o.Env.Env("LOCK_FENCE_FILE"),
	}
	if req.Fence != "" || req.FenceFile != "" {
		req.RepoRoot = repoRootOf(o.Env, o.Paths[0])
	}
	policy := guard.NewPolicy(o.Env, id)
	dec, err := policy.Check(req)
	if err != nil {
		return guard.Exitf(guard.ExitUsage, "check: %w", err)
	}
	if guard.IsPublicationOp(op) {
		addMarkers(o.Env, dec, op, cfg, o.Paths)
	}
	if o.JSON {
		if err := guard.WriteJSON(o.Env.Stdout, "check", dec.ToJSON()); err != nil {
			return err
		}
	}
	dec.Explain(o.Env.Stderr)
	if !dec.Allowed {
		return guard.Silent(guard.ExitRefused)
	}
	return nil
}

// repoRootOf returns the working-tree root above path ("" outside a repository).
func repoRootOf(env *guard.Env, path string) string {
	return guard.RepoTop(absUnder(env.Dir, path))
}

// addMarkers adds to dec what the publication markers say of publishing each path's
// project by op: PRIVATE.txt (or both markers) refuses, as guard publish would; no
// marker warns, or refuses under [publish] require_public. dec already holds the
// locks' answer, so only the markers are looked at, once per directory.
func addMarkers(env *guard.Env, dec *guard.Decision, op string, cfg *guard.Config, paths []string) {
	seenWarn := map[string]bool{}
	for _, w := range dec.Warnings {
		seenWarn[w] = true
	}
	byDir := map[string]*guard.PublicationDecision{}
	for _, raw := range paths {
		abs := absUnder(env.Dir, raw)
		dir := abs
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			dir = filepath.Dir(abs)
		}
		pd := byDir[dir]
		if pd == nil {
			pd = guard.CheckMarkers(dir, op, cfg)
			byDir[dir] = pd
		}
		for _, r := range pd.Refusals {
			dec.Blocking = append(dec.Blocking, guard.Block{Path: abs, Reason: r})
		}
		for _, w := range pd.Warnings {
			if !seenWarn[w] {
				seenWarn[w] = true
				dec.Warnings = append(dec.Warnings, w)
			}
		}
	}
	dec.Allowed = len(dec.Blocking) == 0
}
