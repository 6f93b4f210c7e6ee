//go:build !nohistory

package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/history"
)

func newHistoryCmd(env *guard.Env) *cobra.Command {
	o := history.Options{Env: env}
	cmd := &cobra.Command{
		Use:   "history [PATH] [--owner O] [--event E] [--since D] [--limit N] [--json] | --stats",
		Short: "List recorded lock events, newest first (or --stats)",
		Long: `history lists what guard recorded: claims, renewals, releases, takeovers, prunes,
waiting, refusals by the hooks, check, publish, ci and the agent hook, bypasses, and what
guard watch saw. The database is $XDG_STATE_HOME/guard/history.db (default
~/.local/state/guard/history.db), never inside a project folder. --stats gives counts per
event, the contention rate (refused / (acquired + refused)), takeovers, hold times
(median, p95, max) and refusals by gate.`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Path = args[0]
			}
			return history.Run(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Owner, "owner", "", "only events of this owner")
	f.StringVar(&o.Event, "event", "", "only this event: acquired, renewed, released, expired, taken_over, pruned, waiting, refused, bypassed")
	f.StringVar(&o.Since, "since", "", "only events of the last D (30m, 12h, 7d)")
	f.IntVar(&o.Limit, "limit", 50, "at most N events (0: all)")
	f.BoolVar(&o.Stats, "stats", false, "counts, contention rate, takeovers and hold times instead of events")
	f.BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}
