package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/web"
)

// newRootCmd builds the command tree. Each command lives in its own file as a thin
// layer that parses flags into an options struct and calls a run function in the
// package it drives.
func newRootCmd(env *guard.Env, bi buildInfo) *cobra.Command {
	root := &cobra.Command{
		Use:                        "guard",
		Short:                      "Enforce LOCK-SYSTEM locks on commits, pushes, publications and agent actions",
		SilenceUsage:               true,
		SilenceErrors:              true,
		SuggestionsMinimumDistance: 2,
		// guard --version answers like guard version (people try both).
		Version: versionLine(bi),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	// A mistyped command is a usage error with cobra's suggestions and the way to the
	// help (with SilenceErrors, cobra's own hint was never printed).
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q", args[0])
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usageError(cmd, errors.New(msg))
	}
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError(cmd, err)
	})
	root.AddCommand(manCmds(env)...)
	root.AddCommand(
		newVersionCmd(env, bi), newHistoryCmd(env), newWatchCmd(env), newServeCmd(env, web.Serve),
		// lock library (read side)
		newScanCmd(env), newStatusCmd(env), newCheckCmd(env), newPruneCmd(env),
		// lock library (write side)
		newLockCmd(env), newUnlockCmd(env), newRenewCmd(env), newRunCmd(env), newLockdownCmd(env),
		newPermissionsCmd(env), newTeamCmd(env),
		// git
		newHookCmd(env), newInstallCmd(env), newUninstallCmd(env), newDoctorCmd(env),
		// publication
		newPublishCmd(env), newPreflightCmd(env), newAuditCmd(env), newCICmd(env),
		// coding agents
		newAgentHookCmd(env), newAgentInstallCmd(env), newAgentUninstallCmd(env), newAgentReleaseCmd(env), newMCPCmd(env, bi),
		// kernel-enforced locks
		newSandboxCmd(env, nil),
	)
	addCompletions(root)
	return root
}

// usageArgs wraps a cobra positional-argument validator so that a wrong argument count
// is a usage error (exit 2).
func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageError(cmd, err)
		}
		return nil
	}
}

// usageError is a usage error (exit 2) that says what the command takes and where the
// help is: cobra's bare "requires at least 1 arg(s), only received 0" named neither the
// command nor its arguments.
func usageError(cmd *cobra.Command, err error) error {
	if !cmd.HasParent() {
		return guard.Exitf(guard.ExitUsage, "%w\nsee '%s --help'", err, cmd.CommandPath())
	}
	// main already prefixes "guard: ".
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	return guard.Exitf(guard.ExitUsage, "%s: %w\nusage: %s\nsee '%s --help'", name, err, cmd.UseLine(), cmd.CommandPath())
}
