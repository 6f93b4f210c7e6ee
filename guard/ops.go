package guard

import "strings"

// The operation names guard knows (CONTRACT.md section 2). Every package names an
// operation with these constants; a lock's operations field and `--op` may also hold
// any other word, which guard compares exactly.
const (
	// OpEdit is changing files (the default of guard check, and the agent hook's writes).
	OpEdit = "edit"
	// OpCommit is committing (pre-commit).
	OpCommit = "commit"
	// OpPush is pushing commits (pre-push, guard ci).
	OpPush = "push"
	// OpReleaseTag is pushing a tag (refs/tags/*), checked together with push.
	OpReleaseTag = "release-tag"
	// OpPublishRelease is publishing a release (gh release create, goreleaser, ...).
	OpPublishRelease = "publish-release"
	// OpRegistryUpload is uploading a package to a registry (npm publish, twine, ...).
	OpRegistryUpload = "registry-upload"
	// OpVisibilityPublic is making a repository public.
	OpVisibilityPublic = "visibility-public"
)

// KnownOps are the operation names guard itself uses, in the order of CONTRACT.md.
var KnownOps = []string{OpEdit, OpCommit, OpPush, OpReleaseTag, OpPublishRelease, OpRegistryUpload, OpVisibilityPublic}

// IsPublicationOp reports whether op is one of the publication operations: those
// PRIVATE.txt refuses and PUBLIC.txt approves.
func IsPublicationOp(op string) bool {
	switch strings.ToLower(op) {
	case OpRegistryUpload, OpPublishRelease, OpVisibilityPublic:
		return true
	}
	return false
}

// CheckOpName accepts an operation name given on a command line (--op): a known name,
// or any other word, except one within edit distance 2 of a known name (1 for the
// four-letter ones). Such a near
// miss (registry-uplaod) is almost certainly a typo, and a typo would silently turn a
// check into a no-op (no lock lists it, no marker refuses it): it is a usage error
// (exit 2) that suggests the name.
func CheckOpName(op string) error {
	if strings.TrimSpace(op) == "" {
		return Fail(BadInput, "empty operation name (known: %s, or any other word)", strings.Join(KnownOps, ", "))
	}
	lower := strings.ToLower(op)
	for _, k := range KnownOps {
		if lower == k {
			return nil
		}
	}
	for _, k := range KnownOps {
		if d := editDistance(lower, k); d <= nearMiss(k) {
			return Fail(BadInput, "unknown operation %q: did you mean %q? (known: %s; another word is allowed only if it is not this close to a known one)",
				op, k, strings.Join(KnownOps, ", "))
		}
	}
	return nil
}

// nearMiss is the largest edit distance at which a word is taken for a typo of
// known: 2, but 1 for the four-letter names, where two edits make another word (pull
// is not a misspelt push).
func nearMiss(known string) int {
	if len([]rune(known)) <= 4 {
		return 1
	}
	return 2
}

// editDistance is the Levenshtein distance between a and b, counted in runes, with a
// transposition of two neighbours counting as one edit (uplaod for upload).
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}
