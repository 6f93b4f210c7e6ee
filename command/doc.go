// Package command holds the run functions of guard's lock-library commands (scan, status,
// check, prune, lock, unlock, renew, lockdown, permissions, team). Each takes an
// options struct carrying its world (*guard.Env) so tests call it directly with
// in-memory streams, a fixed clock and a pinned identity; cmd/guard only parses flags.
package command
