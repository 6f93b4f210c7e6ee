package main

import (
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
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetFlagErrorFunc(flagError)
	root.SetHelpCommand(newHelpCmd())
	root.SetUsageFunc(rootUsage(root.UsageFunc()))
	root.SetHelpFunc(exampleHelp(root.HelpFunc()))
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
	// --jq beside every --json, before the help and completions read the flags.
	addJQFlags(root, env)
	// cobra would add its completion command when the tree runs; added now, it gets
	// its group, examples and the usage error for a shell it does not know (tcsh).
	root.InitDefaultCompletionCmd()
	groupCommands(root)
	root.InitDefaultHelpCmd()
	checkSubcommands(root)
	closeValues(root)
	addCompletions(env, root)
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
		return guard.Fail(guard.BadInput, "%w\nsee '%s --help'", err, cmd.CommandPath())
	}
	// main already prefixes "guard: ".
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	return guard.Fail(guard.BadInput, "%s: %w\nusage: %s\nsee '%s --help'", name, err, cmd.UseLine(), cmd.CommandPath())
}
