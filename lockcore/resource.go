package lockcore

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Resource locks (CONTRACT.md section 8) lock something that is not a folder: a
// database, a deployment target, a URL. Each is one exclusive lock file in the
// resources directory, LOCK.<slug>.txt, whose body carries resource: <URI>.

// maxSlugText is the most characters of the folded URI a slug keeps.
const maxSlugText = 60

// ResourceSlug is the scope segment of a resource's lock file name: the URI folded
// to [a-z0-9-] (ASCII letters lower-cased; every run of other characters one '-';
// no '-' at either end), cut to at most 60 characters (and a '-' the cut leaves at
// the end dropped), then '-' and the first 8 hex digits of the URI's SHA-256. The
// hash keeps URIs apart that fold alike (db://A and db://a); a URI that folds to
// nothing is the hash alone.
func ResourceSlug(uri string) string {
	var b strings.Builder
	dash := false
	for _, r := range uri {
		switch {
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
			fallthrough
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	text := b.String()
	if len(text) > maxSlugText {
		text = strings.TrimRight(text[:maxSlugText], "-")
	}
	sum := sha256.Sum256([]byte(uri))
	h := hex.EncodeToString(sum[:4])
	if text == "" {
		return h
	}
	return text + "-" + h
}

// ResourceFileName is the lock file name of a resource: LOCK.<slug>.txt.
func ResourceFileName(uri string) string { return "LOCK." + ResourceSlug(uri) + ".txt" }

// ResourceProblem says what makes uri unusable as a resource ("" when usable): it
// must be non-empty and one line.
func ResourceProblem(uri string) string {
	switch {
	case strings.TrimSpace(uri) == "":
		return "is empty"
	case !singleLine(uri):
		return "must be one line"
	case strings.TrimSpace(uri) != uri:
		return "has leading or trailing spaces (a lock body would not keep them)"
	}
	return ""
}
