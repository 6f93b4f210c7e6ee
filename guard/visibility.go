package guard

// The visibility of a hosted repository, as GitHub reports it, plus what guard learns
// when it cannot learn more.
const (
	VisibilityPublic   = "public"
	VisibilityPrivate  = "private"
	VisibilityInternal = "internal"
	// VisibilityNotPublic is what an anonymous or unauthorised reader learns from a
	// 404: the repository is not publicly visible (private, internal or absent).
	VisibilityNotPublic = "not-public"
	// VisibilityUnknown: no answer (offline, rate-limited, a rejected token).
	VisibilityUnknown = ""
)

// VisibilityVerdict is how a hosted repository's visibility compares with the
// publication markers that govern its clone (`guard audit github`'s verdict column).
type VisibilityVerdict string

// The verdicts.
const (
	// VerdictViolation: PRIVATE.txt (with or without PUBLIC.txt), yet public.
	VerdictViolation VisibilityVerdict = "violation"
	// VerdictConflict: both markers and not public; guard treats it as private
	// (fail closed) and somebody must remove one.
	VerdictConflict VisibilityVerdict = "conflict"
	// VerdictApprovedNotPublic: PUBLIC.txt, still private or internal.
	VerdictApprovedNotPublic VisibilityVerdict = "approved-not-yet-public"
	// VerdictPublicUnapproved: public without any marker.
	VerdictPublicUnapproved VisibilityVerdict = "public-without-approval"
	// VerdictUnknown: PRIVATE.txt, and the visibility could not be learnt.
	VerdictUnknown VisibilityVerdict = "unknown"
	// VerdictOK: visibility and markers agree.
	VerdictOK VisibilityVerdict = "ok"
)

// JudgeVisibility is the one decision of a hosted repository's visibility against its
// markers, for the audit and the pre-push check alike. internal counts as not public:
// only the members of the enterprise see it, which is what PRIVATE.txt allows ("must
// not become public") and not yet what PUBLIC.txt approves. With PRIVATE.txt, a
// visibility that could not be learnt is VerdictUnknown (fail closed where strict).
func JudgeVisibility(visibility string, private, public bool) VisibilityVerdict {
	isPublic := visibility == VisibilityPublic
	switch {
	case private && isPublic:
		return VerdictViolation
	case private && visibility == VisibilityUnknown:
		return VerdictUnknown
	case private && public:
		return VerdictConflict
	case public && !isPublic:
		return VerdictApprovedNotPublic
	case !private && !public && isPublic:
		return VerdictPublicUnapproved
	}
	return VerdictOK
}

// RefusesPush reports whether the verdict refuses a push to that repository: a
// violation always (the push would publish a private project), an unknown visibility
// only with strict ([github] strict = true). A conflict does not: pushing to a
// repository that is not public publishes nothing (the audit reports it).
func (v VisibilityVerdict) RefusesPush(strict bool) bool {
	return v == VerdictViolation || v == VerdictUnknown && strict
}

// FailsAudit reports whether the verdict fails `guard audit github`: a violation and
// a conflict always, a public repository nobody approved with strict (--strict).
func (v VisibilityVerdict) FailsAudit(strict bool) bool {
	return v == VerdictViolation || v == VerdictConflict || v == VerdictPublicUnapproved && strict
}
