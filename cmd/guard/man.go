//go:build manpages

package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/guardlocks/guard/guard"
)

// manCmds is guard man, in the build that makes the release's man pages
// (.goreleaser.yaml builds it with -tags manpages).
func manCmds(env *guard.Env) []*cobra.Command { return []*cobra.Command{newManCmd(env)} }

// newManCmd writes one man page per command (guard.1, guard-check.1, ...) for the
// release archives; hidden because users read the pages, not make them.
func newManCmd(env *guard.Env) *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write guard's man pages into DIR",
		Hidden: true,
		Args:   usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return guard.Exitf(guard.ExitUsage, "man: %w", err)
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true // reproducible pages: no generation date
			header := &doc.GenManHeader{Title: "GUARD", Section: "1", Source: root.Version}
			if err := doc.GenManTree(root, header, args[0]); err != nil {
				return guard.Exitf(guard.ExitUsage, "man: writing pages into %s: %w", args[0], err)
			}
			_, err := fmt.Fprintf(env.Stdout, "%s\n", args[0])
			return err
		},
	}
}
