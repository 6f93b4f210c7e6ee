package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
)

type buildInfo struct{ version, commit, date string }

// newRootCmd builds the command tree. Each command lives in its own file as a thin
// layer that parses flags into an options struct and calls a run function in the
// package it drives.
func newRootCmd(env *guard.Env, bi buildInfo) *cobra.Command {
	root := &cobra.Command{
		Use:           "guard",
		Short:         "Enforce LOCK-SYSTEM locks on commits, pushes, publications and agent actions",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &guard.ExitError{Code: guard.ExitUsage, Err: err}
	})
	root.AddCommand(
		newVersionCmd(env, bi),
		// lock library (read side)
		newScanCmd(env), newStatusCmd(env), newCheckCmd(env), newPruneCmd(env),
		// lock library (write side)
		newLockCmd(env), newUnlockCmd(env), newRenewCmd(env), newLockdownCmd(env),
		newPermissionsCmd(env), newTeamCmd(env),
		// git
		newHookCmd(env), newInstallCmd(env), newUninstallCmd(env), newDoctorCmd(env),
		// publication
		newPublishCmd(env), newPreflightCmd(env), newAuditCmd(env), newCICmd(env),
		// coding agents
		newAgentHookCmd(env), newAgentInstallCmd(env), newAgentUninstallCmd(env), newAgentReleaseCmd(env),
	)
	return root
}

// usageArgs wraps a cobra positional-argument validator so that a wrong argument count
// is a usage error (exit 2).
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return &guard.ExitError{Code: guard.ExitUsage, Err: err}
		}
		return nil
	}
}
