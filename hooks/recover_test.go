package hooks

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/guardlocks/guard/guard"
	"github.com/guardlocks/guard/lockcore"
)

func TestABugInAHookFailsClosedWithTheBypassHint(t *testing.T) {
	cases := []struct {
		name string
		hook string
		verb string
	}{
		{"a panic while checking a commit refuses the commit", "pre-commit", "commit"},
		{"a panic while checking a push refuses the push", "pre-push", "push"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			env := &guard.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
				Clock: lockcore.FixedClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.Local)), Dir: t.TempDir(), Getenv: func(string) string { return "" }}
			err := finish(env, outcome{hook: tc.hook}, recovered(func() error { panic("boom") }))
			assert.Equal(t, guard.ExitUsage, guard.ExitCode(err))
			assert.Contains(t, errb.String(), "guard: "+tc.hook+": cannot check this "+tc.verb+": internal error: boom")
			assert.Contains(t, errb.String(), `GUARD_BYPASS="<reason>" git `+tc.verb)
			assert.Empty(t, out.String())
		})
	}
}
