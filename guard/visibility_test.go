package guard

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestJudgeVisibilityIsOneDecisionForTheAuditAndThePush(t *testing.T) {
	cases := []struct {
		name            string
		visibility      string
		private, public bool
		want            VisibilityVerdict
		refusesPush     bool
		refusesStrict   bool // the push with [github] strict = true
		failsAudit      bool
		failsAuditStrct bool
	}{
		{"a public repository under PRIVATE.txt is a violation everywhere", VisibilityPublic, true, false, VerdictViolation, true, true, true, true},
		{"with both markers PRIVATE.txt wins", VisibilityPublic, true, true, VerdictViolation, true, true, true, true},
		{"both markers on a private repository are a conflict the audit fails and a push ignores", VisibilityPrivate, true, true, VerdictConflict, false, false, true, true},
		{"internal is not public", VisibilityInternal, true, false, VerdictOK, false, false, false, false},
		{"a 404 is not public", VisibilityNotPublic, true, false, VerdictOK, false, false, false, false},
		{"an unknown visibility under PRIVATE.txt refuses a push only when strict", VisibilityUnknown, true, false, VerdictUnknown, false, true, false, false},
		{"an approved repository that is still private is waiting", VisibilityPrivate, false, true, VerdictApprovedNotPublic, false, false, false, false},
		{"a public repository nobody approved fails only a strict audit", VisibilityPublic, false, false, VerdictPublicUnapproved, false, false, false, true},
		{"an approved public repository is ok", VisibilityPublic, false, true, VerdictOK, false, false, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := JudgeVisibility(tc.visibility, tc.private, tc.public)
			assert.Equal(t, tc.want, v)
			assert.Equal(t, tc.refusesPush, v.RefusesPush(false), "push")
			assert.Equal(t, tc.refusesStrict, v.RefusesPush(true), "strict push")
			assert.Equal(t, tc.failsAudit, v.FailsAudit(false), "audit")
			assert.Equal(t, tc.failsAuditStrct, v.FailsAudit(true), "strict audit")
		})
	}
}
