package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// topics are guard help's pages that are no command, in the order guard --help lists
// them. root is read for what depends on the tree (which commands take --json).
func topics(root *cobra.Command) []helpTopic {
	return []helpTopic{envTopic(), exitTopic(), formattingTopic(commandsWithFlag(root, "json"), commandsWithFlag(root, "jq"))}
}

// commandsWithFlag are the visible commands that have flag name, by path below guard.
func commandsWithFlag(root *cobra.Command, name string) []string {
	var out []string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() {
				continue
			}
			// Local flags only: a subcommand that inherits --json is its parent's entry.
			if sub.LocalFlags().Lookup(name) != nil {
				out = append(out, commandKey(sub))
			}
			walk(sub)
		}
	}
	walk(root)
	sort.Strings(out)
	return out
}

// newHelpCmd replaces cobra's help command: guard help TOPIC prints a topic, guard
// help COMMAND... a command's help, and anything else is a usage error (2) that
// suggests the nearest command or topic, where cobra printed "Unknown help topic"
// and the usage with exit 0.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND... | TOPIC]",
		Short: "Help about any command, or a topic: environment, exit-codes, formatting",
		Long: `guard help COMMAND prints a command's help (as guard COMMAND --help does); guard help
TOPIC prints one of the topics that are no command: environment (the variables guard
reads and sets), exit-codes, formatting (--json and the shape of the output).`,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			root := c.Root()
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			if len(args) == 0 {
				for _, t := range topics(root) {
					if strings.HasPrefix(t.Name, toComplete) {
						out = append(out, cobra.CompletionWithDesc(t.Name, t.Short))
					}
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			if len(args) == 1 {
				for _, t := range topics(root) {
					if t.Name == args[0] {
						return writeTopic(c.OutOrStdout(), t)
					}
				}
			}
			cmd, rest, err := root.Find(args)
			if err == nil && len(rest) == 0 {
				cmd.InitDefaultHelpFlag()
				return cmd.Help()
			}
			// Find stops at the last command it knows: the first word left is the
			// mistyped one, and its neighbours are that command's subcommands (and, at
			// the top, the topics).
			if cmd == nil {
				cmd = root
			}
			word := args[len(args)-1]
			if len(rest) > 0 {
				word = rest[0]
			}
			names := subcommandNames(cmd)
			if cmd == root {
				for _, t := range topics(root) {
					names = append(names, t.Name)
				}
			}
			path := strings.TrimSpace(strings.TrimPrefix(cmd.CommandPath(), root.Name()))
			if path != "" {
				path += " "
			}
			return usageError(c, fmt.Errorf("no help for %q: no such command or topic%s", path+word, didYouMean(suggest(word, names))))
		},
	}
}

// rootUsage is guard --help's usage with the help topics listed after the commands:
// topics are no commands, so cobra's own listing does not show them.
func rootUsage(def func(*cobra.Command) error) func(*cobra.Command) error {
	return func(c *cobra.Command) error {
		if err := def(c); err != nil || c.HasParent() {
			return err
		}
		var b strings.Builder
		b.WriteString("\nHelp topics:\n")
		for _, t := range topics(c) {
			fmt.Fprintf(&b, "  %-12s %s\n", t.Name, t.Short)
		}
		b.WriteString("\nUse \"guard help <topic>\" to read a topic.\n")
		b.WriteString("\nPlumbing (run by git and coding agents rather than typed; see their --help):\n")
		for _, sub := range c.Commands() {
			if plumbing[sub.Name()] {
				fmt.Fprintf(&b, "  %-12s %s\n", sub.Name(), sub.Short)
			}
		}
		_, err := fmt.Fprint(c.OutOrStderr(), b.String())
		return err
	}
}
