package lockcore

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// globToken is one element of a compiled fnmatch pattern. Every token except a star
// matches exactly one rune, which is what lets globMatch run without exponential
// backtracking.
type globToken struct {
	kind   byte // 'l' literal, '?' any rune, '[' set, '*' any run
	lit    rune
	negate bool
	ranges []runeRange
}

type runeRange struct{ lo, hi rune }

// compileGlob reads pattern with Python fnmatch's rules: '*' matches any run of
// runes (also '/' and newlines), '?' any one rune, '[seq]' one rune in seq, '[!seq]'
// one rune not in seq; a ']' right after '[' or '[!' belongs to the set; a '[' without
// a closing ']' is a literal; a reversed range such as 'z-a' matches nothing; a
// backslash has no special meaning.
func compileGlob(pattern string) []globToken {
	p := []rune(pattern)
	var toks []globToken
	for i := 0; i < len(p); {
		c := p[i]
		i++
		switch c {
		case '*':
			// Consecutive stars mean the same as one.
			if len(toks) == 0 || toks[len(toks)-1].kind != '*' {
				toks = append(toks, globToken{kind: '*'})
			}
		case '?':
			toks = append(toks, globToken{kind: '?'})
		case '[':
			j := i
			if j < len(p) && p[j] == '!' {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				j++
			}
			if j >= len(p) {
				toks = append(toks, globToken{kind: 'l', lit: '['})
				continue
			}
			toks = append(toks, compileSet(p[i:j]))
			i = j + 1
		default:
			toks = append(toks, globToken{kind: 'l', lit: c})
		}
	}
	return toks
}

// compileSet builds a set token from the runes between '[' and its closing ']'.
func compileSet(body []rune) globToken {
	t := globToken{kind: '['}
	if len(body) > 0 && body[0] == '!' {
		t.negate = true
		body = body[1:]
	}
	for k := 0; k < len(body); {
		if k+2 < len(body) && body[k+1] == '-' {
			lo, hi := body[k], body[k+2]
			if lo <= hi {
				t.ranges = append(t.ranges, runeRange{lo, hi})
			}
			k += 3
			continue
		}
		t.ranges = append(t.ranges, runeRange{body[k], body[k]})
		k++
	}
	return t
}

func (t globToken) matchRune(r rune) bool {
	switch t.kind {
	case '?':
		return true
	case 'l':
		return t.lit == r
	case '[':
		in := false
		for _, rg := range t.ranges {
			if rg.lo <= r && r <= rg.hi {
				in = true
				break
			}
		}
		return in != t.negate
	}
	return false
}

// fnmatchCase reports whether name matches pattern as Python's fnmatch.fnmatchcase
// does (whole string, case-sensitive). It runs in O(len(name) * len(pattern)) at
// worst: since every non-star token consumes exactly one rune, only the most recent
// star ever needs to be retried.
func fnmatchCase(name, pattern string) bool {
	toks := compileGlob(pattern)
	s := []rune(name)
	ti, si := 0, 0
	star, starSi := -1, 0
	for si < len(s) {
		switch {
		case ti < len(toks) && toks[ti].kind == '*':
			star, starSi = ti, si
			ti++
		case ti < len(toks) && toks[ti].matchRune(s[si]):
			ti++
			si++
		case star >= 0:
			starSi++
			si = starSi
			ti = star + 1
		default:
			return false
		}
	}
	for ti < len(toks) && toks[ti].kind == '*' {
		ti++
	}
	return ti == len(toks)
}

// casefold approximates Python's str.casefold for matching: each rune lower-cased
// after upper-casing (so final sigma, long s and title-case letters fold like their
// siblings), plus the common full folding that changes length (sharp s to ss).
func casefold(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf {
			return unicode.ToLower(r)
		}
		return unicode.ToLower(unicode.ToUpper(r))
	}, s)
	if strings.ContainsAny(s, "ßẞ") {
		s = strings.NewReplacer("ß", "ss", "ẞ", "ss").Replace(s)
	}
	return s
}
