//go:build manpages

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

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
				return guard.Fail(guard.BadInput, "man: %w", err)
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true // reproducible pages: no generation date
			addExamples(root)
			// The plumbing is hidden from guard --help, not from the manual: git's and
			// the agents' calls are documented where an administrator looks.
			for _, c := range root.Commands() {
				if plumbing[c.Name()] {
					c.Hidden = false
				}
			}
			header := &doc.GenManHeader{Title: "GUARD", Section: "1", Source: root.Version}
			if err := doc.GenManTree(root, header, args[0]); err != nil {
				return guard.Fail(guard.BadInput, "man: writing pages into %s: %w", args[0], err)
			}
			if err := addManSections(filepath.Join(args[0], "guard.1")); err != nil {
				return guard.Fail(guard.BadInput, "man: %w", err)
			}
			_, err := fmt.Fprintf(env.Stdout, "%s\n", args[0])
			return err
		},
	}
}

// addManSections writes ENVIRONMENT and EXIT STATUS into guard(1), from the help
// topics guard help environment and exit-codes print, before SEE ALSO (where
// man-pages(7) orders them); cobra's generator knows only a command's own sections.
func addManSections(page string) error {
	data, err := os.ReadFile(page)
	if err != nil {
		return fmt.Errorf("reading %s: %w", page, err)
	}
	var sections bytes.Buffer
	writeTopicRoff(&sections, "ENVIRONMENT", envTopic())
	writeTopicRoff(&sections, "EXIT STATUS", exitTopic())
	at := bytes.Index(data, []byte(".SH SEE ALSO"))
	if at < 0 {
		at = len(data)
	}
	out := append(append(append([]byte{}, data[:at]...), sections.Bytes()...), data[at:]...)
	if err := os.WriteFile(page, out, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", page, err)
	}
	return nil
}
