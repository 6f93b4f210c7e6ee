//go:build nohistory

package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/web"
)

// A guard built with -tags nohistory leaves the history package, and SQLite, out: it
// exists only for bench/sqlite.sh, which compares the start-up of guard hook
// pre-commit with and without SQLite linked. It records nothing, and history, watch
// and serve say they are not there. The tests are not built this way.

func historyRecorder(*guard.Env) func(guard.Event) { return nil }

var historyStateMutexes []string

func notBuiltIn(name string) *cobra.Command {
	return &cobra.Command{Use: name, Short: "(not in this build: -tags nohistory)",
		RunE: func(*cobra.Command, []string) error {
			return guard.Fail(guard.BadInput, "%s: this guard was built with -tags nohistory, for benchmarks only", name)
		}}
}

func newHistoryCmd(*guard.Env) *cobra.Command { return notBuiltIn("history") }
func newWatchCmd(*guard.Env) *cobra.Command   { return notBuiltIn("watch") }
func newServeCmd(*guard.Env, func(context.Context, web.ServeOptions) error) *cobra.Command {
	return notBuiltIn("serve")
}

// historyJSON is nil: guard mcp's history tool says the history is not in this build.
var historyJSON func(context.Context, *guard.Env, string, int) error
