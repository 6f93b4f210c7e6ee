package history

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/wait"
)

// FollowPoll is how often Follow looks at the journal without a notification (a
// notification makes it look at once).
const FollowPoll = time.Second

// Follow hands emit, in the order they were stored, the events that enter the
// database from now on, until ctx ends: those of guard's commands and the hooks in any
// process, whoever imported them from the journal. It wakes when the journal's folder
// changes (file-system notifications, with a poll every FollowPoll), imports the
// journal when there is one, and reads the rows it has not seen. skip, when set, drops
// events the caller has from elsewhere (guard serve's own watcher's). An error (a
// database busy for longer than its timeout) is handed to warn and the next round
// tries again: the follower stops only with ctx.
func (db *DB) Follow(ctx context.Context, emit func(guard.Event), skip func(guard.Event) bool, warn func(error)) {
	var cursor int64
	started := false
	spool := filepath.Base(db.spool.Path)
	w := wait.Watch(func(name string) bool { return name == spool }, filepath.Dir(db.spool.Path))
	defer w.Close()
	var last string
	for {
		err := db.follow(ctx, &cursor, &started, emit, skip)
		if err != nil && ctx.Err() == nil && warn != nil && err.Error() != last {
			warn(err)
		}
		if err == nil {
			last = ""
		} else {
			last = err.Error()
		}
		if w.Next(ctx, FollowPoll) != nil {
			return
		}
	}
}

// follow is one round of Follow.
func (db *DB) follow(ctx context.Context, cursor *int64, started *bool, emit func(guard.Event), skip func(guard.Event) bool) error {
	if !*started {
		// Where the stream starts: after what is stored now (the journal's lines
		// are imported below, so they are news).
		if err := db.sql.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) FROM events").Scan(cursor); err != nil {
			return fmt.Errorf("history: %w", err)
		}
		*started = true
	}
	// Only a journal with lines is taken: every take holds the journal's lock for a
	// moment, and a gate waits for that lock only briefly before it gives its event up.
	if st, err := os.Stat(db.spool.Path); db.spool.Path != "" && err == nil && st.Size() > 0 {
		if _, err := db.Import(ctx); err != nil {
			return err
		}
	}
	evs, last, err := db.after(ctx, *cursor)
	if err != nil {
		return err
	}
	*cursor = last
	for _, ev := range evs {
		if skip == nil || !skip(ev) {
			emit(ev)
		}
	}
	return nil
}

// after returns the events stored after row id, in id order, and the last id.
func (db *DB) after(ctx context.Context, id int64) ([]guard.Event, int64, error) {
	rows, err := db.sql.QueryContext(ctx, "SELECT id, "+eventColumns+" FROM events WHERE id > ? ORDER BY id", id)
	if err != nil {
		return nil, id, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []guard.Event
	for rows.Next() {
		var ev guard.Event
		if err := scanEvent(rows, &id, &ev); err != nil {
			return nil, id, err
		}
		out = append(out, ev)
	}
	return out, id, rows.Err()
}

// Tally counts the events, and lists the lock files whose last lock event was a
// release or a prune (GET /api/stats: the reference's "deleted").
func (db *DB) Tally(ctx context.Context) (total int, gone []string, err error) {
	if err := db.sql.QueryRowContext(ctx, "SELECT COUNT(*) FROM events").Scan(&total); err != nil {
		return 0, nil, fmt.Errorf("history: %w", err)
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT path, event FROM events
		WHERE path != '' AND event IN ('acquired', 'renewed', 'released', 'expired', 'taken_over', 'pruned')
		ORDER BY unix_ns, id`)
	if err != nil {
		return 0, nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	lastOf := map[string]string{}
	var order []string
	for rows.Next() {
		var p, ev string
		if err := rows.Scan(&p, &ev); err != nil {
			return 0, nil, fmt.Errorf("history: %w", err)
		}
		if _, ok := lastOf[p]; !ok {
			order = append(order, p)
		}
		lastOf[p] = ev
	}
	if err := rows.Err(); err != nil {
		return 0, nil, fmt.Errorf("history: %w", err)
	}
	for _, p := range order {
		if e := lastOf[p]; e == guard.EventReleased || e == guard.EventPruned {
			gone = append(gone, p)
		}
	}
	return total, gone, nil
}

// eventColumns are an event's columns, in scanEvent's order.
const eventColumns = "time, event, path, name, kind, scope, owner, host, fence, resource, actor, detail"

// scanEvent reads one row of eventColumns (preceded by the id when id is not nil).
func scanEvent(rows *sql.Rows, id *int64, ev *guard.Event) error {
	var at string
	var fence sql.NullInt64
	dest := []any{&at, &ev.Event, &ev.Path, &ev.Name, &ev.Kind, &ev.Scope, &ev.Owner, &ev.Host, &fence, &ev.Resource, &ev.Actor, &ev.Detail}
	if id != nil {
		dest = append([]any{id}, dest...)
	}
	if err := rows.Scan(dest...); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	ev.Time, _ = time.Parse(time.RFC3339Nano, at)
	if fence.Valid {
		f := fence.Int64
		ev.Fence = &f
	}
	return nil
}
