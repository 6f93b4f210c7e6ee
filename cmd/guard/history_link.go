//go:build !nohistory

package main

import (
	"context"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/history"
)

// The history, and with it SQLite, is linked into guard unless it is built with
// -tags nohistory (history_nolink.go), which exists only so that bench/sqlite.sh can
// measure what linking SQLite costs every hook's start-up.

// historyRecorder is where every command records its events: the history's journal.
// A journal that cannot be written (no state directory, a full disk) loses the event,
// never the answer. nil when there is no state directory.
func historyRecorder(env *guard.Env) func(guard.Event) {
	_, spool, err := history.Paths(env)
	if err != nil {
		return nil
	}
	return func(ev guard.Event) { _ = spool.Append(ev) }
}

// historyStateMutexes are the history's transient mutexes in the state directory
// (guard doctor reports them when stranded).
var historyStateMutexes = []string{history.ImportMutexName}

// historyJSON is guard mcp's history tool: guard history --json [PATH] --limit N.
func historyJSON(ctx context.Context, env *guard.Env, path string, limit int) error {
	return history.Run(ctx, history.Options{Env: env, Path: path, Limit: limit, JSON: true})
}
