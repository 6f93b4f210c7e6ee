package main

import (
	"github.com/spf13/cobra"
)

// The groups guard --help lists its commands under, in this order: by what a person
// comes to do (gh groups its tree the same way), so that 29 commands are not one
// alphabetical list.
var commandGroups = []*cobra.Group{
	{ID: "locks", Title: "Claim and release locks:"},
	{ID: "look", Title: "See who holds what:"},
	{ID: "gates", Title: "Git hooks and CI gates:"},
	{ID: "publish", Title: "Publishing:"},
	{ID: "agents", Title: "Coding agents:"},
	{ID: "setup", Title: "Setup and diagnostics:"},
}

// groupOf places each top-level command in one of commandGroups. A command missing
// here fails TestEveryCommandIsInAGroup, so a new one cannot land in cobra's
// "Additional Commands" by accident.
var groupOf = map[string]string{
	"lock": "locks", "unlock": "locks", "renew": "locks", "run": "locks",
	"lockdown": "locks", "team": "locks", "prune": "locks",

	"status": "look", "scan": "look", "check": "look", "history": "look",
	"watch": "look", "serve": "look",

	"install": "gates", "uninstall": "gates", "ci": "gates",

	"publish": "publish", "preflight": "publish", "audit": "publish",

	"agent-install": "agents", "agent-uninstall": "agents", "agent-release": "agents",
	"mcp": "agents", "permissions": "agents", "sandbox": "agents",

	"doctor": "setup", "version": "setup", "completion": "setup", "help": "setup",
}

// plumbing are the commands git and the coding agents run, never a person: hidden from
// guard --help (still callable, and documented in their own --help, the root's
// description and the man pages).
var plumbing = map[string]bool{"hook": true, "agent-hook": true}

// groupCommands gives every top-level command its group and hides the plumbing. It
// runs on every start (the tree is built per call): map lookups over 30 commands.
func groupCommands(root *cobra.Command) {
	root.AddGroup(commandGroups...)
	root.SetHelpCommandGroupID("setup")
	root.SetCompletionCommandGroupID("setup")
	for _, c := range root.Commands() {
		if plumbing[c.Name()] {
			c.Hidden = true
			continue
		}
		if id, ok := groupOf[c.Name()]; ok {
			c.GroupID = id
		}
	}
}
