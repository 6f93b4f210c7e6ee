package hooks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/guardlocks/guard/cmd/guard/exitcode"
	"github.com/guardlocks/guard/internal/testing/guardtest/envtest"
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
			env := envtest.New(envtest.At(time.Date(2026, 3, 1, 12, 0, 0, 0, time.Local)), envtest.Dir(t.TempDir()))
			err := finish(t.Context(), env.Env, outcome{hook: tc.hook}, recovered(func() error { panic("boom") }))
			assert.Equal(t, exitcode.Usage, exitcode.Of(err))
			assert.Contains(t, env.Err.String(), "guard: "+tc.hook+": cannot check this "+tc.verb+": internal error: boom")
			assert.Contains(t, env.Err.String(), `GUARD_BYPASS="<reason>" git `+tc.verb)
			assert.Empty(t, env.Out.String())
		})
	}
}
