package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
)

func newTeamCmd(env *guard.Env) *cobra.Command {
	o := command.TeamOptions{Env: env}
	team := &cobra.Command{
		Use:   "team checkin|checkout|claim|release|show|message [DIR] ...",
		Short: "Read and edit a team lock: presence, file and tool claims with queue, messages",
		Long: `team edits the four sections of a team lock (LOCK.team[.<scope>].<host>.txt) in DIR
(default: the working directory): the presence log, file/folder claims, tool claims (each
with a first-come queue) and messages, in the reference's format. Without --lock-name it
uses the single team lock of this host (--host, GUARD_HOST, .guard.toml, hostname) in DIR.
The agent is --agent, else the owner identity (--owner, GUARD_OWNER, .guard.toml, user@host).

Every change runs under an OS lock on the sibling <lockname>.guard file (kept, never
deleted) and rewrites the file atomically, so concurrent agents lose no entry. Exit 0:
done (also for changes that were already made); 1: conflict, missing team lock or a file
that cannot be read unambiguously (nothing written); 2: bad input.`,
		// A missing action is a usage error, not a help page with exit 0 (an unknown one
		// is answered for every command with subcommands: checkSubcommands).
		Args: func(cmd *cobra.Command, args []string) error {
			return guard.Fail(guard.BadInput, "team: name an action: checkin, checkout, claim, release, show or message")
		},
		RunE: func(cmd *cobra.Command, args []string) error { return nil },
	}
	pf := team.PersistentFlags()
	pf.StringVar(&o.LockName, "lock-name", "", "the team lock's file name in DIR (default: the single team lock of this host)")
	pf.StringVar(&o.Agent, "agent", "", "the acting agent (default: the owner identity)")
	pf.StringVar(&o.Owner, "owner", "", "owner identity (default GUARD_OWNER, .guard.toml owner, user@host)")
	pf.StringVar(&o.Host, "host", "", "this host, to find its team lock (default GUARD_HOST, .guard.toml host, hostname)")
	pf.BoolVar(&o.JSON, "json", false, "print the result as JSON on stdout")

	sub := func(action, short string, flags func(*cobra.Command), aliases ...string) *cobra.Command {
		c := &cobra.Command{
			Use:     action + " [DIR]",
			Short:   short,
			Aliases: aliases,
			Args:    usageArgs(cobra.MaximumNArgs(1)),
			RunE: func(cmd *cobra.Command, args []string) error {
				o.Action = action
				if len(args) == 1 {
					o.Dir = args[0]
				}
				return command.RunTeam(o)
			},
		}
		if flags != nil {
			flags(c)
		}
		return c
	}
	claimFlags := func(queue bool) func(*cobra.Command) {
		return func(c *cobra.Command) {
			f := c.Flags()
			f.StringArrayVar(&o.Resources, "resource", nil, "a file or folder relative to DIR (repeat for a bundle)")
			f.StringArrayVar(&o.Tools, "tool", nil, "a tool id such as mcp::server::tool (repeat for a bundle)")
			if queue {
				f.BoolVar(&o.Queue, "queue", false, "wait in the queue instead of failing when blocked")
			}
		}
	}
	team.AddCommand(
		sub("checkin", "Add (or replace) this agent's presence entry", func(c *cobra.Command) {
			f := c.Flags()
			f.StringVar(&o.Role, "role", "", "the agent's role (required)")
			f.StringVar(&o.Task, "task", "", "the agent's main task (required)")
			f.StringVar(&o.LoopID, "loop-id", "loop-01", "the agent's loop id")
		}, "claim-presence"),
		sub("checkout", "Remove this agent's presence and claims; delete the lock when nobody is left", nil),
		sub("claim", "Claim a bundle of files/folders or tools (all or nothing)", claimFlags(true), "claim-file"),
		sub("release", "Release files/folders or tools from this agent's claims; promote waiters", claimFlags(false), "release-file"),
		sub("show", "Print the team lock's sections", nil),
		sub("message", "Append a message for the team", func(c *cobra.Command) {
			c.Flags().StringVar(&o.Msg, "msg", "", "the message text (required)")
		}, "add-message"),
	)
	// The reference CLI's tool actions take the tool ids as --resource; these hidden
	// spellings keep its scripts working (claim-file, claim-presence, add-message are
	// aliases above).
	for _, a := range []string{"claim", "release"} {
		c := sub(a, "", claimFlags(a == "claim"))
		c.Use, c.Hidden = a+"-tool [DIR]", true
		run := c.RunE
		c.RunE = func(cmd *cobra.Command, args []string) error {
			o.Tools, o.Resources = append(o.Tools, o.Resources...), nil
			return run(cmd, args)
		}
		team.AddCommand(c)
	}
	return team
}
