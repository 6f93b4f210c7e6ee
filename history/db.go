// Package history keeps guard's event history (CONTRACT.md section 9) in an embedded
// SQLite database outside every project folder ($XDG_STATE_HOME/guard/history.db). The
// gates append to a journal (Spool) and never wait for the database; the database
// imports the journal each time it is opened.
package history

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go driver: the binary stays cgo-free

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/filelock"
)

// File names inside guard's state directory.
const (
	DBName    = "history.db"
	SpoolName = "events.jsonl"
	// ImportMutexName is the transient mutex an import of the default spool holds (its
	// Path + ".import"; guard doctor knows it).
	ImportMutexName = SpoolName + ".import"
)

// Paths returns the database and spool paths in guard's state directory.
func Paths(env *guard.Env) (db string, spool Spool, err error) {
	dir, err := guard.StateDir(env)
	if err != nil {
		return "", Spool{}, err
	}
	return filepath.Join(dir, DBName), Spool{Path: filepath.Join(dir, SpoolName)}, nil
}

// DB is the history database.
type DB struct {
	sql   *sql.DB
	path  string
	spool Spool
}

const schema = `
CREATE TABLE IF NOT EXISTS events (
	id       INTEGER PRIMARY KEY,
	key      TEXT NOT NULL UNIQUE,
	unix_ns  INTEGER NOT NULL,
	time     TEXT NOT NULL,
	event    TEXT NOT NULL,
	path     TEXT NOT NULL DEFAULT '',
	name     TEXT NOT NULL DEFAULT '',
	kind     TEXT NOT NULL DEFAULT '',
	scope    TEXT NOT NULL DEFAULT '',
	owner    TEXT NOT NULL DEFAULT '',
	host     TEXT NOT NULL DEFAULT '',
	fence    INTEGER,
	resource TEXT NOT NULL DEFAULT '',
	actor    TEXT NOT NULL DEFAULT '',
	detail   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS events_time ON events (unix_ns);
CREATE INDEX IF NOT EXISTS events_path ON events (path);
CREATE INDEX IF NOT EXISTS events_owner ON events (owner);
`

// Open opens (creating it and its folder when missing) the database at path, then
// imports spool into it.
func Open(ctx context.Context, path string, spool Spool) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	// WAL lets the watcher write while guard history reads; busy_timeout makes a second
	// writer wait instead of failing.
	s, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, fmt.Errorf("history: %s: %w", path, err)
	}
	if _, err := s.ExecContext(ctx, schema); err != nil {
		s.Close()
		return nil, fmt.Errorf("history: %s: %w", path, err)
	}
	db := &DB{sql: s, path: path, spool: spool}
	if spool.Path != "" {
		if _, err := db.Import(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return db, nil
}

// Close closes the database.
func (db *DB) Close() error { return db.sql.Close() }

// Path is the database file.
func (db *DB) Path() string { return db.path }

// key identifies an event, so that importing the same journal line twice (an import
// killed between its commit and its removal of the journal) stores it once.
func key(ev guard.Event) string {
	data, _ := json.Marshal(ev)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// Add stores events (in one transaction).
func (db *DB) Add(ctx context.Context, evs ...guard.Event) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO events
		(key, unix_ns, time, event, path, name, kind, scope, owner, host, fence, resource, actor, detail)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer st.Close()
	for _, ev := range evs {
		var fence any
		if ev.Fence != nil {
			fence = *ev.Fence
		}
		if _, err := st.ExecContext(ctx, key(ev), ev.Time.UnixNano(), ev.Time.Format(time.RFC3339Nano), ev.Event,
			ev.Path, ev.Name, ev.Kind, ev.Scope, ev.Owner, ev.Host, fence, ev.Resource, ev.Actor, ev.Detail); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("history: %s: %w", db.path, err)
	}
	return nil
}

// Import moves the spool's events into the database and returns how many lines it
// read. A line that is not an event (a torn write from a killed process) is skipped.
func (db *DB) Import(ctx context.Context) (int, error) {
	release, err := filelock.Mutex{Path: db.spool.Path + ".import", Transient: true}.Lock(ctx)
	if err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	defer release()
	taking := db.spool.Path + ".importing"
	total := 0
	// A journal an earlier import took but did not finish comes first.
	for round := 0; round < 2; round++ {
		if _, err := os.Stat(taking); errors.Is(err, fs.ErrNotExist) {
			ok, err := db.spool.take(taking)
			if err != nil {
				return total, err
			}
			if !ok {
				return total, nil
			}
		}
		n, err := db.ingest(ctx, taking)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func (db *DB) ingest(ctx context.Context, file string) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	var evs []guard.Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	n := 0
	for sc.Scan() {
		n++
		var ev guard.Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Event != "" {
			evs = append(evs, ev)
		}
	}
	err = sc.Err()
	f.Close()
	if err != nil {
		return n, fmt.Errorf("history: reading %s: %w", file, err)
	}
	if err := db.Add(ctx, evs...); err != nil {
		return n, err
	}
	if err := os.Remove(file); err != nil {
		return n, fmt.Errorf("history: %w", err)
	}
	return n, nil
}

// Query selects events.
type Query struct {
	// Path keeps events about this path or anything below it.
	Path  string
	Owner string
	Event string
	Since time.Time
	// Limit caps the result (0: no limit).
	Limit int
}

// Events returns the events q selects, newest first.
func (db *DB) Events(ctx context.Context, q Query) ([]guard.Event, error) {
	var where []string
	var args []any
	if q.Path != "" {
		p := filepath.Clean(q.Path)
		where = append(where, "(path = ? OR substr(path, 1, ?) = ?)")
		args = append(args, p, len(p)+1, strings.TrimSuffix(p, string(filepath.Separator))+string(filepath.Separator))
	}
	if q.Owner != "" {
		where = append(where, "owner = ?")
		args = append(args, q.Owner)
	}
	if q.Event != "" {
		where = append(where, "event = ?")
		args = append(args, q.Event)
	}
	if !q.Since.IsZero() {
		where = append(where, "unix_ns >= ?")
		args = append(args, q.Since.UnixNano())
	}
	query := "SELECT " + eventColumns + " FROM events"
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY unix_ns DESC, id DESC"
	if q.Limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	out := []guard.Event{}
	for rows.Next() {
		var ev guard.Event
		if err := scanEvent(rows, nil, &ev); err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}
