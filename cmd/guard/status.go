package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
)

func newStatusCmd(env *guard.Env) *cobra.Command {
	o := command.StatusOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "status [DIR]",
		Short: "Say whether an active lock covers a directory (0 free, 1 locked)",
		Long: `Say whether an active lock covers DIR (default: the current directory): one in
DIR, in any directory above it, or at the same place in another working tree of its
repository. Exit 0 when free, 1 when locked (also when a directory on the way cannot
be read: fail closed).`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Dir = args[0]
			}
			return command.RunStatus(o)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, `print {"dir", "locked", "locks": [...]}`)
	cmd.Flags().Var(command.ResourceFlag{URI: &o.Resource}, "resource", "whether the resource `URI` is locked (instead of a directory)")
	return cmd
}
