package hooks

import (
	"context"

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
// commit) and returns the function that waits for them.
func startTreeMarkers(ctx context.Context, g gitrun.Git, tip string) (func() ([]foundMarker, error), error) {
	wait, err := gitrun.StartTreeNames(ctx, g, tip, guard.IsMarkerNameBytes)
	if err != nil {
		return nil, err
	}
	return func() ([]foundMarker, error) {
		names, err := wait()
		return placed(names, guard.MarkerInTree), err
	}, nil
}

// rangeMarkers lists the marker-named paths that a commit of `git log revs` added or
// changed (a deletion removes a marker, which is the repair, so it is left out), each
// once, except those in skip (already found in the tip's tree).
func rangeMarkers(ctx context.Context, g gitrun.Git, revs []string, skip []foundMarker) ([]foundMarker, error) {
	seen := map[string]bool{}
	for _, m := range skip {
		seen[m.rel] = true
	}
	names, err := gitrun.RangeNames(ctx, g, revs, guard.IsMarkerName, seen)
	return placed(names, guard.MarkerInRange), err
}

func placed(names []string, place guard.MarkerPlace) []foundMarker {
	var found []foundMarker
	for _, n := range names {
		found = append(found, foundMarker{rel: n, place: place})
	}
	return found
}
