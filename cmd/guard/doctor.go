package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
)

// TODO(owner of this command): replace this stub.
func newDoctorCmd(env *guard.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "(not implemented yet)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return guard.Exitf(guard.ExitUsage, "doctor: not implemented yet")
		},
	}
}
