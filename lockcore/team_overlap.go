package lockcore

import "strings"

// PathsOverlap reports whether two claimed paths touch: equal, or one inside the
// other, compared with '/' separators and case folded (`src` and `SRC/Module.py`
// overlap; `src2` and `src` do not).
func PathsOverlap(a, b string) bool {
	a = casefold(strings.Trim(strings.ReplaceAll(a, `\`, "/"), "/"))
	b = casefold(strings.Trim(strings.ReplaceAll(b, `\`, "/"), "/"))
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

func resourcesOverlap(sec TeamSection, a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if sec == SectionFileClaims && PathsOverlap(x, y) {
				return true
			}
			if sec == SectionToolClaims && casefold(x) == casefold(y) {
				return true
			}
		}
	}
	return false
}
