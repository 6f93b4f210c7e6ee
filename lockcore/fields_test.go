package lockcore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/guardlocks/guard/lockcore"
)

func TestParseFieldsReadsKeyValueLinesAsTheReferenceDoes(t *testing.T) {
	cases := []struct {
		name string
		body string
		want map[string]string
		keys []string
	}{
		{"plain fields are read", "owner: bob\nhost: h1\n", map[string]string{"owner": "bob", "host": "h1"}, []string{"owner", "host"}},
		{"keys are trimmed and lower-cased, values trimmed", "  Owner  :   bob  \n", map[string]string{"owner": "bob"}, []string{"owner"}},
		{"the split is at the first colon", "url: http://x:8080/a\n", map[string]string{"url": "http://x:8080/a"}, []string{"url"}},
		{"the last duplicate wins but keeps its first position", "owner: a\nhost: h\nOWNER: b\n", map[string]string{"owner": "b", "host": "h"}, []string{"owner", "host"}},
		{"comment lines are skipped", "# owner: nobody\n   # host: x\nowner: bob\n", map[string]string{"owner": "bob"}, []string{"owner"}},
		{"lines without a colon are skipped", "LOCK.user.me\nowner: bob\njust text\n", map[string]string{"owner": "bob"}, []string{"owner"}},
		{"blank lines are skipped", "\n\n   \nowner: bob\n\n", map[string]string{"owner": "bob"}, []string{"owner"}},
		{"inline comments stay in the value", "owner: bob # not a comment\n", map[string]string{"owner": "bob # not a comment"}, []string{"owner"}},
		{"empty values are kept", "purpose:\n", map[string]string{"purpose": ""}, []string{"purpose"}},
		{"unknown keys are kept", "Grund: weil\nX-Thing: 1\n", map[string]string{"grund": "weil", "x-thing": "1"}, []string{"grund", "x-thing"}},
		{"CRLF line ends are read", "owner: bob\r\nhost: h\r\n", map[string]string{"owner": "bob", "host": "h"}, []string{"owner", "host"}},
		{"lone CR line ends are read", "owner: bob\rhost: h\r", map[string]string{"owner": "bob", "host": "h"}, []string{"owner", "host"}},
		{"a UTF-8 BOM is dropped", "\xef\xbb\xbfowner: bob\r\n", map[string]string{"owner": "bob"}, []string{"owner"}},
		{"form feed and vertical tab split lines like splitlines", "owner: a\fhost: b\vmode: soft", map[string]string{"owner": "a", "host": "b", "mode": "soft"}, []string{"owner", "host", "mode"}},
		{"unicode line separators split lines", "owner: a\u2028host: b\u0085mode: soft", map[string]string{"owner": "a", "host": "b", "mode": "soft"}, []string{"owner", "host", "mode"}},
		{"file separators are stripped like Python whitespace", "\x1fowner: a\x1c\n", map[string]string{"owner": "a"}, []string{"owner"}},
		{"invalid UTF-8 is replaced, not fatal", "owner: b\xffob\n", map[string]string{"owner": "b\uFFFDob"}, []string{"owner"}},
		{"a final line without newline is read", "owner: bob", map[string]string{"owner": "bob"}, []string{"owner"}},
		{"an empty body has no fields", "", map[string]string{}, nil},
		{"a colon-only line gives an empty key", ":x\n", map[string]string{"": "x"}, []string{""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := lockcore.ParseFields([]byte(c.body))
			assert.Equal(t, c.want, f.Values)
			assert.Equal(t, c.keys, f.Keys)
		})
	}
}

func TestParseFieldsKeepsEveryLine(t *testing.T) {
	f := lockcore.ParseFields([]byte("LOCK.user.claude-code@ASUS-GEI\r\nGrund: x\r\n\r\n"))
	assert.Equal(t, []string{"LOCK.user.claude-code@ASUS-GEI", "Grund: x", ""}, f.Lines)
	v, ok := f.Get("grund")
	assert.True(t, ok)
	assert.Equal(t, "x", v)
	_, ok = f.Get("owner")
	assert.False(t, ok)
}

func TestSplitOperationsTrimsAndDropsEmptyItems(t *testing.T) {
	assert.Equal(t, []string{"commit", "push"}, lockcore.SplitOperations(" commit, ,push ,,"))
	assert.Equal(t, []string{"publish-release"}, lockcore.SplitOperations("publish-release"))
	assert.Nil(t, lockcore.SplitOperations(""))
	assert.Nil(t, lockcore.SplitOperations(" , "))
}
