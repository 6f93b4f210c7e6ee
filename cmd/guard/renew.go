package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
)

func newRenewCmd(env *guard.Env) *cobra.Command {
	o := command.RenewOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "renew [DIR | LOCKFILE]",
		Short: "Move created to now for your own live lock",
		Long: `Renew your own live lock (LOCKFILE, or the lock the naming flags give in DIR):
created moves to now, and with --expires the lifetime changes; the fence and
everything else stay. An expired lock or someone else's is refused (1): claim an
expired one again with guard lock.`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Target = args[0]
			}
			return command.RunRenew(cmd.Context(), o)
		},
	}
	addHeldLockFlags(cmd, &o.LockNaming, &o.Owner)
	f := cmd.Flags()
	f.StringVar(&o.Expires, "expires", "", "new lifetime, <number><s|m|h|d>")
	f.BoolVar(&o.JSON, "json", false, "print the renewed lock as JSON")
	f.Var(command.ResourceFlag{URI: &o.Resource}, "resource", "renew the lock of the resource `URI`")
	return cmd
}
