package command_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/guardlocks/guard/command"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
	"github.com/guardlocks/guard/lockcore"
)

// A scan that lasts shows the folders walked on stderr at a terminal, on one line
// erased before the result; a fast scan, or one whose stderr is not a terminal, shows
// nothing, and stdout never gets the line.
func TestScanShowsTheFoldersWalkedAtATerminalAfterADelay(t *testing.T) {
	root := t.TempDir()
	tree := map[string]string{"a/LOCK.txt": "owner: alice\ncreated: 2026-06-15T11:00:00\n"}
	for i := range 140 {
		tree[fmt.Sprintf("d%03d/", i)] = ""
	}
	files(t, root, tree)
	for _, tc := range []struct {
		name      string
		tty, slow bool
		want      []string
	}{
		{"a slow scan at a terminal", true, true, []string{"\rguard scan: 64 folders walked\x1b[K", "\rguard scan: 128 folders walked\x1b[K"}},
		{"a fast scan at a terminal", true, false, nil},
		{"a slow scan whose stderr is not a terminal", false, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []envtest.Option{envtest.At(now), envtest.Dir(root)}
			if tc.slow {
				// Every reading of the clock is a second later: the walk outlasts the delay.
				at := now
				opts = append(opts, envtest.Clock(lockcore.ClockFunc(func() time.Time { at = at.Add(time.Second); return at })))
			}
			e := envtest.New(opts...)
			e.StderrTTY = tc.tty
			require.NoError(t, command.RunScan(command.ScanOptions{Env: e.Env}), e.Err.String())
			assert.True(t, strings.HasPrefix(e.Out.String(), "guard scan: 1 active lock(s):\n"), e.Out.String())
			assert.NotContains(t, e.Out.String(), "folders walked")
			if tc.want == nil {
				assert.Empty(t, e.Err.String())
				return
			}
			for _, w := range tc.want {
				assert.Contains(t, e.Err.String(), w)
			}
			assert.True(t, strings.HasSuffix(e.Err.String(), "\r\x1b[K"), "the line is erased: %q", e.Err.String())
		})
	}
}

// guard unlock --all walks its roots as scan does, and shows the walk the same way.
func TestUnlockAllShowsTheFoldersWalkedAtATerminal(t *testing.T) {
	root := t.TempDir()
	tree := map[string]string{"a/LOCK.txt": "owner: alice\ncreated: 2026-06-15T11:00:00\n"}
	for i := range 70 {
		tree[fmt.Sprintf("d%03d/", i)] = ""
	}
	for _, tty := range []bool{true, false} {
		files(t, root, tree)
		at := now
		e := envtest.New(envtest.Dir(root), envtest.Vars(map[string]string{"HOME": t.TempDir()}),
			envtest.Clock(lockcore.ClockFunc(func() time.Time { at = at.Add(time.Second); return at })))
		e.StderrTTY = tty
		require.NoError(t, command.RunUnlock(t.Context(), command.UnlockOptions{Env: e.Env, All: true, Owner: "alice"}), e.Err.String())
		assert.Equal(t, "released "+root+"/a/LOCK.txt\n", e.Out.String())
		if tty {
			assert.Equal(t, "\rguard unlock --all: 64 folders walked\x1b[K\r\x1b[K", e.Err.String())
		} else {
			assert.Empty(t, e.Err.String())
		}
	}
}
