package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/guard"
)

func newCheckCmd(env *guard.Env) *cobra.Command {
	o := command.CheckOptions{Env: env}
	cmd := &cobra.Command{
		Use:   "check [--op OP] PATH...",
		Short: "Answer whether OP (default edit) may be done on PATHs now (0 allowed, 1 refused)",
		Long: `check is the pre-flight question every tool can ask: may this identity do OP on these
files or folders now? It looks at each path's directory and every directory above it
(and the same directories in the repository's other worktrees), and for a folder also
at the locks inside it. Exit 0: allowed; 1: refused (stderr says which lock, whose, why,
and what to do); 2: bad input.`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Paths = args
			return command.RunCheck(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Op, "op", guard.OpEdit, "operation: edit, commit, push, release-tag, publish-release, registry-upload, visibility-public, or any word")
	f.StringVar(&o.Owner, "owner", "", "who is asking (default GUARD_OWNER, .guard.toml owner, user@host)")
	f.StringVar(&o.Host, "host", "", "the asking host (default GUARD_HOST, .guard.toml host, the hostname)")
	f.BoolVar(&o.JSON, "json", false, "print the decision as JSON on stdout")
	return cmd
}
