package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
)

func newVersionCmd(env *guard.Env, bi buildInfo) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print guard's version, commit and build date",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				return json.NewEncoder(env.Stdout).Encode(map[string]string{"version": bi.version, "commit": bi.commit, "date": bi.date})
			}
			_, err := fmt.Fprintln(env.Stdout, versionLine(bi))
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// versionLine is what `guard version` and `guard --version` print.
func versionLine(bi buildInfo) string {
	return fmt.Sprintf("guard %s (commit %s, built %s)", bi.version, bi.commit, bi.date)
}
