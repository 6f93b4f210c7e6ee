package hooks

import (
	"context"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/gitrun"
)

// logged is what a logRun found: the paths the pushed commits change, and whether
// one of them is named like a publication marker.
type logged struct {
	changed   []string
	sawMarker bool
	err       error
}

// logRun is git's walk of the commits a push brings (gitrun.LogPathsFunc over
// logRevs) under way: batches has the paths as git prints them (closed at the end),
// then done the whole.
type logRun struct {
	batches chan []string
	done    chan logged
	cancel  context.CancelFunc
}

// logRevs are the commits of a push the server does not have yet: those of new that
// no ref reaches.
func logRevs(new string) []string { return []string{new, "--not", "--all"} }

// startLog starts the walk of the commits new brings.
func (r *receiver) startLog(ctx context.Context, new string) *logRun {
	ctx, cancel := context.WithCancel(ctx)
	lr := &logRun{batches: make(chan []string, 64), done: make(chan logged, 1), cancel: cancel}
	go func() {
		var l logged
		defer func() { lr.done <- l }()
		defer close(lr.batches)
		l.err = recovered(func() error {
			return gitrun.LogPathsFunc(ctx, r.git, logRevs(new), func(batch []string) error {
				for _, p := range batch {
					l.sawMarker = l.sawMarker || guard.IsMarkerName(p)
				}
				l.changed = append(l.changed, batch...)
				lr.batches <- batch
				return nil
			})
		})
	}()
	return lr
}

// noLog is a logRun of nothing, for an update that brings no commits.
func noLog() *logRun {
	lr := &logRun{batches: make(chan []string), done: make(chan logged, 1), cancel: func() {}}
	close(lr.batches)
	lr.done <- logged{}
	return lr
}

// stop ends a walk whose result is not wanted, and waits for git to be gone.
func (lr *logRun) stop() {
	if lr == nil {
		return
	}
	lr.cancel()
	for range lr.batches {
	}
	<-lr.done
}
