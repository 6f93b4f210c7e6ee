package history

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

// Options are the inputs of guard history.
type Options struct {
	Env   *guard.Env
	Path  string
	Owner string
	Event string
	// Since is a duration back from now (<number><s|m|h|d>).
	Since string
	Limit int
	Stats bool
	JSON  bool
}

// Run is guard history: the events newest first, or --stats.
func Run(ctx context.Context, o Options) error {
	q := Query{Owner: o.Owner, Event: o.Event, Limit: o.Limit}
	if o.Event != "" && !slices.Contains(guard.Events, o.Event) {
		return guard.Fail(guard.BadInput, "history: unknown event %q (events: %s)", o.Event, strings.Join(guard.Events, ", "))
	}
	if o.Limit < 0 {
		return guard.Fail(guard.BadInput, "history: --limit must be 0 (no limit) or more, not %d", o.Limit)
	}
	if o.Since != "" {
		d, ok, _ := lockcore.ParseDuration(o.Since)
		if !ok {
			return guard.Fail(guard.BadInput, "history: --since %q is not a duration like 30m, 12h or 7d", o.Since)
		}
		q.Since = o.Env.Clock.Now().Add(-d)
	}
	if o.Path != "" {
		q.Path = o.Path
		if !filepath.IsAbs(q.Path) {
			q.Path = filepath.Join(o.Env.Dir, q.Path)
		}
	}
	dbPath, spool, err := Paths(o.Env)
	if err != nil {
		return guard.Fail(guard.BadInput, "history: %w", err)
	}
	db, err := Open(ctx, dbPath, spool)
	if err != nil {
		return guard.Fail(guard.BadInput, "%w", err)
	}
	defer db.Close()
	if o.Stats {
		st, err := db.Stats(ctx)
		if err != nil {
			return guard.Fail(guard.BadInput, "%w", err)
		}
		if o.JSON {
			return guard.WriteJSON(o.Env.Stdout, "history --stats", st)
		}
		return writeStats(o.Env, st)
	}
	evs, err := db.Events(ctx, q)
	if err != nil {
		return guard.Fail(guard.BadInput, "%w", err)
	}
	if o.JSON {
		return guard.WriteJSON(o.Env.Stdout, "history", evs)
	}
	for _, ev := range evs {
		fmt.Fprintln(o.Env.Stdout, Line(ev))
	}
	return nil
}

// Line is an event as one line of text (guard history, guard watch).
func Line(ev guard.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-10s %s", ev.Time.Format(time.RFC3339), ev.Event, ev.Path)
	for _, f := range [][2]string{{"kind", ev.Kind}, {"owner", ev.Owner}, {"host", ev.Host}, {"resource", ev.Resource}, {"actor", ev.Actor}} {
		if f[1] != "" {
			fmt.Fprintf(&b, "  %s=%s", f[0], f[1])
		}
	}
	if ev.Fence != nil {
		fmt.Fprintf(&b, "  fence=%d", *ev.Fence)
	}
	if ev.Detail != "" {
		fmt.Fprintf(&b, "  (%s)", strings.ReplaceAll(ev.Detail, "\n", " "))
	}
	return b.String()
}

func writeStats(env *guard.Env, st Stats) error {
	w := env.Stdout
	fmt.Fprintln(w, "events:")
	for _, name := range guard.Events {
		fmt.Fprintf(w, "  %-10s %d\n", name, st.Events[name])
	}
	fmt.Fprintf(w, "contention rate: %.1f%% (refused / (acquired + refused))\n", 100*st.Contention)
	fmt.Fprintf(w, "takeovers: %d\n", st.Takeovers)
	if st.Hold.Count == 0 {
		fmt.Fprintln(w, "hold times: none recorded")
	} else {
		fmt.Fprintf(w, "hold times (%d): median %s, p95 %s, max %s\n", st.Hold.Count, secs(st.Hold.Median), secs(st.Hold.P95), secs(st.Hold.Max))
	}
	if len(st.RefusedBy) > 0 {
		gates := make([]string, 0, len(st.RefusedBy))
		for g := range st.RefusedBy {
			gates = append(gates, g)
		}
		slices.Sort(gates)
		fmt.Fprintln(w, "refusals by gate:")
		for _, g := range gates {
			fmt.Fprintf(w, "  %-12s %d\n", g, st.RefusedBy[g])
		}
	}
	return nil
}

func secs(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(time.Second).String()
}
