package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
)

func newLockdownCmd(env *guard.Env) *cobra.Command {
	o := command.LockdownOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "lockdown [ROOT...]",
		Short: "Lock every top-level root at once (dry run unless --commit); --undo reverses it",
		Long: `Write LOCK.txt with created_by: bulk into every top-level root (ROOTs, else the
roots of --roots-file, else of roots_file in .guard.toml) that holds no active
or protected lock, and record them in $XDG_STATE_HOME/guard/lockdown.json
(default ~/.local/state/guard/lockdown.json). Without --commit it only says what
it would do.

--undo removes the locks that manifest lists, but only files named LOCK.txt that
still say created_by: bulk and are not protected; also a dry run without
--commit. Running either twice changes nothing more.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Roots = args
			return command.RunLockdown(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.RootsFile, "roots-file", "", "lock_roots.json whose top-level roots to lock")
	f.StringVar(&o.Owner, "owner", "", "owner written into the locks (default \"user\")")
	f.StringVar(&o.Reason, "reason", "", "purpose written into the locks")
	f.BoolVar(&o.Commit, "commit", false, "really write (or, with --undo, remove)")
	f.BoolVar(&o.Undo, "undo", false, "remove the locks the last lockdowns wrote")
	f.BoolVar(&o.JSON, "json", false, "print a JSON report")
	return cmd
}
