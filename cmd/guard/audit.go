package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/audit"
	"github.com/guardlocks/guard/github"
	"github.com/guardlocks/guard/guard"
)

func newAuditCmd(env *guard.Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Audit hosted repositories against their PRIVATE.txt / PUBLIC.txt markers",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return guard.Fail(guard.BadInput, "audit: name what to audit: guard audit github")
		},
	}
	cmd.AddCommand(newAuditGitHubCmd(env))
	return cmd
}

func newAuditGitHubCmd(env *guard.Env) *cobra.Command {
	opts := audit.Options{Env: env, RateLimitWait: github.DefaultRateLimitWait}
	cmd := &cobra.Command{
		Use:   "github [ROOT...]",
		Short: "Compare each GitHub repository's visibility with the markers of its local clones",
		Long: `Lists the repositories of each --owner (default: [github] owners in .guard.toml),
every page, finds their local clones under the roots (ROOTs, else --roots-file, else
the current directory) by their remote URLs, and reports each repository's visibility
against its markers. Exit 1 on a violation (PRIVATE.txt but public) or a conflict
(both markers), or with --strict on a public repository without PUBLIC.txt; exit 2
when the audit is incomplete. Token: GH_TOKEN, else GITHUB_TOKEN.`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Roots = args
			return audit.Run(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&opts.Owners, "owner", nil, "a GitHub user or organisation to audit (repeatable)")
	f.StringVar(&opts.RootsFile, "roots-file", "", "lock_roots.json naming the roots to search for clones")
	f.StringVar(&opts.APIURL, "api-url", "", "GitHub API base URL (GitHub Enterprise: https://HOST/api/v3/)")
	f.BoolVar(&opts.Strict, "strict", false, "fail on public repositories that no PUBLIC.txt approves")
	f.BoolVar(&opts.JSON, "json", false, "print one JSON document")
	return cmd
}
