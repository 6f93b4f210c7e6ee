package lockcore

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLockFileSize bounds how much of a lock file is read: a lock is a handful of
// lines, and a huge or binary file must not stall a scan.
const MaxLockFileSize = 64 << 10

// Fields is the parsed `key: value` body of a lock file.
type Fields struct {
	// Values maps lower-cased keys to trimmed values; the last duplicate wins.
	Values map[string]string
	// Keys lists the keys in the order they first appeared, so unknown keys can be
	// shown as written.
	Keys []string
	// Lines is the body's lines (CRLF folded, BOM removed), for content rules that look
	// beyond key: value pairs.
	Lines []string
}

// Get returns the value of key (lower-case) and whether it is present.
func (f Fields) Get(key string) (string, bool) {
	v, ok := f.Values[key]
	return v, ok
}

// ParseFields parses a lock body as the reference does: one `key: value` per line;
// blank lines, lines starting with '#' and lines without ':' are skipped; the split is
// at the first ':'; keys are trimmed and lower-cased, values trimmed; the last
// duplicate wins. A UTF-8 BOM is dropped, CRLF is read as LF, and invalid UTF-8 is
// replaced with U+FFFD.
func ParseFields(data []byte) Fields {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	text := string(data)
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	f := Fields{Values: map[string]string{}}
	for _, line := range splitLines(text) {
		f.Lines = append(f.Lines, line)
		k, v, ok := fieldLine(line)
		if !ok {
			continue
		}
		if _, seen := f.Values[k]; !seen {
			f.Keys = append(f.Keys, k)
		}
		f.Values[k] = v
	}
	return f
}

// fieldLine reads one line of a lock body as ParseFields does: its key (trimmed, lower
// case) and value (trimmed), split at the first ':'; ok is false for a blank line, a
// comment ('#') or a line without ':'. setFields edits the lines it reads as fields.
func fieldLine(line string) (key, value string, ok bool) {
	s := strings.TrimFunc(line, stripSpace)
	if s == "" || strings.HasPrefix(s, "#") {
		return "", "", false
	}
	k, v, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", false
	}
	return strings.ToLower(strings.TrimFunc(k, stripSpace)), strings.TrimFunc(v, stripSpace), true
}

// stripSpace is Python's str.isspace, which the reference's strip() uses: Go's
// unicode.IsSpace plus the separators U+001C..U+001F.
func stripSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// splitLines splits like Python's str.splitlines, which the reference uses: at \n,
// \r\n, \r, \v, \f, \x1c-\x1e, U+0085, U+2028 and U+2029; a final separator does
// not start an empty line.
func splitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isLineBreak(r) {
			lines = append(lines, s[start:i])
			if r == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
			start = i + size
		}
		i += size
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// isLineBreak reports whether splitLines ends a line at r.
func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// singleLine reports whether v is read back as one line: it holds none of the line
// breaks of splitLines (a value with one would end there, and what follows would be
// read as a field of its own).
func singleLine(v string) bool { return strings.IndexFunc(v, isLineBreak) < 0 }

// SplitOperations splits an operations value on commas, trimming each item and
// dropping empty ones.
func SplitOperations(v string) []string {
	var ops []string
	for _, op := range strings.Split(v, ",") {
		if op = strings.TrimSpace(op); op != "" {
			ops = append(ops, op)
		}
	}
	return ops
}

// Readable reports whether data, parsed as f, can be a lock body: it has at least one
// field whose key is printable text, or it is text at all (empty, blank, or free-form
// words: the reference reads those as a lock with every field missing, and so does
// guard). Binary data without a single readable field is not a lock body.
func (f Fields) Readable(data []byte) bool {
	for _, k := range f.Keys {
		if printableKey(k) {
			return true
		}
	}
	return isText(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
}

// printableKey reports whether a field key is text a person could have written: no
// control characters, no replacement characters from invalid UTF-8.
func printableKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' && r != '\t' {
			return false
		}
	}
	return true
}

// isText reports whether data holds no control bytes other than the spaces and line
// breaks the parser knows. Bytes that are not UTF-8 are allowed: a lock written in a
// legacy encoding (Latin-1) is still text; NUL bytes (UTF-16, binary formats) and
// other control bytes are not.
func isText(data []byte) bool {
	for _, b := range data {
		switch {
		case b == '\t', b == '\n', b == '\v', b == '\f', b == '\r', b >= 0x1c && b <= 0x1f:
		case b < 0x20, b == 0x7f:
			return false
		}
	}
	return true
}
