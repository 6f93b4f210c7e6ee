package history

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/guardlocks/guard/guard"
)

// Stats is `guard history --stats`: the diagnostics of the systems guard's users come
// from (how often claims collide, how often locks are taken over, how long they are
// held, which gates refuse).
type Stats struct {
	Events map[string]int `json:"events"`
	// Contention is refused / (acquired + refused); 0 when neither happened.
	Contention float64 `json:"contention_rate"`
	Takeovers  int     `json:"takeovers"`
	// RefusedBy counts refusals by gate (the refusing command, from the detail's
	// leading "gate:" word, e.g. pre-commit, publish, agent-hook).
	RefusedBy map[string]int `json:"refused_by"`
	Hold      HoldTimes      `json:"hold_times"`
}

// HoldTimes are the durations from a claim (acquired or taken_over) to its release, in
// seconds.
type HoldTimes struct {
	Count  int     `json:"count"`
	Median float64 `json:"median_seconds"`
	P95    float64 `json:"p95_seconds"`
	Max    float64 `json:"max_seconds"`
}

// Stats computes Stats over every stored event.
func (db *DB) Stats(ctx context.Context) (Stats, error) {
	evs, err := db.Events(ctx, Query{})
	if err != nil {
		return Stats{}, err
	}
	return ComputeStats(evs), nil
}

// ComputeStats computes Stats over evs (in any order).
func ComputeStats(evs []guard.Event) Stats {
	st := Stats{Events: map[string]int{}, RefusedBy: map[string]int{}}
	for _, name := range guard.Events {
		st.Events[name] = 0
	}
	sorted := append([]guard.Event(nil), evs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Time.Before(sorted[j].Time) })
	held := map[string]time.Time{} // claim time by lock path and fence
	var holds []float64
	for _, ev := range sorted {
		st.Events[ev.Event]++
		k := ev.Path
		if ev.Fence != nil {
			k += fmt.Sprintf("\x00%d", *ev.Fence)
		}
		switch ev.Event {
		case guard.EventAcquired, guard.EventTakenOver:
			held[k] = ev.Time
		case guard.EventReleased:
			if at, ok := held[k]; ok {
				holds = append(holds, ev.Time.Sub(at).Seconds())
				delete(held, k)
			}
		case guard.EventRefused:
			st.RefusedBy[gate(ev.Detail)]++
		}
	}
	st.Takeovers = st.Events[guard.EventTakenOver]
	if d := st.Events[guard.EventAcquired] + st.Events[guard.EventRefused]; d > 0 {
		st.Contention = float64(st.Events[guard.EventRefused]) / float64(d)
	}
	if len(holds) > 0 {
		sort.Float64s(holds)
		st.Hold = HoldTimes{Count: len(holds), Median: percentile(holds, 50), P95: percentile(holds, 95), Max: holds[len(holds)-1]}
	}
	return st
}

// gate is the word before the first colon of a refusal's detail ("pre-commit: ..."),
// or "other".
func gate(detail string) string {
	for i, r := range detail {
		if r == ':' {
			if i > 0 {
				return detail[:i]
			}
			break
		}
		if r == ' ' {
			break
		}
	}
	return "other"
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p int) float64 {
	rank := (p*len(sorted) + 99) / 100
	if rank < 1 {
		rank = 1
	}
	return sorted[rank-1]
}
