package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
)

func newUnlockCmd(env *guard.Env) *cobra.Command {
	o := command.UnlockOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "unlock [DIR | LOCKFILE] | --all [ROOT...]",
		Short: "Release a lock you hold (someone else's only with --force)",
		Long: `Remove the lock LOCKFILE, or the lock the naming flags give in DIR (default:
the current directory). Your own lock goes (0); someone else's, or one whose
token you do not give, only with --force (else 1). A user lock is removed only
with --force when stdin is a terminal (a person); otherwise 1. Prints the
removed lock's path.

--all releases every lock the owner holds under the ROOTs (or the roots file,
else the current directory) and in the resources directory, as a process's
graceful shutdown does: one "released <path>" line each, exit 0 also when there
was nothing to release. User locks and locks of others are never touched.
--resource URI releases a resource's lock.`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case o.All:
				o.Roots.Roots = args
			case len(args) > 1:
				return guard.Fail(guard.BadInput, "unlock: one DIR or LOCKFILE (several ROOTs go with --all)")
			case len(args) == 1:
				o.Target = args[0]
			}
			return command.RunUnlock(cmd.Context(), o)
		},
	}
	addHeldLockFlags(cmd, &o.LockNaming, &o.Owner)
	f := cmd.Flags()
	f.StringVar(&o.Token, "token", "", "the lock's token, when it carries one")
	f.BoolVar(&o.Force, "force", false, "remove someone else's lock")
	f.BoolVar(&o.JSON, "json", false, "print a JSON object instead of the path")
	f.BoolVar(&o.All, "all", false, "release every lock the owner holds under the ROOTs")
	f.StringVar(&o.Roots.RootsFile, "roots-file", "", "with --all: the roots of this lock_roots.json")
	f.Var(command.ResourceFlag{URI: &o.Resource}, "resource", "release the lock of the resource `URI`")
	return cmd
}
