package guard

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBypassIsHonouredByTheHooksAndTheAuditOnly(t *testing.T) {
	env := &Env{Getenv: func(k string) string {
		if k == BypassVar {
			return "  hotfix  "
		}
		return ""
	}}
	for _, gate := range []string{GatePreCommit, GatePreMergeCommit, GatePrePush, GateAudit} {
		reason, ok := Bypass(env, gate)
		assert.True(t, ok, gate)
		assert.Equal(t, "hotfix", reason, gate)
	}
	for _, gate := range []string{GateCI, GatePublish, GateAgentHook, GateCheck, "anything else"} {
		_, ok := Bypass(env, gate)
		assert.False(t, ok, gate)
	}
	blank := &Env{Getenv: func(string) string { return " \t" }}
	_, ok := Bypass(blank, GatePreCommit)
	assert.False(t, ok, "a blank reason is no bypass")
}
