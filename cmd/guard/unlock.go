package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/internal/cli"
)

func newUnlockCmd(env *guard.Env) *cobra.Command {
	o := cli.UnlockOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "unlock [DIR | LOCKFILE]",
		Short: "Release a lock you hold (someone else's only with --force)",
		Long: `Remove the lock LOCKFILE, or the lock the naming flags give in DIR (default:
the current directory). Your own lock goes (0); someone else's, or one whose
token you do not give, only with --force (else 1). A user lock is removed only
with --force when stdin is a terminal (a person); otherwise 1. Prints the
removed lock's path.`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Target = args[0]
			}
			return cli.RunUnlock(o)
		},
	}
	addNamingFlags(cmd, &o.LockNaming)
	nameOnlyConditionHelp(cmd)
	f := cmd.Flags()
	f.StringVar(&o.Owner, "owner", "", "who you are (default: GUARD_OWNER, .guard.toml owner, <user>@<host>)")
	f.StringVar(&o.Token, "token", "", "the lock's token, when it carries one")
	f.BoolVar(&o.Force, "force", false, "remove someone else's lock")
	f.BoolVar(&o.JSON, "json", false, "print a JSON object instead of the path")
	return cmd
}
