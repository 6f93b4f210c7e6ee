package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
)

// Issue 2, item 1: --help on every command, subcommands included (hook pre-commit,
// team checkin, audit github, ...), each with a one-line summary.
func TestEveryCommandAndSubcommandHasHelp(t *testing.T) {
	root := newRootCmd(processEnv(), buildInfo{})
	var walk func(c *cobra.Command, path []string)
	seen := 0
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			p := append(append([]string{}, path...), sub.Name())
			seen++
			t.Run(strings.Join(p, " "), func(t *testing.T) {
				assert.NotEmpty(t, strings.TrimSpace(sub.Short), "a one-line summary")
				out, errOut, code := runGuard(t, t.TempDir(), nil, append(p, "--help")...)
				assert.Equal(t, 0, code, errOut)
				assert.Contains(t, out, "Usage:")
				assert.Contains(t, out, "guard "+strings.Join(p, " "))
				assert.Empty(t, errOut)
			})
			walk(sub, p)
		}
	}
	walk(root, nil)
	assert.Greater(t, seen, 25, "the whole tree was walked")
}
