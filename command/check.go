package command

import "github.com/guardlocks/guard/guard"

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
		return guard.Fail(guard.BadInput, "check: name at least one PATH")
	}
	op := o.Op
	if op == "" {
		op = guard.OpEdit
	}
	if err := guard.CheckOpName(op); err != nil {
		return err
	}
	// Each path is judged under the configuration and identity of the repository that
	// holds it (CONTRACT.md section 6), not the current directory's.
	subjects, err := guard.SubjectsOf(o.Env, o.Paths, guard.Identity{Owner: o.Owner, Host: o.Host})
	if err != nil {
		return guard.Fail(guard.BadInput, "check: %w", err)
	}
	req := guard.Request{
		Ops: []string{op}, Descend: true,
		Fence: o.Env.Env("LOCK_FENCE"), FenceFile: o.Env.Env("LOCK_FENCE_FILE"),
	}
	if req.Fence != "" || req.FenceFile != "" {
		req.RepoRoot = subjects[0].Top
	}
	dec, err := guard.CheckSubjects(o.Env, subjects, req)
	if err != nil {
		return guard.Fail(guard.BadInput, "check: %w", err)
	}
	if guard.IsPublicationOp(op) {
		addMarkers(dec, op, subjects)
	}
	if o.JSON {
		if err := guard.WriteJSON(o.Env.Stdout, "check", dec.ToJSON()); err != nil {
			return err
		}
	}
	dec.Explain(o.Env.Stderr)
	guard.RecordDecision(o.Env, "check", subjects[0].Identity.Owner, dec)
	if !dec.Allowed {
		return guard.Explained(guard.Refused)
	}
	return nil
}

// addMarkers adds to dec what the publication markers say of publishing each path's
// project by op: PRIVATE.txt (or both markers) refuses, as guard publish would; no
// marker warns, or refuses under [publish] require_public of the path's own
// configuration. dec already holds the locks' answer, so only the markers are looked
// at, once per directory.
func addMarkers(dec *guard.Decision, op string, subjects []*guard.Subject) {
	seenWarn := map[string]bool{}
	for _, w := range dec.Warnings {
		seenWarn[w] = true
	}
	byDir := map[string]*guard.PublicationDecision{}
	for _, s := range subjects {
		pd := byDir[s.Dir]
		if pd == nil {
			pd = guard.CheckMarkers(s.Dir, op, s.Config)
			byDir[s.Dir] = pd
		}
		for _, r := range pd.Refusals {
			dec.Blocking = append(dec.Blocking, guard.Block{Path: s.Path, Reason: r, Markers: pd.Markers})
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
