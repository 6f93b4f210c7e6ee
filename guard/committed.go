package guard

import (
	"fmt"
	"path"
)

// MarkerPlace is where a publication marker turned up in what git records or
// publishes.
type MarkerPlace string

const (
	// MarkerStaged is a marker in the index, about to be committed (pre-commit,
	// pre-merge-commit).
	MarkerStaged MarkerPlace = "staged"
	// MarkerInTree is a marker in the tree of a commit being published (pre-push, ci).
	MarkerInTree MarkerPlace = "tree"
	// MarkerInRange is a marker added or changed by a commit being published, even if
	// a later commit removed it again: it is in the published history all the same.
	MarkerInRange MarkerPlace = "range"
)

// CommittedMarker is the rule "PRIVATE.txt and PUBLIC.txt are never committed"
// (CONTRACT.md section 5), decided here once for pre-commit, pre-merge-commit,
// pre-push and `guard ci`. rel is the path as git names it (relative to the top of
// the working tree, slash-separated); removed says that the change takes the path
// away, which is allowed: removing a committed marker is how one repairs it. It
// returns the refusal's reason, or false when the path is no marker or is removed.
//
// Names compare ignoring case, anywhere in the tree (IsMarkerName): on a
// case-insensitive file system private.txt is the same file.
func CommittedMarker(rel string, place MarkerPlace, removed bool) (reason string, refused bool) {
	if removed || !IsMarkerName(rel) {
		return "", false
	}
	name := path.Base(rel)
	switch place {
	case MarkerStaged:
		return fmt.Sprintf("%s is a publication marker, a local control file that is never committed; unstage it with `git rm --cached -- %s` (guard install keeps it in .git/info/exclude)",
			name, rel), true
	case MarkerInTree:
		return fmt.Sprintf("%s is committed: publication markers must never be committed (they are local decisions); remove it with `git rm --cached -- %s`, commit that, and keep it out with .git/info/exclude (`guard install` adds it)",
			rel, rel), true
	default:
		return fmt.Sprintf("%s was committed in this range (and removed again later): the marker is in the published history; rewrite those commits without it (for example `git rebase -i`)",
			rel), true
	}
}
