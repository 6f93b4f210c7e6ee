package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
)

func newPermissionsCmd(env *guard.Env) *cobra.Command {
	o := command.PermissionsOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "permissions [DIR] --agent A ACTION",
		Short: "Evaluate LOCK.permissions.json for an agent's action (0 allow, 1 deny, 4 ask)",
		Long: `permissions answers what DIR's LOCK.permissions.json (else LOCK.permissions.txt, also
JSON; format lock-permissions-v1) says about AGENT doing ACTION, a tool call such as
'Bash(rm -rf build)', 'Edit(src/a.go)' or 'mcp__github__delete_repo'. Deny rules win over
ask, ask over allow, allow over the file's default; rules only apply to the agents in
applies_to_agents ("*" is everyone). stdout's first line is allow, deny or ask; stderr
says which rule and file decided. Exit 0 allow, 1 deny, 4 ask, 2 invalid file or input.
A directory without a permissions file allows.`,
		Args: usageArgs(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 {
				o.Dir = args[0]
			}
			o.Action = args[len(args)-1]
			return command.RunPermissions(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Agent, "agent", "", "the acting agent (default GUARD_OWNER, .guard.toml owner, user@host)")
	f.BoolVar(&o.JSON, "json", false, "print the answer as JSON on stdout")
	return cmd
}
