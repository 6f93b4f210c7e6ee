package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/agent"
	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/install"
)

// flagValues are the values shell completion offers, by flag name, wherever a command
// has that flag. One table, so that a new command with --op or --mode completes without
// wiring of its own.
var flagValues = map[string][]string{
	"op":     guard.KnownOps,
	"format": {"text", "json", "github"},
	"hooks":  install.Hooks,
	"mode":   {"hard", "soft"},
	"hook":   agent.Agents,
	"event":  guard.Events,
}

// agentCommands take an agent name as their first argument.
var agentCommands = map[string]bool{"agent-hook": true, "agent-install": true, "agent-uninstall": true}

// addCompletions registers flagValues and the agent names on every command of the tree.
func addCompletions(cmd *cobra.Command) {
	for name, values := range flagValues {
		if cmd.Flags().Lookup(name) == nil {
			continue
		}
		values := values
		_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return values, cobra.ShellCompDirectiveNoFileComp
		})
	}
	if agentCommands[cmd.Name()] && cmd.ValidArgsFunction == nil {
		cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return agent.Agents, cobra.ShellCompDirectiveNoFileComp
		}
	}
	for _, c := range cmd.Commands() {
		addCompletions(c)
	}
}
