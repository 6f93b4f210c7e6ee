//go:build !nohistory

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/history"
	"github.com/guardlocks/guard/lockcore"
	"github.com/guardlocks/guard/watch"
)

func newWatchCmd(env *guard.Env) *cobra.Command {
	var in command.RootsInput
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "watch [ROOT...] [--roots-file F] [--json]",
		Short: "Print lock events as they happen, until interrupted",
		Long: `watch prints one line per event (--json: one JSON object per line) as locks are
acquired, renewed, released, taken over, pruned or expire under the roots (ROOTs, else
the roots file, else the current directory), whoever did it: guard, the reference's
tools, an editor or rm. File-system notifications make events immediate; a full rescan
every 60 s catches what they miss (network and cloud-sync folders, an exhausted watch
limit), and expiries are reported when the clock passes them. Expiries, and changes made
by tools other than guard (lock files without guard's fence), go into the history.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			in.Roots = args
			rc, roots, err := command.ResolveRoots(env, in)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			enc := json.NewEncoder(env.Stdout)
			return watch.Run(ctx, watch.Options{
				Env: env, Roots: roots, SkipDirs: rc.SkipDirs, Backends: guard.RootBackends(env, rootPaths(roots)),
				Emit: func(ev guard.Event) {
					if asJSON {
						_ = enc.Encode(ev)
					} else {
						fmt.Fprintln(env.Stdout, history.Line(ev))
					}
					// guard's own commands record their claims and releases themselves.
					if ev.Event == guard.EventExpired || ev.Fence == nil {
						env.Record(ev)
					}
				},
				Warn: func(s string) { fmt.Fprintf(env.Stderr, "guard watch: warning: %s\n", s) },
				Ready: func() {
					fmt.Fprintf(env.Stderr, "guard watch: watching %d root(s); events follow (Ctrl-C ends)\n", len(roots))
				},
			})
		},
	}
	cmd.Flags().StringVar(&in.RootsFile, "roots-file", "", "roots file (lock_roots.json)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON event object per line")
	return cmd
}

// rootPaths are the roots' folders.
func rootPaths(roots []lockcore.ScanRoot) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = r.Path
	}
	return out
}
