package hooks

import (
	"bytes"
	"context"
	"fmt"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// foundMarker is a publication marker git records or would publish: its path (as git
// names it) and where it was found. Whether that is a refusal, and what it says, is
// guard.CommittedMarker's decision.
type foundMarker struct {
	rel   string
	place guard.MarkerPlace
}

// startTreeMarkers starts listing the marker-named paths in the tree of tip (a
// commit) and returns the function that waits for them. One `git ls-tree -r`: on a
// 100,000-file tree it costs less than the push's own `git log`, beside which it runs.
func startTreeMarkers(ctx context.Context, g gitrun.Git, tip string) (func() ([]foundMarker, error), error) {
	p, err := g.Start(ctx, nil, "-c", "core.quotePath=false", "ls-tree", "-r", "-z", "--name-only", "--full-tree", tip)
	if err != nil {
		return nil, err
	}
	return func() ([]foundMarker, error) {
		out, err := p.Wait()
		if err != nil {
			return nil, fmt.Errorf("listing the tree of %s: %w", short(tip), err)
		}
		// A large tree has many names and few markers: the names are looked at in
		// place, and only a marker becomes a string.
		var found []foundMarker
		for len(out) > 0 {
			name, rest, _ := bytes.Cut(out, []byte{0})
			if guard.IsMarkerNameBytes(name) {
				found = append(found, foundMarker{rel: string(name), place: guard.MarkerInTree})
			}
			out = rest
		}
		return found, nil
	}, nil
}

// rangeMarkers lists the marker-named paths that a commit of `git log revs` added or
// changed (a deletion removes a marker, which is the repair, so it is left out), each
// once, except those in skip (already found in the tip's tree).
func rangeMarkers(ctx context.Context, g gitrun.Git, revs []string, skip []foundMarker) ([]foundMarker, error) {
	args := append([]string{"-c", "core.quotePath=false", "-c", "log.showRoot=true", "log", "--no-renames", "--diff-filter=d", "--name-only", "-z", "--format=", "--diff-merges=combined", "--no-ext-diff", "--no-textconv"}, revs...)
	out, err := g.Run(ctx, append(args, "--")...)
	if err != nil {
		return nil, fmt.Errorf("listing the commits of the range: %w", err)
	}
	seen := map[string]bool{}
	for _, m := range skip {
		seen[m.rel] = true
	}
	var found []foundMarker
	gitrun.EachName(out, func(rel string) {
		if guard.IsMarkerName(rel) && !seen[rel] {
			seen[rel] = true
			found = append(found, foundMarker{rel: rel, place: guard.MarkerInRange})
		}
	})
	return found, nil
}

// markerBlocks turns found markers into the policy's refusals, at their absolute
// paths under the working tree's top.
func (s *session) markerBlocks(found []foundMarker) []guard.Block {
	var blocks []guard.Block
	for _, m := range found {
		if reason, refused := guard.CommittedMarker(m.rel, m.place, false); refused {
			blocks = append(blocks, guard.Block{Path: s.abs([]string{m.rel})[0], Reason: reason})
		}
	}
	return blocks
}
