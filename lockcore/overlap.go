package lockcore

import "strings"

// ScopesOverlap reports whether two scopes touch: project overlaps everything;
// otherwise they overlap when equal (ignoring case) or when one is the other plus "."
// and more ("assets" overlaps "assets.images", not "assets-backup").
func ScopesOverlap(a, b string) bool {
	a, b = strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(b))
	if a == b || a == ProjectScope || b == ProjectScope {
		return true
	}
	return strings.HasPrefix(a, b+".") || strings.HasPrefix(b, a+".")
}
