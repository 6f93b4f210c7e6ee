package lockcore

import (
	"bytes"
	"strings"
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
		s := strings.TrimSpace(line)
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		k, v, ok := strings.Cut(s, ":")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		if _, seen := f.Values[k]; !seen {
			f.Keys = append(f.Keys, k)
		}
		f.Values[k] = strings.TrimSpace(v)
	}
	return f
}

// splitLines splits like Python's str.splitlines for the separators that matter in
// text files: \n, \r\n and \r.
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}

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
