//go:build !manpages

package main

import (
	"github.com/spf13/cobra"

	"github.com/guardlocks/guard/guard"
)

// manCmds is empty in the guard users run: the man-page generator (cobra/doc and
// the markdown renderer under it) would add its start-up work to every hook and
// agent call. The release builds it with -tags manpages to write the pages.
func manCmds(*guard.Env) []*cobra.Command { return nil }
