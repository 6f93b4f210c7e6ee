package cmdline

import (
	"strings"
)

// splitString splits env -S's string into words as env does: on blanks, with single
// and double quotes and backslash escapes.
func splitString(s string) []string {
	var out []string
	var b strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				out = append(out, b.String())
				b.Reset()
				inWord = false
			}
		case ch == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i+1:])
				i = len(s)
				continue
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case ch == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
		case ch == '\\' && i+1 < len(s):
			inWord = true
			i++
			b.WriteByte(s[i])
		default:
			inWord = true
			b.WriteByte(ch)
		}
	}
	if inWord {
		out = append(out, b.String())
	}
	return out
}
