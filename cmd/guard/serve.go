//go:build !nohistory

package main

import (
	"context"
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
	"github.com/guardlocks/guard/web"
)

// serveOptions are guard serve's flags.
type serveOptions struct {
	roots command.RootsInput
	addr  string
	open  bool
}

func newServeCmd(env *guard.Env, runF func(context.Context, web.ServeOptions) error) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8095] [ROOT...] [--roots-file F] [--open]",
		Short: "Serve a local web page and REST API over the locks, live",
		Long: `serve runs the watcher over the roots (ROOTs, else the roots file, else the current
directory) and serves a web page and a JSON API on a loopback address: rooms with their
counts, the active locks with a live countdown, each lock's history, a timeline of
events, and buttons to claim, release, prune and lock down (each after a preview).
It prints a URL with a secret token, generated at start, on stderr: only whoever sees
this terminal can use the page, so it is the person's channel (user locks may be made
and removed there) and agents cannot use it. Loopback only; one per state directory.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.roots.Roots = args
			rc, roots, err := command.ResolveRoots(env, o.roots)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			scans := make(chan chan<- guard.WatchScan)
			var db *history.DB
			if dbPath, spool, err := history.Paths(env); err == nil {
				if db, err = history.Open(ctx, dbPath, spool); err != nil {
					fmt.Fprintf(env.Stderr, "guard serve: warning: no history (%v); the page shows the watcher's events only\n", err)
					db = nil
				} else {
					defer db.Close()
				}
			}
			so := web.ServeOptions{
				Options: web.Options{Env: env, ExitCode: exitCode, Roots: roots, SkipDirs: rc.SkipDirs, RootsInput: o.roots,
					Held: heldLocks(env, guard.RootBackends(env, rootPaths(roots))),
					Rescan: func(ctx context.Context) (guard.WatchScan, error) {
						reply := make(chan guard.WatchScan, 1)
						select {
						case scans <- reply:
						case <-ctx.Done():
							return guard.WatchScan{}, fmt.Errorf("the watcher did not take the request: %w", ctx.Err())
						}
						select {
						case r := <-reply:
							return r, nil
						case <-ctx.Done():
							return guard.WatchScan{}, fmt.Errorf("the watcher's scan did not finish: %w", ctx.Err())
						}
					}},
				Addr: o.addr, Open: o.open,
				Watch: func(ctx context.Context, emit func(guard.Event), scanned func(guard.WatchScan)) error {
					if db != nil {
						// What guard's commands and the hooks record (in any process)
						// joins the stream; the watcher's own events are already in it.
						go db.Follow(ctx, emit, func(ev guard.Event) bool { return ev.Actor == "watch" }, func(err error) {
							fmt.Fprintf(env.Stderr, "guard serve: warning: the history's events are late: %v (trying again)\n", err)
						})
					}
					return watch.Run(ctx, watch.Options{
						Env: env, Roots: roots, SkipDirs: rc.SkipDirs, Scans: scans, Scanned: scanned,
						Backends: guard.RootBackends(env, rootPaths(roots)),
						Emit: func(ev guard.Event) {
							emit(ev)
							// guard's own commands (the page's too) record their claims and
							// releases themselves.
							if ev.Event == guard.EventExpired || ev.Fence == nil {
								env.Record(ev)
							}
						},
						Warn: func(s string) { fmt.Fprintf(env.Stderr, "guard serve: warning: %s\n", s) },
					})
				},
			}
			if db != nil {
				so.History = func(ctx context.Context, q web.Query) ([]guard.Event, error) {
					if _, err := db.Import(ctx); err != nil {
						return nil, err
					}
					return db.Events(ctx, history.Query{Path: q.Path, Owner: q.Owner, Event: q.Event, Since: q.Since, Limit: q.Limit})
				}
				so.Stats = func(ctx context.Context) (any, error) {
					if _, err := db.Import(ctx); err != nil {
						return nil, err
					}
					return db.Stats(ctx)
				}
				so.Tally = func(ctx context.Context) (web.Tally, error) {
					total, gone, err := db.Tally(ctx)
					return web.Tally{Total: total, Gone: gone}, err
				}
			}
			return runF(ctx, so)
		},
	}
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8095", "loopback address to listen on (host:port; port 0 picks a free one)")
	cmd.Flags().StringVar(&o.roots.RootsFile, "roots-file", "", "roots file (lock_roots.json)")
	cmd.Flags().BoolVar(&o.open, "open", false, "open the page in the system's browser")
	return cmd
}

// heldLocks lists what the backends hold (nil without backends); a backend that cannot
// be reached adds nothing to the list (the watcher warns about it).
func heldLocks(env *guard.Env, pbs []*guard.ProjectBackend) func(context.Context) []*lockcore.Lock {
	if len(pbs) == 0 {
		return nil
	}
	return func(ctx context.Context) []*lockcore.Lock {
		var out []*lockcore.Lock
		for _, pb := range pbs {
			locks, _, err := pb.HeldLocks(ctx, env.Clock.Now().Location())
			if err == nil {
				out = append(out, locks...)
			}
		}
		return out
	}
}
