package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every package linked into guard runs its start-up work in every hook and agent call,
// where guard's budget is a small multiple of git's own time. These were linked for
// one rare command each and cost every call about a millisecond: go-git (the audit's
// remote URLs, now read by git) and the man-page generator (now in -tags manpages).
func TestGuardDoesNotLinkWhatOnlyOneRareCommandNeeds(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/go-git/", "github.com/spf13/cobra/doc", "github.com/cpuguy83/go-md2man", "github.com/russross/blackfriday"} {
			if strings.HasPrefix(pkg, banned) {
				t.Errorf("guard links %s", pkg)
			}
		}
	}
}
